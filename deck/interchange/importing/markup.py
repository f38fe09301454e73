"""Anki field HTML as card Markdown, and Anki cloze deletions as question/answer pairs.

:func:`html_markdown` keeps what Markdown can say (paragraphs and line breaks, bold,
italic, strike-through, code, lists, links, simple tables) and drops the rest (colours,
fonts, media: an image becomes ``[image: name]``). Text is escaped so it reads the same
after the trip: Markdown punctuation gets a backslash (braces too, so nothing in an
imported card is ever taken for a ``{placeholder}``; in code, where a backslash would show,
braces are doubled, the card format's own escape). MathJax (``\\(…\\)``) survives
as text and comes back out of an export as MathJax.

Field text is hostile: the tokenizer (:func:`_tokens`) and the cloze scanner
(:func:`find_clozes`) are single forward passes with no backtracking regex over the text,
so their work is linear in the field's length (``html.parser`` is quadratic on unclosed
``<!--`` or ``<a``, and the old cloze regex cubic on unclosed ``{{c1::``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&~|#{}])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]")
_SEPARATOR = re.compile(r"[\u2028\u2029]")
_SOUND = re.compile(r"\[sound:[^\[\]]*\]")  # stops at the next "[": linear
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_NESTED_ITEM = re.compile(r"^(  )+(- |\d+\. )")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
MAX_CLOZES = 100  # cloze numbers one note may produce cards for
MAX_CLOZE_DIGITS = 4  # {{c9999::…}}; a longer number is refused (the note is skipped)
_TAG_NAME = re.compile(r"[A-Za-z][^\s/<>]*")  # stops at the next "<": linear
# One attribute; a quoted value runs to the next quote of its kind, so a scan never repeats.
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?""")
_RAW_END = {"script": re.compile(r"</script", re.I), "style": re.compile(r"</style", re.I)}

_BLOCK = {"div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "section"}
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~", "strike": "~~", "del": "~~"}
_SKIP = {"script", "style", "head", "title"}


def escape_markdown(text: str) -> str:
    """Plain text as Markdown that renders as that text. A brace gets a backslash too: ``\\{``
    is never a ``{placeholder}`` and renders as ``{``."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def clean_text(text: str) -> str:
    """Control characters (other than tab and newline) removed, form feed and vertical tab
    made spaces, and Unicode line separators made newlines: YAML cannot hold the one raw and reads the other as a line break."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", " ").replace("\v", " ")
    return _SEPARATOR.sub("\n", _CONTROL.sub("", text))


Token = tuple[str, str, dict[str, str | None]]  # (kind, tag name or text, attributes)


def _tokens(html: str) -> Iterator[Token]:
    """``("data", text, {})``, ``("start", tag, attrs)`` and ``("end", tag, {})`` for ``html``,
    in one forward pass: every search starts where the last one ended or is known to fail,
    so the work is linear in ``len(html)``. A ``<`` that starts no complete tag is text."""
    n, i = len(html), 0
    gt = -1  # the next ">" at or after i (recomputed only when i passes it)
    no_gt = no_comment_end = False
    raw_missing: set[str] = set()

    def next_gt(at: int) -> int:
        nonlocal gt, no_gt
        if no_gt:
            return -1
        if gt < at:
            gt = html.find(">", at)
            no_gt = gt < 0
        return gt

    while i < n:
        lt = html.find("<", i)
        if lt < 0:
            yield ("data", unescape(html[i:]), {})
            return
        if lt > i:
            yield ("data", unescape(html[i:lt]), {})
        i = lt
        if html.startswith("<!--", i):
            end = -1 if no_comment_end else html.find("-->", i + 4)
            if end >= 0:
                i = end + 3
                continue
            no_comment_end = True
        elif i + 1 < n and html[i + 1] in "!?":  # a declaration or processing instruction
            end = next_gt(i)
            if end >= 0:
                i = end + 1
                continue
        else:
            closing = html.startswith("</", i)
            name = _TAG_NAME.match(html, i + 2 if closing else i + 1)
            end = next_gt(i) if name else -1
            if name and end >= 0:
                tag = name.group().lower()
                if closing:
                    yield ("end", tag, {})
                    i = end + 1
                    continue
                attrs: dict[str, str | None] = {}
                for m in _ATTR.finditer(html, name.end(), end):
                    value = m.group(2)
                    if value and value[0] in "\"'":
                        value = value[1:-1]
                    attrs.setdefault(m.group(1).lower(), None if value is None else unescape(value))
                yield ("start", tag, attrs)
                i = end + 1
                if tag in _RAW_END and not html.startswith("/>", end - 1):
                    # Script and style content is never markup: skip to its end tag.
                    found = None if tag in raw_missing else _RAW_END[tag].search(html, i)
                    if found is None:
                        raw_missing.add(tag)
                        return
                    i = found.start()
                continue
        yield ("data", "<", {})
        i += 1


