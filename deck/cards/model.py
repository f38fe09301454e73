"""The card model: small frozen dataclasses for cards, their parameters, answers and claims.

These are the validated form of a card file; :mod:`deck.cards.loader` builds them and
reports every problem it finds on the way. Nothing here runs code.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deck.base.textpos import TextOrigin
from deck.cards.rating import Rating  # re-exported: the card model's grades

__all__ = [
    "AnswerSpec",
    "Card",
    "CardType",
    "Claim",
    "Collection",
    "Computation",
    "KeyPoint",
    "Location",
    "MistakeKind",
    "MistakeSpec",
    "ParamSpec",
    "Rating",
    "Scaling",
    "Tolerance",
    "Variable",
]


class CardType(enum.Enum):
    BASIC = "basic"  # self-graded: reveal the back, rate yourself
    CHOICE = "choice"  # one or several correct options
    NUMERIC = "numeric"  # a number with a unit, within a tolerance
    FORMULA = "formula"  # an expression in the card's variables


@dataclass(frozen=True)
class Location:
    """Where something was written: file path and 1-based line and column."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}" if self.line else self.path


@dataclass(frozen=True)
class ParamSpec:
    """How to draw one parameter of a card instance.

    Exactly one of ``choices``, ``range`` or ``formula`` is set. Values carrying a
    ``unit`` of a physical dimension (``MiB``, ``GB/s``) are held in base units
    (bytes, bytes/s, seconds) once drawn; a label unit (``GPUs``, ``tokens``) only
    affects how the value is shown.
    """

    name: str
    choices: tuple[Any, ...] | None = None
    range: tuple[float, float] | None = None
    step: float | None = None
    log: bool = False  # draw log-uniformly (ranges spanning orders of magnitude)
    pow2: bool = False  # only powers of two within the range
    integer: bool = True  # ranges with whole-number bounds draw whole numbers
    formula: str | None = None  # derived from earlier parameters
    unit: str = ""
    location: Location | None = None
    # How a text choice reads in a question (``h100-80gb`` → ``H100 80GB``): the registry's
    # labels, attached when the card is loaded; a choice without one shows as written.
    labels: tuple[tuple[str, str], ...] = ()
    # What the parameter stands for in a learner's own setup (``link_latency``): a session
    # given a value for that role (:class:`deck.cards.instances.Given`) draws it instead.
    role: str | None = None

    def label(self, choice: str) -> str:
        return next((text for value, text in self.labels if value == choice), choice)


@dataclass(frozen=True)
class Tolerance:
    """Accept a value v for the exact x when |v − x| ≤ max(abs, rel·|x|)."""

    rel: float = 0.01
    abs: float = 0.0

    def accepts(self, given: float, exact: float) -> bool:
        return abs(given - exact) <= max(self.abs, self.rel * abs(exact)) + 1e-12 * abs(exact)

    def describe(self) -> str:
        parts = []
        if self.rel:
            parts.append(f"±{self.rel * 100:g}%")
        if self.abs:
            parts.append(f"±{self.abs:g}")
        return " or ".join(parts) if parts else "exact"


@dataclass(frozen=True)
class Computation:
    """A call to a registered executable: ``run`` name, arguments and the result field.

    Argument values may be literals, ``"{param}"`` (the parameter's drawn value),
    a string with placeholders, or ``"= expression"`` over the parameters.
    """

    run: str
    args: tuple[tuple[str, Any], ...] = ()
    field: str = ""
    location: Location | None = None

    @property
    def args_dict(self) -> dict[str, Any]:
        return dict(self.args)


@dataclass(frozen=True)
class AnswerSpec:
    """How a numeric or formula card's exact answer is obtained and judged.

    Numeric cards: ``computation`` (an executable) or ``value`` (a fixed number in
    base units) or ``expr`` (an expression over the parameters). Formula cards:
    ``formula``, checked against what the user types at sample points of ``variables``.
    """

    computation: Computation | None = None
    value: float | None = None
    expr: str | None = None
    formula: str | None = None
    unit: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
    strict_unit: bool = False  # the answer must name a unit of the same family (GB vs GiB)
    location: Location | None = None
    # The independent closed form (a formula over the parameters and constants, or a
    # quantity) that ``check`` holds the computed answer to: two derivations of one number.
    expect: str | None = None
    expect_tolerance: Tolerance | None = None


@dataclass(frozen=True)
class Variable:
    """A formula card variable and the domain its sample points come from."""

    name: str
    low: float = 1.0
    high: float = 100.0
    integer: bool = False
    meaning: str = ""


class Scaling(enum.Enum):
    """How a result grows with one argument (a scaling fact's value)."""

    CONSTANT = "constant"
    LOGARITHMIC = "logarithmic"
    LINEAR = "linear"
    QUADRATIC = "quadratic"
    CUBIC = "cubic"


