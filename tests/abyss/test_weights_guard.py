"""A damaged or empty weights file, and an empty `weights=` (as from an unset shell variable),
are refused in one line naming the file or the parameter (issue 53), never a traceback and never
the built-in weights played in their place."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.abyss.strategies import REGISTRY
from strategies.registry import StrategyError

BUILTIN = Path(REGISTRY.make_policy("learned").builtin(4))


@pytest.mark.parametrize("keep", [0.0, 0.01, 0.25, 0.5, 0.75, 0.99])
def test_a_cut_weights_file_is_refused_in_one_line(tmp_path, keep: float) -> None:
    blob = BUILTIN.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(blob[: int(len(blob) * keep)])
    with pytest.raises(StrategyError) as err:
        REGISTRY.make_policy(f"learned:weights={cut}")
    text = str(err.value)
    assert "\n" not in text and str(cut) in text
    assert ("empty (0 bytes)" if keep == 0 else "damaged or truncated") in text


def test_a_weights_file_of_other_bytes_is_not_weights(tmp_path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip at all\n" * 10)
    with pytest.raises(StrategyError, match="not a learned player's weights") as err:
        REGISTRY.make_policy(f"learned:weights={junk}")
    assert "\n" not in str(err.value) and str(junk) in str(err.value)


@pytest.mark.parametrize("spec", ["learned:weights=", "learned:weights= ",
                                  "search:rollout_policy=learned:rollout_weights="])
def test_an_empty_path_is_refused_not_the_builtin_weights(spec: str) -> None:
    with pytest.raises(StrategyError, match=r"weights= is empty"):
        REGISTRY.make_policy(spec)
