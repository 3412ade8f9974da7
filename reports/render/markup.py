"""Text for the report writer (`reports.render.report`): plain text cleaned of control characters,
the two inline marks (``**bold**`` and ```code```) as HTML or Markdown, everything else escaped
for its format, and GitHub's heading anchors."""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
INLINE = re.compile(r"`(?P<code>[^`\n]+)`|\*\*(?P<bold>(?=\S)[^\n]*?\S)\*\*")
MD_SPECIAL = re.compile(r"[\\`*\[\]<>|~&#$]")
UNDERSCORES = re.compile(r"_+")


def clean(text: Any) -> str:
    """`text` as str with newlines normalised and control characters (other than tab and
    newline) replaced, so that neither format sees NULs or stray carriage returns."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL.sub("\ufffd", text)


def html_text(text: Any) -> str:
    return html.escape(clean(text), quote=True)


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n[ \t]*\n", clean(text)) if p.strip()]


def inline_tokens(text: str) -> list[tuple[str, str]]:
    """Split `text` into ("text" | "bold" | "code", content) tokens."""
    tokens = []
    pos = 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            tokens.append(("text", text[pos : m.start()]))
        if m.group("code") is not None:
            tokens.append(("code", m.group("code")))
        else:
            tokens.append(("bold", m.group("bold")))
        pos = m.end()
    if pos < len(text):
        tokens.append(("text", text[pos:]))
    return tokens


def html_inline(text: str) -> str:
    out = []
    for kind, content in inline_tokens(text):
        if kind == "code":
            out.append(f"<code>{html_text(content)}</code>")
        elif kind == "bold":
            out.append(f"<strong>{html_text(content)}</strong>")
        else:
            out.append(html_text(content))
    return "".join(out)


def md_escape(text: str) -> str:
    """Backslash-escape Markdown's inline syntax (and raw HTML) in plain text."""
    text = MD_SPECIAL.sub(r"\\\g<0>", text)
    return UNDERSCORES.sub(escape_underscores, text)


def escape_underscores(m: re.Match) -> str:
    # a run of _ between two letters/digits can neither open nor close emphasis (GFM)
    s, a, b = m.string, m.start(), m.end()
    inside_word = a > 0 and b < len(s) and s[a - 1].isalnum() and s[b].isalnum()
    return m.group() if inside_word else "\\_" * (b - a)


def md_line(text: Any) -> str:
    """Plain text for one line of Markdown (a heading, caption, link text): escaped, with
    newlines turned into spaces."""
    return md_escape(" ".join(clean(text).split()))


def md_paragraph(text: str) -> str:
    out = []
    for kind, content in inline_tokens(text):
        if kind == "code":
            out.append(f"`{content}`")  # INLINE: no backtick or newline inside
        elif kind == "bold":
            out.append(f"**{md_escape(content)}**")
        else:
            out.append(md_escape(content))
    lines = [line.strip() for line in "".join(out).split("\n")]
    return "\n".join(md_line_start(line) for line in lines if line)


def md_line_start(line: str) -> str:
    """Escape what would make a line a list item, heading or setext underline."""
    if line[:1] in ("-", "+", "="):
        return "\\" + line
    m = re.match(r"\d{1,9}(?=[.)])", line)
    if m:
        return line[: m.end()] + "\\" + line[m.end() :]
    return line


def md_cell(text: str) -> str:
    return "<br>".join(md_escape(line) for line in clean(text).split("\n"))


def md_row(cells: list[str]) -> str:
    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def num_class(numeric: bool) -> str:
    return ' class="num"' if numeric else ""


def slug_ascii(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].strip("-")


class GitHubSlugger:
    """The anchors GitHub gives Markdown headings: lower case, punctuation dropped, spaces to
    hyphens, ``-1``, ``-2``... appended to repeats."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, heading: str) -> str:
        text = " ".join(clean(heading).split()).lower()
        base = "".join(ch for ch in text if ch.isalnum() or ch in " -_").replace(" ", "-")
        slug = base
        while slug in self._seen:
            self._seen[base] += 1
            slug = f"{base}-{self._seen[base]}"
        self._seen.setdefault(slug, 0)
        return slug
