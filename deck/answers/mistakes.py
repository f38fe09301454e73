"""Named mistakes: recognising a classic wrong answer and saying which one it is.

Provides :class:`Mistake` (what the verdict names), :class:`Attempt` (a wrong answer as the
detectors see it), the detector kinds (:class:`FactorDetector`: the answer times a number;
:class:`TransformDetector`: a value or formula computed from the attempt; :class:`OptionDetector`:
a choice card's option), :func:`card_detectors` (the ``mistakes:`` a card declares),
:data:`UNIT_DETECTORS` (the engine's own unit slips: decimal vs binary prefixes, bits vs bytes,
a prefix off by 1000) and :func:`detect`, which tries the card's mistakes, then the detectors
an application registered (:meth:`deck.cards.registry.Registry.add_detector`), then the unit slips.

The engine knows units, not the subject: "the all-reduce volume given for a reduce-scatter"
is a detector the application registers and scopes with the card's tags or executable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from deck import units
from deck.cards.model import Card, CardType, MistakeKind, MistakeSpec

if TYPE_CHECKING:
    from deck.answers.checking import Solution
    from deck.cards.instances import Instance
    from deck.formula import Expr
    from deck.formula.equivalence import Equivalence

__all__ = [
    "UNIT_DETECTORS",
    "Attempt",
    "Detector",
    "FactorDetector",
    "Mistake",
    "OptionDetector",
    "TransformDetector",
    "card_detectors",
    "detect",
]


@dataclass(frozen=True)
class Mistake:
    """A recognised wrong answer: its id, what to tell the learner, and what kind it is."""

    id: str
    message: str
    kind: MistakeKind = MistakeKind.CONCEPT
    tag: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "message": self.message}


@dataclass(frozen=True)
class Attempt:
    """A wrong answer, read: what the detectors compare with the card's answer.

    ``candidates`` are the numeric readings in base units (two for a bare ``G``), ``unit``
    the unit as written (``""`` when none); ``expr`` and ``equivalence`` are set for formula
    cards, ``picked`` (0-based, card order) for choice cards.
    """

    card: Card
    instance: Instance
    solution: Solution
    given: str
    candidates: tuple[float, ...] = ()
    unit: str = ""
    expr: Expr | None = None
    equivalence: Equivalence | None = None
    picked: frozenset[int] = frozenset()

    @property
    def dim(self) -> units.Dim | None:
        return self.solution.dim

    def matches(self, value: float) -> bool:
        """Whether a numeric reading equals ``value`` within the card's tolerance."""
        answer = self.card.answer
        if answer is None:
            return False
        return any(answer.tolerance.accepts(c, value) for c in self.candidates)

    def is_multiple(self, factor: Fraction) -> bool:
        """Whether the answer given is ``factor`` times the correct one."""
        if self.equivalence is not None:
            return self.equivalence.factor == factor
        expected = self.solution.value
        return bool(expected) and self.matches(float(factor) * expected)  # type: ignore[operator]

    def is_formula(self, expr: Expr) -> bool:
        """Whether the formula given is ``expr`` (the same function of the card's variables)."""
        if self.expr is None:
            return False
        from deck.formula import FormulaError
        from deck.formula.equivalence import equivalent

        try:
            return equivalent(expr, self.expr, self.card.variables, seed=self.instance.seed).equal
        except FormulaError:
            return False


class Detector(Protocol):
    """Recognises one mistake; returns it, or None when the attempt is not that mistake."""

    id: str

    def detect(self, attempt: Attempt) -> Mistake | None: ...


Message = str | Callable[[Attempt], str]
Applies = Callable[[Attempt], bool]


def _always(attempt: Attempt) -> bool:
    return True


def _text(message: Message, attempt: Attempt) -> str:
    return message(attempt) if callable(message) else message


@dataclass(frozen=True)
class FactorDetector:
    """The answer given is one of ``factors`` times the right one (×2, ×½, ×8)."""

    id: str
    message: Message
    factors: tuple[Fraction, ...]
    applies: Applies = _always
    kind: MistakeKind = MistakeKind.CONCEPT
    tag: str = ""

    def detect(self, attempt: Attempt) -> Mistake | None:
        if not self.applies(attempt):
            return None
        if any(attempt.is_multiple(f) for f in self.factors):
            return Mistake(self.id, _text(self.message, attempt), self.kind, self.tag)
        return None


@dataclass(frozen=True)
class TransformDetector:
    """The answer given is what ``transform`` computes from the attempt: a number (numeric
    cards, base units) or a formula (formula cards); None when it does not apply."""

    id: str
    message: Message
    transform: Callable[[Attempt], float | Expr | None]
    applies: Applies = _always
    kind: MistakeKind = MistakeKind.CONCEPT
    tag: str = ""

    def detect(self, attempt: Attempt) -> Mistake | None:
        if not self.applies(attempt):
            return None
        target = self.transform(attempt)
        if target is None:
            return None
        hit = (
            attempt.matches(float(target))
            if isinstance(target, int | float)
            else attempt.is_formula(target)
        )
        return Mistake(self.id, _text(self.message, attempt), self.kind, self.tag) if hit else None


