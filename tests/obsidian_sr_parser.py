"""How the Obsidian spaced-repetition plugin reads cards out of a note, in Python, for tests.

Two parsers, written from the plugin's published parsing rules (st3v3nmw/obsidian-spaced-
repetition), not from our exporter:

* :func:`parse_peg` follows the PEG grammar of the current plugin (``src/parser.ts``,
  ``generateParser``): a note is a sequence of blocks, tried in this order: HTML comment,
  inline reversed card (``:::``), inline card (``::``), multi-line reversed card (``??``),
  multi-line card (``?``), cloze, and otherwise a loose line. A multi-line card is one or
  more non-empty question lines, the separator line, answer lines, and the end line: the
  end marker setting followed by a newline, so with the default (an empty marker) the
  first blank line ends the answer. Fenced code inside an answer is taken whole.
* :func:`parse_lines` follows the older line-by-line parser (``parseEx`` of the 1.10-1.12
  releases): a line containing ``::`` makes an inline card at once, a line ``?`` starts
  the answer, a line equal to the end marker (trimmed) ends the card, a line starting
  ``<!--`` skips to the next line containing ``-->``.

Both return :class:`SrCard` values: the kind, the question and the answer text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WS = " \f\t\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


@dataclass(frozen=True)
class SrCard:
    kind: str  # "inline", "inline-reversed", "multiline", "multiline-reversed", "cloze"
    front: str
    back: str


@dataclass(frozen=True)
class Settings:
    end_marker: str = ""  # "Characters denoting the end of clozes and multiline flashcards"
    inline: str = "::"
    inline_reversed: str = ":::"
    separator: str = "?"
    reversed_separator: str = "??"
    highlight_clozes: bool = True  # ==text== (the plugin's default)
    bold_clozes: bool = False  # **text**
    curly_clozes: bool = False  # {{text}}


class _Peg:
    """The grammar's rules as methods: each takes a position and returns the end or None."""

    def __init__(self, text: str, s: Settings) -> None:
        self.t = text
        self.s = s
        close = []
        if s.highlight_clozes:
            close.append(r"==(?:(?!==)[^\n\r])+==")
        if s.bold_clozes:
            close.append(r"\*\*(?:(?!\*\*)[^\n\r])+\*\*")
        if s.curly_clozes:
            close.append(r"\{\{(?:(?!\}\})[^\n\r])+\}\}")
        self.close = re.compile("|".join(close)) if close else None

    # -- lexical pieces
    def newline(self, i: int) -> int | None:
        return i + 1 if i < len(self.t) and self.t[i] in "\n\r" else None

    def line_end(self, i: int) -> int:
        while i < len(self.t) and self.t[i] not in "\n\r":
            i += 1
        return i

    def text_line(self, i: int) -> int | None:
        return self.newline(self.line_end(i))

    def nonempty_text_line(self, i: int) -> int | None:
        end = self.line_end(i)
        return self.newline(end) if end > i else None

    def literal(self, i: int, word: str) -> int | None:
        return i + len(word) if self.t.startswith(word, i) else None

    def mark_line(self, i: int, mark: str) -> int | None:
        j = self.literal(i, mark)
        if j is None:
            return None
        while j < len(self.t) and self.t[j] in _WS:
            j += 1
        return self.newline(j)

    def separator_line(self, i: int) -> int | None:
        j = self.literal(i, self.s.end_marker)
        return None if j is None else self.newline(j)

    # -- blocks
    def html_comment(self, i: int) -> int | None:
        if not self.t.startswith("<!--", i):
            return None
        j = i + 4
        while not self.t.startswith("-->", j):
            if j >= len(self.t):
                return None
            nested = self.html_comment(j)
            j = nested if nested is not None else j + 1
        j += 3
        return self.newline(j) or j

    def inline(self, i: int, mark: str) -> int | None:
        end = self.line_end(i)
        at = self.t.find(mark, i, end)
        if at <= i:  # the mark must follow at least one character
            return None
        j = end
        nl = self.newline(j)
        if nl is not None and self.t.startswith("<!--SR:", nl):
            close = self.t.find("-->", nl)
            if close > nl + 7:
                j = close + 3
        return self.newline(j) or j

    def multiline(self, i: int, mark: str, code: bool) -> tuple[int, str, str] | None:
        j = i
        while self.mark_line(j, mark) is None:
            nxt = self.nonempty_text_line(j)
            if nxt is None:
                break
            j = nxt
        if j == i:
            return None
        sep_end = self.mark_line(j, mark)
        if sep_end is None:
            return None
        front = self.t[i:j]
        k = sep_end
        while self.separator_line(k) is None:
            nxt = (self.code(k) if code else None) or self.text_line(k)
            if nxt is None:
                break
            k = nxt
        if k == sep_end:
            return None
        end = self.separator_line(k)
        if end is None:
            return None
        return end, front, self.t[sep_end:k].strip()

    def code(self, i: int) -> int | None:
        m = re.compile(r"```+|~~~+").match(self.t, i)
        if m is None:
            return None
        fence = m.group(0)
        j = self.text_line(m.end())
        while j is not None and j < len(self.t):
            close = re.compile(re.escape(fence[0]) + "+").match(self.t, j)
            if close is not None and len(close.group(0)) == len(fence):
                return self.newline(close.end())
            j = self.code(j) or self.text_line(j)
        return None

    def cloze(self, i: int) -> int | None:
        if self.close is None:
            return None

        def close_line(p: int) -> int | None:
            m = self.close.search(self.t, p, self.line_end(p))
            return self.line_end(p) if m else None

        j = i
        while close_line(j) is None:
            nxt = self.nonempty_text_line(j)
            if nxt is None:
                return None
            j = nxt
        j = close_line(j)
        assert j is not None
        while True:  # following lines, up to a blank line (the end marker line)
            nl = self.newline(j)
            if nl is None or self.separator_line(nl) is not None:
                break
            j = self.line_end(nl)
        return j

    def loose_line(self, i: int) -> int:
        end = self.line_end(i)
        return self.newline(end) or end

    def parse(self) -> list[SrCard]:
        cards: list[SrCard] = []
        i = 0
        s = self.s
        while i < len(self.t):
            j = self.html_comment(i)
            if j is not None:
                i = j
                continue
            for kind, mark in (("inline-reversed", s.inline_reversed), ("inline", s.inline)):
                j = self.inline(i, mark)
                if j is not None:
                    line = self.t[i : self.line_end(i)]
                    front, _, back = line.partition(mark)
                    cards.append(SrCard(kind, front, back))
                    break
            if j is not None:
                i = j
                continue
            done = False
            for kind, mark, code in (
                ("multiline-reversed", s.reversed_separator, False),
                ("multiline", s.separator, True),
            ):
                m = self.multiline(i, mark, code)
                if m is not None:
                    end, front, back = m
                    cards.append(SrCard(kind, front.rstrip("\n"), back))
                    i, done = end, True
                    break
            if done:
                continue
            j = self.cloze(i)
            if j is not None:
                cards.append(SrCard("cloze", self.t[i:j].strip(), ""))
                i = j
                continue
            i = self.loose_line(i)
        return cards


