"""The report's charts encoded at several zlib levels (docs/benchmarks.md): bytes and CPU
seconds of the palette PNGs of `abyss-mc report RUN_DIR`'s charts, drawn once in this process.
usage: PYTHONPATH=ROOT python scripts/png_levels.py RUN_DIR"""

import io
import os
import sys
import time

os.environ["ABYSS_MC_RENDER_INLINE"] = "1"  # (drawn here, so the images can be kept)

import abyss_mc as amc  # noqa: E402
from reports.render import report  # noqa: E402


def main(run_dir: str) -> None:
    from PIL import Image

    quantized = []
    palette_png = report._palette_png

    def kept(image):  # (the 256-colour image the report encodes, decoded from its PNG)
        png = palette_png(image)
        quantized.append(Image.open(io.BytesIO(png)))
        return png

    report._palette_png = kept
    amc.report(run_dir)
    print(f"{len(quantized)} charts")
    for label, options in [("optimize (level 9)", {"optimize": True})] + [
        (f"level {k}", {"compress_level": k}) for k in (8, 7, 6, 3)
    ]:
        t0, size = time.process_time(), 0
        for im in quantized:
            out = io.BytesIO()
            im.save(out, format="PNG", **options)
            size += len(out.getvalue())
        print(f"  {label}: {size:,} bytes, {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    main(sys.argv[1])