class _Converter:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.code = 0
        self.lists: list[list[int]] = []  # per open list: [is_ordered, next number]
        self.links: list[str] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.rows_done = 0
        self.tokens = 0

    # -- output helpers
    def emit(self, text: str) -> None:
        (self.cell if self.cell is not None else self.out).append(text)

    def block(self) -> None:
        if self.cell is None:
            self.out.append("\n\n")

    def feed(self, html: str) -> None:
        for kind, value, attrs in _tokens(html):
            self.tokens += 1
            if kind == "data":
                self.handle_data(value)
            elif kind == "start":
                self.handle_starttag(value, attrs)
            else:
                self.handle_endtag(value)

    def handle_starttag(self, tag: str, a: dict[str, str | None]) -> None:
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
    return convert_html(html)[0]


def convert_html(html: str) -> tuple[str, int]:
    """(the Markdown for ``html``, how many tokens it took): the count is the work done in
    Python, beyond the linear passes over the characters (an importer's budget counts both)."""
    html = _SOUND.sub("", clean_text(html))
    conv = _Converter()
    conv.feed(html)
    lines: list[str] = []
    fenced = False
    for line in "".join(conv.out).split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and not _NESTED_ITEM.match(line):
            line = line.strip()
        lines.append(line.rstrip())
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip(), conv.tokens


@dataclass(frozen=True)
class Cloze:
    """One ``{{cN::text::hint}}`` deletion: where it is, its number (None when longer than
    :data:`MAX_CLOZE_DIGITS` digits), its text and its hint (None without one)."""

    start: int
    end: int
    number: int | None
    text: str
    hint: str | None


def find_clozes(text: str) -> list[Cloze]:
    """The cloze deletions of ``text``, left to right, as Anki reads them: ``{{c``, ASCII
    digits, ``::``, then everything up to the next ``}}`` (the hint after its first ``::``).
    One forward pass of ``str.find``: linear in ``len(text)``, however the braces nest."""
    out: list[Cloze] = []
    n, i = len(text), 0
    while (i := text.find("{{c", i)) >= 0:
        j = i + 3
        while j < n and "0" <= text[j] <= "9":
            j += 1
        if j == i + 3 or not text.startswith("::", j):
            i += 1
            continue
        close = text.find("}}", j + 2)
        if close < 0:  # no later opener can close either
            break
        body, sep, hint = text[j + 2 : close].partition("::")
        digits = text[i + 3 : j]
        number = int(digits) if len(digits) <= MAX_CLOZE_DIGITS else None
        out.append(Cloze(i, close + 2, number, body, hint if sep else None))
        i = close + 2
    return out


def cloze_numbers(text: str) -> list[int]:
    """The cloze numbers (``{{c1::…}}`` → 1) a cloze note makes cards for, in order (a number
    too long to read is left out: :func:`find_clozes` marks it)."""
    return sorted({c.number for c in find_clozes(text) if c.number is not None})


def cloze_sides(text: str, number: int, clozes: list[Cloze] | None = None) -> tuple[str, str]:
    """(question HTML, answer HTML) of cloze card ``number``: its deletions hidden as
    ``[…]`` (or ``[hint]``) on the question and shown in bold on the answer; the other
    deletions shown as plain text on both sides. ``clozes``: :func:`find_clozes` of ``text``."""
    front: list[str] = []
    back: list[str] = []
    at = 0
    for c in find_clozes(text) if clozes is None else clozes:
        front.append(text[at : c.start])
        back.append(text[at : c.start])
        if c.number == number:
            front.append(f"[{c.hint}]" if c.hint else "[…]")
            back.append(f"<b>{c.text}</b>")
        else:
            front.append(c.text)
            back.append(c.text)
        at = c.end
    front.append(text[at:])
    back.append(text[at:])
    return "".join(front), "".join(back)