@dataclass(frozen=True)
class OptionDetector:
    """A choice card's wrong option, picked."""

    id: str
    message: Message
    option: int
    kind: MistakeKind = MistakeKind.CONCEPT
    tag: str = ""

    def detect(self, attempt: Attempt) -> Mistake | None:
        if self.option in attempt.picked:
            return Mistake(self.id, _text(self.message, attempt), self.kind, self.tag)
        return None


# ----------------------------------------------------------------------------- card-declared


def _declared_transform(spec: MistakeSpec) -> Callable[[Attempt], float | Expr | None]:
    """The value or formula a card's ``formula:`` mistake stands for in one attempt."""
    from deck.formula import FormulaError, evaluate, parse

    def transform(attempt: Attempt) -> float | Expr | None:
        assert spec.formula is not None
        card = attempt.card
        if card.type is CardType.FORMULA:
            from deck.formula.equivalence import substitute

            assert card.answer is not None and card.answer.formula is not None
            return substitute(parse(spec.formula), {"answer": parse(card.answer.formula)})
        if attempt.solution.value is None:
            return None
        env = {k: v for k, v in attempt.instance.values.items() if isinstance(v, int | float)}
        try:
            return evaluate(spec.formula, {**env, "answer": attempt.solution.value})
        except FormulaError:
            return None  # no value for this instance (a division by zero): not this mistake

    return transform


def _rendered(message: str) -> Callable[[Attempt], str]:
    """A card's message with its spans and placeholders filled for the attempt's instance."""

    def text(attempt: Attempt) -> str:
        from deck.cards.instances import render_text

        return render_text(message, attempt.instance)

    return text


def card_detectors(card: Card) -> list[Detector]:
    """Detectors for the ``mistakes:`` ``card`` declares, in the card's order."""
    out: list[Detector] = []
    for spec in card.mistakes:
        message = _rendered(spec.message)
        if spec.option is not None:
            out.append(OptionDetector(spec.id, message, spec.option, spec.kind, spec.tag))
        elif spec.factor is not None:
            factor = Fraction(spec.factor).limit_denominator(10**9)
            out.append(FactorDetector(spec.id, message, (factor,), kind=spec.kind, tag=spec.tag))
        elif spec.formula is not None:
            out.append(
                TransformDetector(
                    spec.id, message, _declared_transform(spec), kind=spec.kind, tag=spec.tag
                )
            )
    return out


# ----------------------------------------------------------------------------- unit slips

_PREFIXES = "KMGT"
_BYTE_LIKE = (units.Dim.BYTES, units.Dim.RATE)


def _numeric(dims: Sequence[units.Dim]) -> Applies:
    def applies(attempt: Attempt) -> bool:
        return attempt.expr is None and attempt.dim in dims and bool(attempt.candidates)

    return applies


