"""The registry of executables: the only way a card reaches code.

An application registers named executables (``collectives.all_reduce``,
``memory.kv_cache`` ...) with their declared parameters (type and bounds) and the
result fields they offer. The card loader validates a card's ``run:`` name and its
arguments against these declarations before anything runs; the checker calls them
through :meth:`Registry.call`. A YAML file can name an executable, never import one.
"""

from __future__ import annotations

import difflib
import enum
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from deck import units
from deck.base.errors import DeckError
from deck.units import Dim


class Derivation(enum.Enum):
    """How one side of a proof obtains its value. Two sides share no formula when at least
    one of them is not a closed form: a simulation, an enumeration or a search of the
    executable, a real library's measurement, or a published figure (a cited constant)."""

    SIMULATED = "simulated"
    ENUMERATED = "enumerated"
    SEARCHED = "searched"
    MEASURED = "measured"
    PUBLISHED = "published"
    CLOSED_FORM = "closed form"


class ParamKind(enum.Enum):
    """What kind of value an executable parameter takes."""

    INT = "int"
    FLOAT = "float"
    STR = "str"
    BOOL = "bool"
    BYTES = "bytes"  # a size: a number of bytes or a string with a byte unit ("1GiB")
    RATE = "rate"  # a bandwidth: bytes/s or a string with a rate unit ("900GB/s")
    SECONDS = "seconds"  # a duration: seconds or a string with a time unit ("5us")


# What a result field measures; decides how answers are parsed and shown.
Dimension = Dim


_REQUIRED: Any = object()
RESULT_CACHE_SIZE = 8192  # remembered executable results (pure functions of their arguments)


@dataclass(frozen=True)
class Param:
    """A declared parameter of an executable.

    ``minimum``/``maximum`` bound numeric kinds (inclusive); ``choices`` restricts
    strings. ``default`` left unset makes the parameter required.
    """

    name: str
    kind: ParamKind
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def coerce(self, value: Any) -> Any:
        """Return ``value`` converted to this parameter's kind, or raise ``ArgumentError``."""
        kind = self.kind
        if value is None and self.default is None:
            return None  # an optional parameter left unset
        if isinstance(value, bool) and kind is not ParamKind.BOOL:
            raise ArgumentError(f"{self.name}: expected {kind.value}, got a boolean ({value})")
        try:
            if kind is ParamKind.INT:
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                if isinstance(value, str):
                    value = units.parse_count(value)
                    if isinstance(value, float) and value.is_integer():
                        value = int(value)
                if not isinstance(value, int):
                    raise ArgumentError(f"{self.name}: expected a whole number, got {value!r}")
            elif kind is ParamKind.FLOAT:
                if isinstance(value, str):
                    value = units.parse_count(value)
                if not isinstance(value, int | float):
                    raise ArgumentError(f"{self.name}: expected a number, got {value!r}")
                value = float(value)
            elif kind is ParamKind.BYTES:
                value = units.to_base(value, units.Dim.BYTES)
                if float(value).is_integer():
                    value = int(value)
            elif kind is ParamKind.RATE:
                value = float(units.to_base(value, units.Dim.RATE))
            elif kind is ParamKind.SECONDS:
                value = float(units.to_base(value, units.Dim.SECONDS))
            elif kind is ParamKind.BOOL:
                if not isinstance(value, bool):
                    raise ArgumentError(f"{self.name}: expected true or false, got {value!r}")
            elif kind is ParamKind.STR and not isinstance(value, str):
                raise ArgumentError(f"{self.name}: expected text, got {value!r}")
        except units.UnitError as exc:
            raise ArgumentError(f"{self.name}: {exc}") from None
        self.check_bounds(value)
        return value

    def check_bounds(self, value: Any) -> None:
        if self.choices is not None and value not in self.choices:
            hint = suggest(str(value), self.choices)
            raise ArgumentError(
                f"{self.name}: {value!r} is not one of {', '.join(self.choices)}{hint}"
            )
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise ArgumentError(f"{self.name}: {value} is not a finite number")
            if abs(value) > units.MAX_MAGNITUDE:  # also keeps the messages below printable
                size = (
                    f"a number of {len(str(abs(value)))} digits"
                    if isinstance(value, int)
                    else f"{value:.3g}"
                )
                raise ArgumentError(
                    f"{self.name}: {size} is out of range "
                    f"(numbers are limited to ±{units.MAX_TEXT_MAGNITUDE})"
                )
            if self.minimum is not None and value < self.minimum:
                raise ArgumentError(f"{self.name}: {value:g} is below the minimum {self.minimum:g}")
            if self.maximum is not None and value > self.maximum:
                raise ArgumentError(f"{self.name}: {value:g} is above the maximum {self.maximum:g}")