def parse_peg(text: str, settings: Settings | None = None) -> list[SrCard]:
    """Cards as the current plugin's grammar finds them (it appends blank lines first)."""
    return _Peg(text + "\n\n\n", settings or Settings()).parse()


def parse_lines(text: str, settings: Settings | None = None) -> list[SrCard]:
    """Cards as the older line-by-line parser (1.10-1.12) finds them."""
    s = settings or Settings()
    lines = text.replace("\r\n", "\n").split("\n")
    cards: list[SrCard] = []
    kind: str | None = None
    buf: list[str] = []

    def push() -> None:
        mark = s.reversed_separator if kind == "multiline-reversed" else s.separator
        if kind in ("multiline", "multiline-reversed"):
            at = next(n for n, line in enumerate(buf) if line.strip() == mark)
            front, back = "\n".join(buf[:at]), "\n".join(buf[at + 1 :]).strip()
            cards.append(SrCard(kind, front, back))
        else:
            cards.append(SrCard(kind or "", "\n".join(buf), ""))

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!--") and not line.startswith("<!--SR:"):
            while i + 1 < len(lines) and "-->" not in lines[i + 1]:
                i += 1
            i += 2
            continue
        if kind and line.strip() == s.end_marker:
            push()
            kind, buf = None, []
            i += 1
            continue
        buf.append(line)
        if s.inline_reversed in line or s.inline in line:
            kind = "inline-reversed" if s.inline_reversed in line else "inline"
            front, _, back = line.partition(s.inline_reversed if kind != "inline" else s.inline)
            cards.append(SrCard(kind, front, back))
            kind, buf = None, []
        elif kind is None and (
            (s.highlight_clozes and re.search(r"==.*?==", line))
            or (s.bold_clozes and re.search(r"\*\*.*?\*\*", line))
            or (s.curly_clozes and re.search(r"{{.*?}}", line))
        ):
            kind = "cloze"
        elif line.strip() == s.separator:
            kind = "multiline"
        elif line.strip() == s.reversed_separator:
            kind = "multiline-reversed"
        elif line.startswith(("```", "~~~")):
            fence = re.match(r"`+|~+", line)
            assert fence is not None
            while i + 1 < len(lines) and not lines[i + 1].startswith(fence.group(0)):
                i += 1
                buf.append(lines[i])
            buf.append(fence.group(0))
            i += 1
        i += 1
    if kind and buf:
        push()
    return cards