@dataclass(frozen=True)
class Claim:
    """A quantitative statement ``quizcoll check`` proves by running an executable.

    For every point of the sweep ``where`` (a cartesian product of parameter specs),
    the executable's ``field`` must equal ``expect`` (a formula over the sweep
    variables, or a quantity such as ``"3.73 GiB"``) within ``tolerance``.

    A claim with a ``name`` is a *fact* that card text can show (``{=name}``) or check a
    figure against (``{~3.73 GiB=name}``). Without ``where`` it is evaluated at each
    instance of the card (its arguments may use the card's parameters); with ``where`` its
    value is its ``expect`` formula, proven over the sweep. Instead of ``run`` a fact may
    derive its value from others with ``expr`` (still held to ``expect``), and with
    ``vary`` it measures how the field grows with one argument (``expect: linear``).
    """

    text: str
    computation: Computation | None
    expect: str
    where: tuple[ParamSpec, ...] = ()
    tolerance: Tolerance = field(default_factory=lambda: Tolerance(rel=1e-9))
    location: Location | None = None
    name: str = ""
    expr: str | None = None
    vary: str = ""

    @property
    def is_sweep(self) -> bool:
        return bool(self.where)


class MistakeKind(enum.Enum):
    """What kind of slip a named mistake is; it decides the suggested rating."""

    UNITS = "units"  # the right quantity in the wrong unit or family: suggests Hard
    CONCEPT = "concept"  # a wrong idea (a missing term, the wrong collective): suggests Again

    @property
    def rating(self) -> Rating:
        return Rating.HARD if self is MistakeKind.UNITS else Rating.AGAIN


@dataclass(frozen=True)
class MistakeSpec:
    """A classic wrong answer a card names, and what to tell whoever gives it.

    Exactly one of: ``factor`` (the answer times this number), ``formula`` (an expression in
    the card's parameters or variables, which may use ``answer`` for the correct one:
    ``answer * N/(N-1)``) or ``option`` (a choice card's option, 0-based).
    """

    id: str
    message: str
    factor: float | None = None
    formula: str | None = None
    option: int | None = None
    kind: MistakeKind = MistakeKind.CONCEPT
    tag: str = ""
    location: Location | None = None


@dataclass(frozen=True)
class KeyPoint:
    """One thing a good free-text answer says (``key_points``) or that earns extra credit
    (``bonus_points``): its statement and the terms any one of which shows it was said
    (matched as :mod:`deck.cards.terms` describes)."""

    point: str
    terms: tuple[str, ...]
    location: Location | None = None


@dataclass(frozen=True)
class Card:
    """One validated card. ``id`` is its identity for review history."""

    id: str
    type: CardType
    deck: str
    front: str
    back: str = ""
    tags: tuple[str, ...] = ()
    params: tuple[ParamSpec, ...] = ()
    answer: AnswerSpec | None = None
    options: tuple[str, ...] = ()
    correct: tuple[int, ...] = ()
    shuffle: bool = True
    variables: tuple[Variable, ...] = ()
    verify: tuple[Claim, ...] = ()
    hint: str = ""
    source: str = ""
    location: Location = field(default_factory=lambda: Location("<memory>"))
    mistakes: tuple[MistakeSpec, ...] = ()
    # Where each text field starts in its file ("front", "options[2]", "verify[1].claim").
    origins: Mapping[str, TextOrigin] = field(default_factory=dict, compare=False, repr=False)
    # "error": a number no span proves fails check; "warn": it is listed, check passes.
    unproven: str = "error"
    # What a realistic instance satisfies (deck.cards.constraints.Constraint): draws reject others.
    constraints: tuple[Any, ...] = ()
    # What an interviewer listens for in a typed explanation (any card type may have them).
    key_points: tuple[KeyPoint, ...] = ()
    bonus_points: tuple[KeyPoint, ...] = ()

    def facts(self) -> dict[str, Claim]:
        """The named claims, by name."""
        return {c.name: c for c in self.verify if c.name}

    def texts(self) -> list[tuple[str, str]]:
        """Every text field a learner sees, as (field, text)."""
        out = [("front", self.front), ("back", self.back), ("hint", self.hint)]
        out += [(f"options[{i}]", t) for i, t in enumerate(self.options)]
        out += [(f"verify[{i}].claim", c.text) for i, c in enumerate(self.verify) if c.text]
        out += [(f"mistakes[{i}].message", m.message) for i, m in enumerate(self.mistakes)]
        return [(f, t) for f, t in out if t]

    @property
    def parametric(self) -> bool:
        """True when each review draws a fresh instance."""
        return bool(self.params) or (self.type is CardType.CHOICE and self.shuffle)

    @property
    def computed(self) -> bool:
        return self.answer is not None and self.answer.computation is not None


@dataclass(frozen=True)
class Collection:
    """Every valid card of a load, in file order, and every problem found."""

    cards: tuple[Card, ...]
    problems: tuple[Any, ...] = ()  # deck.base.errors.Problem
    files: tuple[str, ...] = ()

    def by_id(self) -> dict[str, Card]:
        return {c.id: c for c in self.cards}

    def decks(self) -> list[str]:
        return sorted({c.deck for c in self.cards})