@dataclass(frozen=True)
class Field:
    """A result field an executable offers (what a card's ``answer.field`` may name)."""

    name: str
    dimension: Dimension
    help: str = ""


Result = Mapping[str, Any]
Explainer = Callable[[Mapping[str, Any], Result], str]


@dataclass(frozen=True)
class Executable:
    """A registered function with declared parameters and result fields.

    ``function`` is called with keyword arguments (already coerced) and returns a
    mapping holding at least every declared field. Extra keys (a trace, a breakdown)
    are allowed and passed through for richer displays. ``explain`` turns the
    arguments and result into a short Markdown worked solution.
    """

    name: str
    function: Callable[..., Result]
    params: tuple[Param, ...]
    fields: tuple[Field, ...]
    summary: str = ""
    explain: Explainer | None = None

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def field_(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def bind(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Coerce and bound-check ``args``; fill defaults; raise ``ArgumentError`` on any fault."""
        bound: dict[str, Any] = {}
        names = {p.name for p in self.params}
        for key in args:
            if key not in names:
                raise ArgumentError(
                    f"{key}: {self.name} takes no argument {key!r}{suggest(key, names)}"
                )
        for p in self.params:
            if p.name in args:
                bound[p.name] = p.coerce(args[p.name])
            elif p.required:
                raise ArgumentError(f"{p.name}: {self.name} needs this argument")
            else:
                bound[p.name] = p.default
        return bound


@dataclass(frozen=True)
class Constant:
    """A declared fact that is a definition or a published figure, with its source.

    Cards refer to constants by name (in spans and in ``expect`` formulas) instead of typing
    the figure: ``fp16_bytes``, ``h100_reported_bytes``. ``value`` is in base units of
    ``dimension`` (bytes, bytes/s, seconds, a count or a ratio); ``unit`` is how it is shown.

    Provenance: a constant is *cited* (``source`` names the paper, datasheet, file at a
    version or measurement; ``quote`` is the figure as that source prints it, and ``check``
    verifies that the quote prints ``value``) or *derived* (``derived`` names the code that
    computes it). A proof's ``expect`` may use cited constants only: a derived one would hold
    the code to itself. ``where`` is the ``PATH:LINE`` of its record in a data file.

    A cell of a published table (a row of NCCL's ``hwLatencies``) shares the table's quote;
    ``quote_index`` is its position among the numbers that quote lists, so ``check`` holds
    the cell to the number at its own place, not to any number of the row.
    """

    name: str
    value: float
    dimension: Dimension
    source: str
    unit: str = ""
    summary: str = ""
    quote: str = ""
    derived: str = ""
    where: str = ""
    quote_index: int | None = None

    @property
    def cited(self) -> bool:
        """True unless the constant is computed by the application's code."""
        return not self.derived


class ArgumentError(DeckError):
    """An argument that does not fit an executable's declaration."""


class UnknownExecutable(DeckError):
    """A ``run:`` name that nothing registered."""


class Registry:
    """Named executables, and the mistake detectors of the application's subject
    (:mod:`deck.answers.mistakes`). Applications fill it; the engine only reads it."""

    def __init__(
        self,
        executables: Iterable[Executable] = (),
        *,
        refusals: Callable[[], tuple[type[Exception], ...]] | None = None,
    ) -> None:
        # The exception types an application's libraries raise for inputs they refuse (its
        # calculators know nothing of this engine); call() reports them as ArgumentError.
        # A callable, resolved on the first refusal, so the libraries load only when used.
        self._refusals = refusals
        self._by_name: dict[str, Executable] = {}
        self._constants: dict[str, Constant] = {}
        self._results: OrderedDict[tuple[Any, ...], Result] = OrderedDict()
        self._terms: set[str] = set()
        self._labels: dict[str, str] = {}
        self._detectors: list[Any] = []  # deck.answers.mistakes.Detector (kept import-free here)
        self._derivations: dict[str, tuple[Derivation, str]] = {}
        for ex in executables:
            self.add(ex)

    def add_constant(self, constant: Constant) -> Constant:
        """Declare a constant; its name must be new and its value finite."""
        if constant.name in self._constants:
            raise ValueError(f"constant {constant.name!r} declared twice")
        if not math.isfinite(constant.value):
            raise ValueError(f"constant {constant.name!r} is not finite")
        if not constant.source.strip():
            raise ValueError(f"constant {constant.name!r} has no source")
        self._constants[constant.name] = constant
        return constant

    def constant(self, name: str) -> Constant | None:
        return self._constants.get(name)

    @property
    def constants(self) -> Mapping[str, Constant]:
        """A read-only view: every draw looks constants up, and there are a thousand."""
        return MappingProxyType(self._constants)

    def add_terms(self, *terms: str) -> None:
        """Words that start with a digit but name things, not quantities (``1F1B``, ``3D``)."""
        self._terms.update(terms)

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self._terms)

    def add_label(self, value: str, label: str) -> None:
        """How the text choice ``value`` reads in a card's question (``h100-80gb`` →
        ``H100 80GB``); the value itself stays what executables are given."""
        if not label.strip() or "{" in label or "}" in label:
            raise ValueError(f"label {label!r} of {value!r} must be plain, non-empty text")
        if self._labels.get(value, label) != label:
            raise ValueError(f"{value!r} is labelled twice: {self._labels[value]!r}, {label!r}")
        self._labels[value] = label

    def label(self, value: str) -> str:
        """The label of a text choice, or the choice itself when it has none."""
        return self._labels.get(value, value)

    def add_detector(self, detector: Any) -> Any:
        """Register a mistake detector (an object with ``id`` and ``detect(attempt)``)."""
        if any(d.id == detector.id for d in self._detectors):
            raise ValueError(f"mistake detector {detector.id!r} registered twice")
        self._detectors.append(detector)
        return detector

    @property
    def detectors(self) -> tuple[Any, ...]:
        """The registered mistake detectors, in registration order."""
        return tuple(self._detectors)

    def declare_derivation(self, name: str, how: Derivation, why: str) -> None:
        """How executable ``name`` computes its results (a closed form unless declared)."""
        if name not in self._by_name:
            raise ValueError(f"derivation of {name!r}: no such executable")
        if not why.strip():
            raise ValueError(f"derivation of {name!r}: say why")
        self._derivations[name] = (how, why)

    def derivation(self, name: str) -> tuple[Derivation, str]:
        """How executable ``name`` computes: ``(how, why)``; undeclared is a closed form."""
        return self._derivations.get(name, (Derivation.CLOSED_FORM, "not declared"))

    def add(self, executable: Executable) -> Executable:
        if executable.name in self._by_name:
            raise ValueError(f"executable {executable.name!r} registered twice")
        self._by_name[executable.name] = executable
        return executable

    def add_function(
        self,
        name: str,
        function: Callable[..., Result],
        *,
        params: Iterable[Param],
        fields: Iterable[Field],
        summary: str = "",
        explain: Explainer | None = None,
    ) -> Executable:
        """Register ``function`` under ``name``; the summary defaults to its docstring's first line."""
        return self.add(
            Executable(
                name=name,
                function=function,
                params=tuple(params),
                fields=tuple(fields),
                summary=summary or (function.__doc__ or "").strip().split("\n")[0],
                explain=explain,
            )
        )

    def register(
        self,
        name: str,
        *,
        params: Iterable[Param],
        fields: Iterable[Field],
        summary: str = "",
        explain: Explainer | None = None,
    ) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
        """Decorator form of :meth:`add`."""

        def deco(function: Callable[..., Result]) -> Callable[..., Result]:
            self.add_function(
                name, function, params=params, fields=fields, summary=summary, explain=explain
            )
            return function

        return deco

    def get(self, name: str) -> Executable:
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownExecutable(
                f"no executable named {name!r} is registered{suggest(name, self._by_name)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Executable]:
        return iter(sorted(self._by_name.values(), key=lambda e: e.name))

    def __len__(self) -> int:
        return len(self._by_name)

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def call(self, name: str, args: Mapping[str, Any]) -> Result:
        """Bind ``args`` and run the executable; check it returned its declared fields.

        Executables are pure functions of their arguments, so a call with the same bound
        arguments returns the remembered result (a collection's claims and cards ask the
        same questions many times over)."""
        ex = self.get(name)
        # Keyed on the arguments as given: a repeated call skips binding too.
        key: tuple[Any, ...] | None = (name, tuple(sorted(args.items())))
        try:
            cached = self._results.get(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable argument: nothing to remember it by
            key, cached = None, None
        if cached is not None:
            self._results.move_to_end(key)  # type: ignore[arg-type]
            return dict(cached)
        bound = ex.bind(args)
        try:
            result = ex.function(**bound)
        except DeckError:
            raise
        except Exception as exc:
            if self._refusals is not None and isinstance(exc, self._refusals()):
                raise ArgumentError(str(exc)) from None
            raise
        missing = [f.name for f in ex.fields if f.name not in result]
        if missing:
            raise DeckError(f"executable {name} returned no field(s) {', '.join(missing)}")
        if key is not None:
            self._results[key] = result
            if len(self._results) > RESULT_CACHE_SIZE:
                self._results.popitem(last=False)
            return dict(result)  # callers get their own mapping; the remembered one stays
        return result


def suggest(word: str, candidates: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest candidate, or an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