@dataclass(frozen=True)
class _DecimalBinary:
    """The decimal and binary readings mixed up: GB for GiB (7.4% apart at G), GB/s for GiB/s,
    and, where a card insists on one family, the right amount written in the other one or
    with a bare ``G`` (the study notes' "4 G")."""

    id: str
    dim: units.Dim
    kind: MistakeKind = MistakeKind.UNITS

    def detect(self, attempt: Attempt) -> Mistake | None:
        expected = attempt.solution.value
        answer = attempt.card.answer
        if attempt.expr is not None or attempt.dim is not self.dim or not expected or not answer:
            return None
        want = answer.unit if units.is_unit(answer.unit) else ""
        if answer.strict_unit and want and attempt.matches(expected):
            return self._strict(attempt, expected, want)
        twin = _twin(attempt.unit)
        if twin is not None:
            written, other = units.lookup_unit(attempt.unit), units.lookup_unit(twin)
            if attempt.matches(expected * written.factor / other.factor):
                prefix = other.symbol[0]
                return Mistake(self.id, self._twin_message(attempt, twin, prefix), self.kind)
        # Only the prefix the typed unit (or, with none typed, the question's unit) uses can
        # be read both ways: nobody works a GB answer out through KiB or TiB, so 4.1 GB for
        # 4 GB is a near miss, not "the KiB figure".
        prefix = _prefix_of(attempt.unit) or _prefix_of(want)
        if prefix is None:
            return None
        power = _PREFIXES.index(prefix) + 1
        for direction in (1, -1):
            if attempt.matches(expected * 1.024 ** (power * direction)):
                return Mistake(self.id, self._message(attempt, prefix, want), self.kind)
        return None

    def _twin_message(self, attempt: Attempt, twin: str, prefix: str) -> str:
        power = " KMGT".index(prefix)
        rate = "/s" if self.dim is units.Dim.RATE else ""
        return (
            f"{attempt.given} would be right in {twin}: 1 {prefix}B{rate} is 10^{3 * power} "
            f"bytes{rate}, 1 {prefix}iB{rate} is 2^{10 * power} ({(1.024**power - 1) * 100:.1f}% "
            "apart)."
        )

    def _strict(self, attempt: Attempt, expected: float, want: str) -> Mistake:
        """The right amount, but not in the unit family the card asks for."""
        binary_wanted = "i" in units.lookup_unit(want).symbol
        written = attempt.unit
        answer = attempt.card.answer
        assert answer is not None
        if len(attempt.candidates) > 1:  # a bare prefix: which reading was right?
            decimal_right = answer.tolerance.accepts(attempt.candidates[0], expected)
            if decimal_right == binary_wanted:
                prefix = written.upper()
                return Mistake(self.id, self._message(attempt, prefix, want, bare=True), self.kind)
            return Mistake(
                "bare-prefix",
                f"'{written}' alone does not say {written.upper()}B or {written.upper()}iB; "
                f"this question asks for {want}: write the unit.",
                self.kind,
            )
        symbol = units.lookup_unit(written).symbol if units.is_unit(written) else want
        prefix = next((p for p in _PREFIXES if symbol.startswith(p)), want[0])
        return Mistake(self.id, self._message(attempt, prefix, want), self.kind)

    def _message(self, attempt: Attempt, prefix: str, want: str, *, bare: bool = False) -> str:
        power = " KMGT".index(prefix) if prefix in _PREFIXES else 3
        gap = f"{(1.024**power - 1) * 100:.1f}%"
        rate = "/s" if self.dim is units.Dim.RATE else ""
        dec, binary = f"{prefix}B{rate}", f"{prefix}iB{rate}"
        head = "That mixes decimal and binary units"
        if want:
            binary_wanted = "i" in units.lookup_unit(want).symbol
            head = f"That is the {dec if binary_wanted else binary} figure, and the question asks for {want}"
            if bare:
                reading = dec if binary_wanted else binary
                head = (
                    f"{attempt.given} read as {reading} is the "
                    f"{'decimal' if binary_wanted else 'binary'} figure (the study "
                    f'notes\' "4 G" slip), and the question asks for {want}'
                )
        return (
            f"{head}: 1 {dec} is 10^{3 * power} bytes{rate}, 1 {binary} is 2^{10 * power} — "
            f"{gap} apart."
        )


def _prefix_of(symbol: str | None) -> str | None:
    """The decimal/binary prefix (K, M, G, T) of a byte or rate unit, or of a bare prefix."""
    if not symbol:
        return None
    if symbol.strip().upper() in tuple(_PREFIXES):
        return symbol.strip().upper()
    if not units.is_unit(symbol):
        return None
    unit = units.lookup_unit(symbol)
    if unit.dim not in _BYTE_LIKE or "B" not in unit.symbol:
        return None
    return unit.symbol[0] if unit.symbol[:1] in _PREFIXES else None


def _twin(symbol: str) -> str | None:
    """The other family's unit of a prefixed byte or rate unit: GB ↔ GiB, MB/s ↔ MiB/s."""
    if not symbol or not units.is_unit(symbol):
        return None
    canonical = units.lookup_unit(symbol).symbol
    if canonical[:1] not in _PREFIXES or "B" not in canonical:  # Gb (bits) has no twin
        return None
    twin = canonical.replace("iB", "B", 1) if "iB" in canonical else canonical.replace("B", "iB", 1)
    return twin if units.is_unit(twin) else None


UNIT_DETECTORS: tuple[Detector, ...] = (
    _DecimalBinary("gb-vs-gib", units.Dim.BYTES),
    _DecimalBinary("decimal-vs-binary-bandwidth", units.Dim.RATE),
    FactorDetector(
        "bits-vs-bytes",
        "Off by 8×: bits and bytes mixed up (1 byte = 8 bits; Gb/s is gigabits, GB/s gigabytes).",
        (Fraction(8), Fraction(1, 8)),
        _numeric(_BYTE_LIKE),
        MistakeKind.UNITS,
    ),
    FactorDetector(
        "unit-prefix",
        "The digits are right and the unit prefix is not: off by a factor of 1000 (or 1024) — "
        "check MB vs GB, ms vs µs.",
        tuple(
            Fraction(base) ** (k * sign)
            for base in (1000, 1024)
            for k in (1, 2, 3)
            for sign in (1, -1)
        ),
        _numeric((units.Dim.BYTES, units.Dim.RATE, units.Dim.SECONDS)),
        MistakeKind.UNITS,
    ),
)


def detect(attempt: Attempt, registered: Iterable[Detector] = ()) -> Mistake | None:
    """The first mistake that explains ``attempt``: the card's own, then ``registered``
    (the application's), then the engine's unit slips; None when none does."""
    for detector in (*card_detectors(attempt.card), *registered, *UNIT_DETECTORS):
        found = detector.detect(attempt)
        if found is not None:
            return found
    return None
