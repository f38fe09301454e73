"""Finding unproven numbers, formulas and scaling claims in card text.

A card's text may state a quantity only through a span (``{=REF}``, ``{~FIGURE=EXPR}``) or a
placeholder (``{name}``), which ``check`` ties to an executable run, a declared constant or a
parameter. :func:`unproven` lists what is left: every number, every formula and every
scaling adverb that stands in the text without such a tie.

What is *not* a claim (the documented exemptions, see docs/card-format.md):

* code (inline `` `…` `` and fenced blocks), URLs and link targets;
* names that start with a letter and carry digits (``H100``, ``fp16``, ``Llama-3-8B``,
  ``ZeRO-3``, ``v2.17``, ``x16``, ``log₂``), and the application's declared terms that start
  with a digit (``1F1B``, ``3D``);
* list numbering at the start of a line (``1.``, ``2)``), headings' numbering, and numbers
  after ``§``, *Section*, *Table*, *Figure*, *Eq.*, *Chapter*, *Appendix*, *Algorithm*;
* years in citations: ``(2019)``, ``et al. 2020``, ``Thakur 2005``, ``2022a``.

Anything else with a digit is a number; ``·``, ``×``, ``−``, ``÷``, ``√``, ``⌈⌉⌊⌋``, ``^`` or a
superscript make formula text; *linearly*, *quadratically*, *cubically*, *logarithmically*
and *exponentially* are scaling claims. The scan is one pass of a few regular expressions:
linear in the length of the text.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass

from deck.cards.spans import SPAN

_PLACEHOLDER = re.compile(r"(?<![A-Za-z}^_\\{])\{[A-Za-z_\u0370-\u03ff][\w.\u0370-\u03ff]*\}")
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.S)
_URL = re.compile(r"https?://\S+|\]\([^)\s]*\)|<[a-z]+://[^>\s]*>")
_LIST_NUMBER = re.compile(r"(?m)^[ \t>]*(?:#{1,6}[ \t]+)?\d+(?:\.\d+)*[.)][ \t]")
_REFERENCE = re.compile(
    r"(?:§\s*|\b(?:Section|Sections|Sec\.|Table|Tables|Figure|Figures|Fig\.|Eq\.|Eqs\.|"
    r"Equation|Chapter|Appendix|Algorithm|Listing|Theorem|Lemma)\s+)"
    r"[A-Z]?\d+(?:\.\d+)*[a-z]?(?:\s*(?:[-–,]|and)\s*\d+(?:\.\d+)*[a-z]?)*"
)
_YEAR = r"(?:19|20)\d\d[a-z]?"
_CITATION = re.compile(
    rf"\bet al\.?,?\s*\(?{_YEAR}\)?"
    rf"|\((?:[^()\d]*?,\s*)?{_YEAR}(?:\s*[,;]\s*{_YEAR})*\)"
    rf"|\b[A-Z][A-Za-z\u00c0-\u024f'-]+(?:\s+(?:&|and)\s+[A-Z][A-Za-z\u00c0-\u024f'-]+)?,?\s+{_YEAR}\b"
)
# A name: letters first, then letters/digits/_/./+ and hyphen-joined parts ("Llama-3-8B").
# A single letter followed by "-digit" is not a name but arithmetic ("N-1").
_NAME = re.compile(
    r"(?<![\w\u0370-\u03ff.])"
    r"(?:[A-Za-z\u00c0-\u024f\u0370-\u03ff][A-Za-z\u00c0-\u024f\u0370-\u03ff]+(?:[\w+./]|-(?=\w))*"
    r"|[A-Za-z\u0370-\u03ff](?:[\w+/]|\.(?=\w))*\d[\w]*)"
    r"[₀-₉]*"
)
_HAS_DIGIT = re.compile(r"[0-9₀-₉]")
# A sign only where no operand stands before it: in "N-1" and "2(N-1)" the "-" subtracts.
_NUMBER = re.compile(
    r"(?:(?<![\w)])[-−+])?(?:\d[\d,_]*(?:\.\d+)?|\.\d+)[⁰¹²³⁴⁵⁶⁷⁸⁹]*|[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
)
_UNIT_TAIL = re.compile(r"[ \u00a0]?(?:[A-Za-zµμ%×][\w/µμ%×]*)?")
_FORMULA = re.compile(r"[·×−÷√⌈⌉⌊⌋^²³⁴⁵⁶⁷⁸⁹¹⁰ⁿ⁻]")
# ASCII arithmetic between operands with no space around it ("N-1", "2(N-1)", "S/N*2"): a
# formula when a letter and a digit take part (hyphenated words and names have no digit here:
# names with digits are masked first).
_ASCII_OP = re.compile(r"(?<=[\w)])[-+*/](?=[\w(])")
# MathJax delimiters of imported text (\( x^2 \), \[ … \]) are markup, not formula text.
_MATHJAX_DELIMITER = re.compile(r"\\[()\[\]]")
_SCALING = re.compile(
    r"\b(?:linearly|quadratically|cubically|logarithmically|exponentially)\b", re.IGNORECASE
)


class Kind(enum.Enum):
    NUMBER = "number"
    FORMULA = "formula"
    SCALING = "scaling"


@dataclass(frozen=True)
class Unproven:
    """A stretch of text that states something no span ties to a proof."""

    kind: Kind
    start: int
    end: int
    text: str

    def hint(self) -> str:
        if self.kind is Kind.SCALING:
            return (
                "a scaling claim: prove it with a scaling fact, "
                f"{{~{self.text}=FACT}} (see docs/card-format.md)"
            )
        if self.kind is Kind.FORMULA:
            return f"write it as a checked formula, {{~{self.text}=FACT}}"
        return (
            f"render it from a fact or parameter ({{=NAME|UNIT}}) or check it "
            f"({{~{self.text}=NAME}})"
        )


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def _mask(text: str, terms: Iterable[str]) -> str:
    """``text`` with everything exempt (and every span) replaced by spaces, offsets kept."""
    chars = list(text.replace("{{", "  ").replace("}}", "  "))
    masked = "".join(chars)
    for pattern in (
        SPAN,
        _PLACEHOLDER,
        _CODE,
        _URL,
        _CITATION,
        _REFERENCE,
        _LIST_NUMBER,
        _MATHJAX_DELIMITER,
    ):
        for m in pattern.finditer(masked):
            _blank(chars, m.start(), m.end())
        masked = "".join(chars)
    term_list = sorted(set(terms), key=len, reverse=True)
    if term_list:
        term_re = re.compile(
            r"(?<![\w])(?:" + "|".join(re.escape(t) for t in term_list) + r")(?![\w])"
        )
        for m in term_re.finditer(masked):
            _blank(chars, m.start(), m.end())
        masked = "".join(chars)
    for m in _NAME.finditer(masked):
        if _HAS_DIGIT.search(m.group()):
            _blank(chars, m.start(), m.end())
    return "".join(chars)


def exempt_positions(text: str, terms: Iterable[str] = ()) -> frozenset[int]:
    """Offsets of ``text`` that state no claim — code, URLs, citations, references, list
    numbers, terms and names with digits (``ZeRO-3``, ``Llama-2-7B``) outside spans and
    placeholders: what :func:`unproven` skips, and mutation testing leaves alone."""
    full = _mask(text, terms)
    chars = list(text.replace("{{", "  ").replace("}}", "  "))
    for pattern in (SPAN, _PLACEHOLDER):
        for m in pattern.finditer("".join(chars)):
            _blank(chars, m.start(), m.end())
    return frozenset(
        i
        for i, (c, f, s) in enumerate(zip(text, full, chars, strict=True))
        if f == " " and s != " " and not c.isspace()
    )


def unproven(text: str, terms: Iterable[str] = ()) -> list[Unproven]:
    """Every unproven number, formula and scaling claim of ``text``, in order."""
    if not text:
        return []
    masked = _mask(text, terms)
    found: list[Unproven] = []
    covered: set[int] = set()
    for m in _FORMULA.finditer(masked):
        if m.start() in covered:
            continue
        start, end = _formula_extent(masked, m.start(), m.end())
        covered.update(range(start, end))
        figure = text[start:end].strip()
        if not any(c.isalnum() for c in masked[start:end]):
            continue  # an operator between proven values ("{=a} × {=b}") states no number
        kind = Kind.NUMBER if _FIGURE.fullmatch(figure) else Kind.FORMULA
        found.append(Unproven(kind, start, end, figure))
    for m in _ASCII_OP.finditer(masked):
        if m.start() in covered:
            continue
        start, end = _token(masked, m.start(), m.end())  # "GB/s" in "100 GB/s" stays a unit
        while end > start and masked[end - 1] in ".,;:":
            end -= 1
        run = masked[start:end]
        if not (_HAS_DIGIT.search(run) and re.search(r"[A-Za-z\u0370-\u03ff]", run)):
            continue  # "3-5" is two numbers, the scan below finds them; "GB/s" is a unit
        covered.update(range(start, end))
        found.append(Unproven(Kind.FORMULA, start, end, text[start:end].strip()))
    for m in _NUMBER.finditer(masked):
        if m.start() in covered:
            continue
        tail = _UNIT_TAIL.match(masked, m.end())
        end = tail.end() if tail and tail.group().strip() else m.end()
        covered.update(range(m.start(), end))
        found.append(Unproven(Kind.NUMBER, m.start(), end, text[m.start() : end].strip()))
    for m in _SCALING.finditer(masked):
        found.append(Unproven(Kind.SCALING, m.start(), m.end(), m.group()))
    found.sort(key=lambda u: u.start)
    return found


_FORMULA_CHARS = re.compile(r"[\w\u0370-\u03ff()·×−÷√⌈⌉⌊⌋^²³⁴⁵⁶⁷⁸⁹¹⁰ⁿ⁻/+*.₀-₉]")
# A word of prose, possibly in Markdown emphasis ("**No, activations.**"): formulas stop there.
_WORD = r"(?:[a-z]{2,}|[A-Za-z][a-z]{2,})"
_PROSE_WORD = re.compile(rf"[*_]*{_WORD}(?:-{_WORD})*[.,;:!?]*[*_]*")
_FIGURE = re.compile(r"[\d.,\s×⁰¹²³⁴⁵⁶⁷⁸⁹]+[A-Za-z%/µμ]*")


def _formula_char(masked: str, i: int) -> bool:
    """A formula character, or an ASCII ``-`` between operands (``N-1``)."""
    if _FORMULA_CHARS.match(masked[i]):
        return True
    return masked[i] == "-" and bool(_ASCII_OP.match(masked, i))


def _token(masked: str, start: int, end: int) -> tuple[int, int]:
    """``masked[start:end]`` grown over the formula characters around it (no spaces)."""
    while start > 0 and _formula_char(masked, start - 1):
        start -= 1
    while end < len(masked) and _formula_char(masked, end):
        end += 1
    return start, end


def _formula_extent(masked: str, start: int, end: int) -> tuple[int, int]:
    """Grow a formula operator's match over the tokens around it (same line, no prose words)."""

    def part(i: int) -> bool:
        return _formula_char(masked, i)

    def token_start(i: int) -> int:
        return _token(masked, i, i)[0]

    def token_end(j: int) -> int:
        return _token(masked, j, j)[1]

    i, j = token_start(start), token_end(end)
    while True:  # extend left over " + ", " n·β"-like tokens, not over prose
        k = i
        while k > 0 and masked[k - 1] == " ":
            k -= 1
        if k == i or k == 0 or not part(k - 1):
            break
        left = token_start(k)
        if _PROSE_WORD.fullmatch(masked[left:k].strip("()")):
            break
        i = left
    while True:
        k = j
        while k < len(masked) and masked[k] == " ":
            k += 1
        if k == j or k >= len(masked) or not part(k):
            break
        right = token_end(k)
        if _PROSE_WORD.fullmatch(masked[k:right].strip("()")):
            break
        j = right
    while j > i and masked[j - 1] in ".,;:":
        j -= 1
    return i, j
