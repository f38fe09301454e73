"""Inline spans in card text: numbers that come from code, and figures that code checks.

Every number a card shows is either rendered from a computed value or written by the
author and proven by ``quizcoll check``. Two kinds of span do that, inside any text field
(``front``, ``back``, ``hint``, option texts, claim texts):

``{=REF}`` and ``{=REF|FORMAT}``
    *Rendered*: the value of ``REF`` — a parameter, a named claim (a fact), a declared
    constant, ``answer`` or ``result.FIELD`` — formatted by ``FORMAT`` (``GiB``, ``GB/s``,
    ``µs``, ``%``, ``x``, ``count``, ``both``, ``pow2``, ``pow10``, ``sci``, ``short``, or a unit with a
    number of decimals, ``GiB:1``). A reference, never arithmetic: a typed ``*2`` would be an
    unproven number.

``{~LITERAL=EXPR}`` and ``{~LITERAL!=EXPR}``
    *Checked*: shows ``LITERAL`` as written (``3.73 GiB``, ``2(N−1)/N·S``, ``tree``,
    ``linearly``); ``check`` proves that it equals (``=``) or, for a distractor in a wrong
    option, differs from (``!=``) the value of ``EXPR``, an expression over the same names. A
    number is compared at the precision it is written with (``3.73`` means 3.725–3.735), a
    formula by equivalence, a word as text.

``{{`` and ``}}`` stay literal braces, and a brace group right after a letter, ``}``, ``^``,
``_`` or ``\\`` is LaTeX, as for ``{name}`` placeholders. This module only reads and formats;
it runs nothing.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from dataclasses import dataclass

from deck import units
from deck.base.errors import DeckError

NAME = r"[A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff]*"
_REF = re.compile(rf"^({NAME})(?:\.({NAME}))?$")
# A span: "{=" or "{~" up to the next "}", on one line, not right after LaTeX-ish characters.
SPAN = re.compile(r"(?<![A-Za-z}^_\\{])\{([=~])([^{}\n]*)\}")
MAX_SPAN_CHARS = 300


class SpanError(DeckError):
    """A span that cannot be read: bad syntax, an unknown format, an unreadable literal."""


class SpanKind(enum.Enum):
    RENDER = "render"  # {=REF|FORMAT}: the value, formatted
    CHECK = "check"  # {~LITERAL=EXPR}: the literal, proven equal (or different) by check


class FormatKind(enum.Enum):
    DEFAULT = "default"  # the natural form of the value's dimension
    UNIT = "unit"  # in a unit: GiB, GB/s, µs
    PERCENT = "percent"  # a ratio as a percentage: 0.074 → 7.4%
    TIMES = "times"  # a ratio as a multiplier: 1.5 → 1.5×
    COUNT = "count"  # a whole number with separators: 16,384
    BOTH = "both"  # bytes in GiB and GB: 13.04 GiB (14.00 GB)
    POW2 = "pow2"  # a power of two: 2³⁰
    POW10 = "pow10"  # a power of ten: 10⁹
    SCI = "sci"  # scientific notation: 8.4×10²² (FLOP counts)
    SHORT = "short"  # a count with a suffix: 7B, 1.5T, 8k
    LABEL = "label"  # a count followed by a word: 8 GPUs


@dataclass(frozen=True)
class Format:
    """How a rendered span shows its value."""

    kind: FormatKind = FormatKind.DEFAULT
    unit: str = ""
    decimals: int | None = None


@dataclass(frozen=True)
class Span:
    """One span of a text: where it stands and what it says."""

    kind: SpanKind
    start: int
    end: int
    ref: str = ""  # RENDER: the referenced name (``result.FIELD`` kept whole)
    fmt: Format = Format()
    literal: str = ""  # CHECK: the text shown
    expr: str = ""  # CHECK: what it must equal
    negated: bool = False  # CHECK with "!=": a distractor, proven different

    @property
    def shown_literal(self) -> str:
        return self.literal


# ----------------------------------------------------------------------------- reading


def find_spans(text: str) -> tuple[list[Span], list[tuple[int, str]]]:
    """The spans of ``text`` in order, and the (offset, message) of every malformed one."""
    if "{" not in text:
        return [], []
    spans, errors = _find_spans(text)
    return list(spans), list(errors)


@functools.lru_cache(maxsize=4096)  # a card's texts are read at every instance and check
def _find_spans(text: str) -> tuple[tuple[Span, ...], tuple[tuple[int, str], ...]]:
    masked = text.replace("{{", "\0\0").replace("}}", "\1\1")
    spans: list[Span] = []
    errors: list[tuple[int, str]] = []
    for m in SPAN.finditer(masked):
        try:
            spans.append(parse_span(m.group(1), m.group(2), m.start(), m.end()))
        except SpanError as exc:
            errors.append((m.start(), str(exc)))
    return tuple(spans), tuple(errors)


def parse_span(sigil: str, body: str, start: int = 0, end: int = 0) -> Span:
    """Read the inside of ``{=…}`` (``sigil`` ``=``) or ``{~…}`` (``sigil`` ``~``)."""
    if len(body) > MAX_SPAN_CHARS:
        raise SpanError(f"a span of {len(body)} characters is too long (at most {MAX_SPAN_CHARS})")
    if sigil == "=":
        ref, _, fmt_text = body.partition("|")
        ref = ref.strip()
        if not _REF.match(ref):
            raise SpanError(
                f"{{={body}}}: a rendered span names one value (a parameter, fact, constant, "
                "answer or result.FIELD); to show arithmetic, write the figure and check it: "
                "{~3.73 GiB=EXPR}"
            )
        return Span(SpanKind.RENDER, start, end, ref=ref, fmt=parse_format(fmt_text.strip()))
    m = re.fullmatch(r"(.*?)\s*(!=|=)\s*([^=]*)", body, flags=re.S)
    if m is None or not m.group(1).strip() or not m.group(3).strip():
        raise SpanError(
            f"{{~{body}}}: a checked span is {{~FIGURE=EXPR}} (or != for a wrong figure)"
        )
    return Span(
        SpanKind.CHECK,
        start,
        end,
        literal=m.group(1).strip(),
        expr=m.group(3).strip(),
        negated=m.group(2) == "!=",
    )


_SPECIAL_FORMATS = {
    "%": FormatKind.PERCENT,
    "percent": FormatKind.PERCENT,
    "x": FormatKind.TIMES,
    "×": FormatKind.TIMES,
    "times": FormatKind.TIMES,
    "count": FormatKind.COUNT,
    "both": FormatKind.BOTH,
    "pow2": FormatKind.POW2,
    "pow10": FormatKind.POW10,
    "sci": FormatKind.SCI,
    "short": FormatKind.SHORT,
}


def parse_format(text: str) -> Format:
    """``GiB``, ``GiB:1``, ``%``, ``%:1``, ``x``, ``count``, ``both``, ``pow2``, ``pow10``, ``sci``,
    ``short`` or a label word (``GPUs``); empty for the value's natural form."""
    if not text:
        return Format()
    head, _, digits = text.partition(":")
    head = head.strip()
    decimals: int | None = None
    if digits:
        if not digits.strip().isdigit() or int(digits) > 9:
            raise SpanError(f"format {text!r}: decimals after ':' must be a digit 0-9")
        decimals = int(digits)
    if head in _SPECIAL_FORMATS:
        return Format(_SPECIAL_FORMATS[head], "", decimals)
    if units.is_unit(head):
        return Format(FormatKind.UNIT, head, decimals)  # shown as written: µs, not us
    if head in units.LABELS:
        return Format(FormatKind.LABEL, head, decimals)
    known = [*sorted(_SPECIAL_FORMATS), "a unit (GiB, GB/s, µs …)", "a label (GPUs, tokens …)"]
    raise SpanError(f"unknown format {head!r}; use {', '.join(known)}")


