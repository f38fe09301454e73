"""Anki field HTML as card Markdown, and Anki cloze deletions as question/answer pairs.

:func:`html_markdown` keeps what Markdown can say (paragraphs and line breaks, bold,
italic, strike-through, code, lists, links, simple tables) and drops the rest (colours,
fonts, media: an image becomes ``[image: name]``). Text is escaped so it reads the same
after the trip: Markdown punctuation gets a backslash (braces too, so nothing in an
imported card is ever taken for a ``{placeholder}``; in code, where a backslash would show,
braces are doubled, the card format's own escape). MathJax (``\\(…\\)``) survives
as text and comes back out of an export as MathJax.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&~|#{}])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]")
_SEPARATOR = re.compile(r"[\u2028\u2029]")
_SOUND = re.compile(r"\[sound:[^\]]*\]")
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_NESTED_ITEM = re.compile(r"^(  )+(- |\d+\. )")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::((?:(?!\}\}).)*?))?\}\}", re.DOTALL)
MAX_CLOZES = 100  # cloze numbers one note may produce cards for

_BLOCK = {"div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "section"}
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~", "strike": "~~", "del": "~~"}
_SKIP = {"script", "style", "head", "title"}


def escape_markdown(text: str) -> str:
    """Plain text as Markdown that renders as that text. A brace gets a backslash too: ``\\{``
    is never a ``{placeholder}`` and renders as ``{``."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def clean_text(text: str) -> str:
    """Control characters (other than tab and newline) removed and Unicode line separators
    made newlines: YAML cannot hold the one raw and reads the other as a line break."""
    return _SEPARATOR.sub("\n", _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.code = 0
        self.lists: list[list[int]] = []  # per open list: [is_ordered, next number]
        self.links: list[str] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.rows_done = 0

    # -- output helpers
    def emit(self, text: str) -> None:
        (self.cell if self.cell is not None else self.out).append(text)

    def block(self) -> None:
        if self.cell is None:
            self.out.append("\n\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in _SKIP:
            self.skip += 1
        elif tag == "br":
            self.emit("\n\n" if self.cell is None else " ")
        elif tag in _INLINE:
            self.emit(_INLINE[tag])
        elif tag == "code" and not self.pre:
            self.emit("`")
            self.code += 1
        elif tag == "pre":
            self.block()
            self.emit("```\n")
            self.pre += 1
        elif tag in ("ul", "ol"):
            self.block()
            self.lists.append([tag == "ol", 1])
        elif tag == "li":
            if self.lists:
                ordered, number = self.lists[-1]
                self.lists[-1][1] += 1
                indent = "  " * (len(self.lists) - 1)
                self.emit(f"\n{indent}{number}. " if ordered else f"\n{indent}- ")
            else:
                self.emit("\n- ")
        elif tag == "a":
            href = a.get("href") or ""
            self.links.append(href if re.match(r"https?://", href) else "")
            if self.links[-1]:
                self.emit("[")
        elif tag == "img":
            name = (a.get("alt") or a.get("src") or "").strip()
            if name:
                self.emit(escape_markdown(f"[image: {name}]"))
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag in _BLOCK:
            self.block()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _INLINE:
            self.emit(_INLINE[tag])
        elif tag == "code" and self.code:
            self.emit("`")
            self.code -= 1
        elif tag == "pre" and self.pre:
            self.pre -= 1
            self.emit("\n```")
            self.block()
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self.block()
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                self.emit(f"]({href.replace(')', '%29').replace(' ', '%20')})")
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(_SPACES.sub(" ", "".join(self.cell)).strip() or " ")
            self.cell = None
        elif tag == "tr" and self.row is not None:
            line = "| " + " | ".join(self.row) + " |"
            if self.rows_done == 0:
                line += "\n|" + "---|" * len(self.row)
            self.out.append(("\n\n" if self.rows_done == 0 else "\n") + line)
            self.rows_done += 1
            self.row = None
        elif tag == "table":
            self.rows_done = 0
            self.block()
        elif tag in _BLOCK:
            self.block()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre or self.code:
            # Code shows backslashes as typed: only the braces are doubled (never a placeholder).
            text = data if self.pre else _SPACES.sub(" ", data)
            self.emit(text.replace("`", "'").replace("{", "{{").replace("}", "}}"))
            return
        self.emit(escape_markdown(_SPACES.sub(" ", data)))


def html_markdown(html: str) -> str:
    """The Markdown for an Anki field's HTML."""
    html = _SOUND.sub("", clean_text(html))
    conv = _Converter()
    conv.feed(html)
    conv.close()
    lines: list[str] = []
    fenced = False
    for line in "".join(conv.out).split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not _NESTED_ITEM.match(line):
            line = line.strip()
        lines.append(line.rstrip())
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def cloze_numbers(text: str) -> list[int]:
    """The cloze numbers (``{{c1::…}}`` → 1) a cloze note makes cards for, in order."""
    return sorted({int(m.group(1)) for m in CLOZE.finditer(text)})


def cloze_sides(text: str, number: int) -> tuple[str, str]:
    """(question HTML, answer HTML) of cloze card ``number``: its deletions hidden as
    ``[…]`` (or ``[hint]``) on the question and shown in bold on the answer; the other
    deletions shown as plain text on both sides."""

    def front(m: re.Match[str]) -> str:
        if int(m.group(1)) != number:
            return m.group(2)
        return f"[{m.group(3)}]" if m.group(3) else "[…]"

    def back(m: re.Match[str]) -> str:
        return f"<b>{m.group(2)}</b>" if int(m.group(1)) == number else m.group(2)

    return CLOZE.sub(front, text), CLOZE.sub(back, text)