# ----------------------------------------------------------------------------- formatting

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_SUBSCRIPT_BACK = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _decimals(x: float, decimals: int | None, significant: int = 3) -> str:
    if decimals is not None:
        return f"{x:,.{decimals}f}"
    return units.format_number(x, significant)


def format_value(value: object, dim: units.Dim | None, fmt: Format = Format()) -> str:
    """``value`` (base units of ``dim``) as a span shows it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpanError(f"cannot show {value!r} as a number")
    x = float(value)
    if not math.isfinite(x):
        raise SpanError(f"{x} is not a finite number")
    kind = fmt.kind
    if kind is FormatKind.UNIT:
        unit = units.lookup_unit(fmt.unit)
        if dim is not None and dim not in (unit.dim, units.Dim.COUNT):
            raise SpanError(f"a value in {dim.value} cannot be shown in {fmt.unit}")
        return f"{_decimals(x / unit.factor, fmt.decimals)} {fmt.unit}".replace(" %", "%")
    if kind is FormatKind.PERCENT:
        return f"{_decimals(x * 100, fmt.decimals)}%"
    if kind is FormatKind.TIMES:
        return f"{_decimals(x, fmt.decimals)}×"
    if kind is FormatKind.COUNT:
        return f"{x:,.{fmt.decimals or 0}f}"
    if kind is FormatKind.LABEL:
        if fmt.decimals is not None:  # the decimals asked for, not format_count's rounding
            return f"{_decimals(x, fmt.decimals)} {fmt.unit}"
        return units.format_count(float(_decimals(x, fmt.decimals).replace(",", "")), fmt.unit)
    if kind is FormatKind.BOTH:
        return units.format_bytes_both(x, digits=2 if fmt.decimals is None else fmt.decimals)
    if kind in (FormatKind.POW2, FormatKind.POW10):
        base = 2 if kind is FormatKind.POW2 else 10
        exponent = round(math.log(abs(x), base)) if x else 0
        if x <= 0 or base**exponent != x:
            raise SpanError(f"{x:g} is not a power of {base}")
        return f"{base}{str(exponent).translate(_SUPERSCRIPT)}"
    if kind is FormatKind.SCI:
        return _scientific(x, 2 if fmt.decimals is None else fmt.decimals)
    if kind is FormatKind.SHORT:
        for suffix, factor in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
            if abs(x) >= factor:
                return f"{_decimals(x / factor, fmt.decimals)}{suffix}"
        return _decimals(x, fmt.decimals)
    if fmt.decimals is not None:
        return units.format_value(round(x, fmt.decimals), dim)
    return units.format_value(x, dim)


def _scientific(x: float, decimals: int) -> str:
    """``8.4e22`` → ``8.40×10²²`` (what :func:`parse_number_literal` reads back)."""
    if x == 0:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = round(x / 10.0**exponent, decimals)
    if abs(mantissa) >= 10:  # 9.996 rounds up to 10.00: carry into the exponent
        exponent += 1
        mantissa = round(x / 10.0**exponent, decimals)
    return f"{mantissa:.{decimals}f}×10{str(exponent).translate(_SUPERSCRIPT)}"


# ----------------------------------------------------------------------------- literals


@dataclass(frozen=True)
class NumberLiteral:
    """A figure as an author wrote it: its value (base units) and the rounding it implies."""

    value: float
    tolerance: float  # absolute, base units: how far the truth may be from what is written
    dim: units.Dim | None
    text: str

    def matches(self, actual: float) -> bool:
        return abs(actual - self.value) <= self.tolerance + 1e-9 * abs(self.value)


_MANTISSA = re.compile(r"(?P<sign>[-−+])?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?")
_POWER = re.compile(
    r"^(?P<base>\d+)(?:\^|\*\*)?(?P<exp>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|(?<=[\^*])[-−]?\d+)\s*(?P<rest>.*)$"
)
_APPROX = re.compile(r"^(?:≈|~|about\s+|around\s+|roughly\s+|≲|≳)\s*")


def _half_unit(integer: str, fraction: str | None, value: float) -> float:
    """Half a unit of the last written digit; trailing zeros of a whole number are taken as
    rounding only up to 1% of the value (``370`` may stand for 370.8, ``100`` is 100)."""
    if fraction:
        return 0.5 * 10.0 ** -len(fraction)
    digits = integer.replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros == 0 or digits == "0":
        return 0.5
    return max(0.5, min(0.5 * 10.0**zeros, 0.01 * abs(value)))


def parse_number_literal(text: str, dim: units.Dim | None = None) -> NumberLiteral:
    """Read a written figure: ``3.73 GiB``, ``16,384``, ``1.5×``, ``7.4%``, ``2³⁰ B``, ``70B``.

    ``dim`` is the dimension of the value it is compared with: a bare ``B`` suffix is a
    billion for a count and bytes for a size.
    """
    original = text
    s = _APPROX.sub("", text.strip())
    times = False
    if s[:1] in ("×", "x") and s[1:2].strip() and (s[1:2].isdigit() or s[1:2] == " "):
        times, s = True, s[1:].strip()
    power = _POWER.match(s)
    if power and (power.group("exp")[0] in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻" or "^" in s or "**" in s):
        exponent = int(power.group("exp").translate(_SUBSCRIPT_BACK).replace("−", "-"))
        if abs(exponent) > 400:
            raise SpanError(f"{original!r}: exponent out of range")
        value = float(int(power.group("base")) ** exponent) if exponent >= 0 else 0.0
        if exponent < 0:
            value = float(power.group("base")) ** exponent
        spaced = s[power.end("exp") : power.end("exp") + 1].isspace()
        rest = power.group("rest").strip()
        return _scaled(value, 1e-12 * abs(value), rest, dim, original, attached=not spaced)
    m = _MANTISSA.match(s)
    if m is None:
        raise SpanError(f"{original!r} is not a figure (a number with an optional unit)")
    integer, fraction = m.group("int"), m.group("frac")
    value = float(integer.replace(",", "") + ("." + fraction if fraction else ""))
    if m.group("sign") in ("-", "−"):
        value = -value
    spaced = s[m.end() : m.end() + 1].isspace()
    rest = s[m.end() :].strip()
    exp = re.match(r"^(?:[eE]([-+]?\d{1,3})|[×x]\s*10\^?([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|[-−]?\d{1,3}))\s*", rest)
    scale = 1.0
    if exp:
        e = exp.group(1) or exp.group(2).translate(_SUBSCRIPT_BACK).replace("−", "-")
        scale = 10.0 ** int(e)
        rest = rest[exp.end() :]
    tolerance = _half_unit(integer, fraction, value) * scale
    value *= scale
    if times or rest in ("×", "x"):
        return NumberLiteral(value, tolerance, units.Dim.RATIO, original)
    return _scaled(value, tolerance, rest, dim, original, attached=not spaced and not exp)


def _scaled(
    value: float,
    tolerance: float,
    rest: str,
    dim: units.Dim | None,
    original: str,
    attached: bool = True,
) -> NumberLiteral:
    """Apply the unit or suffix after a number. A suffix written against the number is a
    count suffix (``70B`` parameters); after a space ``B`` is bytes (``8 B``)."""
    rest = rest.strip()
    if not rest:
        return NumberLiteral(value, tolerance, None, original)
    if rest in ("%", "percent"):
        return NumberLiteral(value / 100, tolerance / 100, units.Dim.RATIO, original)
    if rest in ("×", "x", "times"):
        return NumberLiteral(value, tolerance, units.Dim.RATIO, original)
    if dim in (units.Dim.COUNT, units.Dim.RATIO, None):
        word = rest.split()[0]
        if word in units.COUNT_SUFFIXES and (attached or not units.is_unit(word)):
            f = units.COUNT_SUFFIXES[word]
            return NumberLiteral(value * f, tolerance * f, units.Dim.COUNT, original)
    head = rest.split()[0] if rest.split() else rest
    if head in ("G", "M", "K", "T", "g", "m", "k", "t") and dim in (
        units.Dim.BYTES,
        units.Dim.RATE,
    ):
        raise SpanError(
            f"{original!r}: a bare {head} is ambiguous; write {head.upper()}B or {head.upper()}iB"
        )
    for candidate in (rest, head):
        if units.is_unit(candidate):
            unit = units.lookup_unit(candidate)
            return NumberLiteral(value * unit.factor, tolerance * unit.factor, unit.dim, original)
    # A label word (8 GPUs, 4,096 tokens, 2 steps): the number is a count.
    if re.match(r"^[A-Za-z\u0370-\u03ff][\w/\-\u0370-\u03ff]*(?:\s+\S+)*$", rest):
        return NumberLiteral(value, tolerance, units.Dim.COUNT, original)
    raise SpanError(f"{original!r}: unknown unit {rest!r}")
