"""Validating a card's ``params`` and a claim's ``where`` sweep: choices, ranges,
grids, units and formulas, with every problem located."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from deck import units
from deck.cards.instances import sweep_size
from deck.cards.loader.base import (
    NAME_PATTERN,
    PARAM_KEYS,
    _Base,
    _describe,
    _number_problem,
    _type_message,
)
from deck.cards.model import (
    ParamSpec,
)
from deck.cards.placeholders import name_part
from deck.cards.registry import suggest
from deck.cards.yamlsource import LList, LMap, Pos


class _ParamsMixin(_Base):
    """Validates ``params`` (and claim sweeps): choices, ranges, grids, units, formulas."""

    # ------------------------------------------------------------------ params

    def params(self, m: LMap) -> tuple[ParamSpec, ...]:
        if "params" not in m:
            return ()
        raw = m["params"]
        if not isinstance(raw, LMap):
            self.report(
                m.where("params"),
                "params",
                f"expected a mapping of parameter names to specs, found {_describe(raw)}",
            )
            return ()
        out: list[ParamSpec] = []
        known: set[str] = set()
        for name, spec in raw.items():
            p = self.param(name, spec, raw.where(name), raw.key_pos.get(name), "params", known)
            if p is not None:
                out.append(p)
                known.add(p.name)
        return tuple(out)

    def param(
        self, key: object, spec: Any, pos: Pos, key_pos: Pos | None, prefix: str, known: set[str]
    ) -> ParamSpec | None:
        drawn = self._param(key, spec, pos, key_pos, prefix, known)
        if drawn is None or not isinstance(spec, LMap) or "role" not in spec:
            return drawn
        role = self.role(spec, f"{prefix}.{drawn.name}.role", drawn)
        return None if role is None else dataclasses.replace(drawn, role=role)

    def role(self, spec: LMap, field: str, drawn: ParamSpec) -> str | None:
        """``role: NAME``: what a drawn value stands for in a learner's setup. Only a
        drawn number of a physical unit can take one (a given value is in base units)."""
        role = self.text(spec, "role", field)
        if role is None:
            return None
        if not field.startswith("params."):
            self.report(spec.where("role"), field, "a role is for a card's params, not a sweep")
            return None
        if not NAME_PATTERN.match(role):
            self.report(
                spec.where("role"),
                field,
                "a role must be a letter or '_' followed by letters, digits or '_'",
            )
            return None
        if drawn.formula is not None or units.unit_dim(drawn.unit) is None:
            self.report(
                spec.where("role"),
                field,
                "only a drawn number with a physical unit (us, GB/s, MiB…) can take a role",
            )
            return None
        return role

    def _param(
        self, key: object, spec: Any, pos: Pos, key_pos: Pos | None, prefix: str, known: set[str]
    ) -> ParamSpec | None:
        if not isinstance(key, str):  # YAML reads 1:, null:, true: as a number, null, boolean
            shown = _key_text(key)
            self.report(
                key_pos or pos,
                f"{prefix}.{shown}",
                f"a parameter name must be a letter followed by letters, digits or '_'; "
                f"YAML reads {shown} as {'a number' if _is_number(key) else _describe(key)}, "
                "not a name (quote it)",
            )
            return None
        name = key
        field = f"{prefix}.{name}"
        if not NAME_PATTERN.match(name):
            self.report(
                key_pos or pos,
                field,
                "a parameter name must be a letter followed by letters, digits or '_'",
            )
            return None
        if isinstance(spec, LList):
            return self.choices(name, spec, pos, field, "")
        if not isinstance(spec, LMap):
            self.report(
                pos,
                field,
                f"expected a list of choices or a mapping (choices/range/formula), found {_describe(spec)}",
            )
            return None
        self.unknown_keys(spec, PARAM_KEYS, f"{field}.")
        unit = self.unit(spec, f"{field}.unit")
        kinds = [k for k in ("choices", "range", "formula") if k in spec]
        if len(kinds) != 1:
            what = "none" if not kinds else " and ".join(kinds)
            self.report(
                spec.pos, field, f"needs exactly one of choices, range or formula (found {what})"
            )
            return None
        loc = self.loc(pos)
        if kinds[0] == "choices":
            if not isinstance(spec["choices"], LList):
                self.report(
                    spec.where("choices"),
                    f"{field}.choices",
                    f"expected a list, found {_describe(spec['choices'])}",
                )
                return None
            return self.choices(name, spec["choices"], spec.where("choices"), field, unit or "")
        if kinds[0] == "formula":
            formula = self.text(spec, "formula", f"{field}.formula")
            if formula is None:
                return None
            if self.formula_vars(formula, spec.where("formula"), f"{field}.formula", known) is None:
                return None
            return ParamSpec(name, formula=formula, unit=unit or "", location=loc)
        bounds = self.range_bounds(spec, field)
        if bounds is None:
            return None
        lo, hi = bounds
        step = None
        if "step" in spec:
            step = self.number(
                spec["step"], spec.where("step"), f"{field}.step", spec.raw.get("step")
            )
            if step is not None and step <= 0:
                self.report(spec.where("step"), f"{field}.step", f"must be positive, got {step:g}")
                return None
        log = self.boolean(spec, "log", f"{field}.log", False)
        pow2 = self.boolean(spec, "pow2", f"{field}.pow2", False)
        whole = (
            isinstance(lo, int)
            and isinstance(hi, int)
            and (step is None or float(step).is_integer())
        )
        integer = self.boolean(spec, "integer", f"{field}.integer", whole)
        if (log or pow2) and lo <= 0:
            self.report(
                spec.where("range"), f"{field}.range", "a log or pow2 range must start above 0"
            )
            return None
        if pow2 and not _powers_of_two(lo, hi):
            self.report(
                spec.where("range"), f"{field}.range", f"no power of two in [{lo:g}, {hi:g}]"
            )
            return None
        if integer and step is None and not pow2 and math.ceil(lo) > math.floor(hi):
            self.report(
                spec.where("range"),
                f"{field}.range",
                f"no whole number in [{lo:g}, {hi:g}]: widen the range or set integer: false",
            )
            return None
        return ParamSpec(
            name,
            range=(lo, hi),
            step=step,
            log=log,
            pow2=pow2,
            integer=integer,
            unit=unit or "",
            location=loc,
        )

    def range_bounds(self, spec: LMap, field: str) -> tuple[float, float] | None:
        """``range: [low, high]`` with low strictly below high, or None after reporting why not."""
        rng = spec["range"]
        if not isinstance(rng, LList) or len(rng) != 2:
            self.report(
                spec.where("range"),
                f"{field}.range",
                f"expected [low, high], found {_describe(rng)}",
            )
            return None
        lo = self.number(rng[0], rng.where(0), f"{field}.range", rng.raw[0])
        hi = self.number(rng[1], rng.where(1), f"{field}.range", rng.raw[1])
        if lo is None or hi is None:
            return None
        if lo > hi:
            self.report(
                spec.where("range"),
                f"{field}.range",
                f"inverted range [{lo:g}, {hi:g}]: low is above high",
            )
            return None
        if lo == hi:
            self.report(
                spec.where("range"),
                f"{field}.range",
                f"empty range [{lo:g}, {hi:g}]: use a list for a single value",
            )
            return None
        return lo, hi

    def choices(self, name: str, items: LList, pos: Pos, field: str, unit: str) -> ParamSpec | None:
        if not items:
            self.report(pos, field, "empty list of choices")
            return None
        values = []
        ok = True
        for i, item in enumerate(items):
            if isinstance(item, bool) or item is None or isinstance(item, LMap | LList):
                self.report(
                    items.where(i),
                    f"{field}[{i}]",
                    _type_message("a number or text", item, items.raw[i]),
                )
                ok = False
                continue
            if unit and units.unit_dim(unit) is not None and not isinstance(item, int | float):
                self.report(
                    items.where(i),
                    f"{field}[{i}]",
                    f"expected a number (in {unit}), found {item!r}",
                )
                ok = False
                continue
            problem = _number_problem(item, items.raw[i]) if isinstance(item, int | float) else None
            if problem:
                self.report(items.where(i), f"{field}[{i}]", problem)
                ok = False
                continue
            values.append(item)
        if not ok:
            return None
        registry = self.registry
        labels = (
            tuple(
                (v, label)
                for v in dict.fromkeys(values)
                if isinstance(v, str) and (label := registry.label(v)) != v
            )
            if registry is not None
            else ()
        )
        return ParamSpec(
            name, choices=tuple(values), unit=unit, location=self.loc(pos), labels=labels
        )

    def unit(self, m: LMap, field: str) -> str | None:
        unit = self.text(m, "unit", field)
        if unit is None:
            return None
        if not units.is_unit(unit) and unit not in units.LABELS:
            hint = suggest(unit, list(units.UNITS) + sorted(units.LABELS))
            self.report(m.where("unit"), field, f"unknown unit {unit!r}{hint}")
            return None
        return unit

    def formula_vars(
        self,
        text: str,
        pos: Pos,
        field: str,
        known: set[str],
        specs: Sequence[ParamSpec] = (),
        *,
        proof: bool = False,
    ) -> Any:
        """Parse a formula over ``known`` names; ``{param}`` placeholders of text parameters
        among ``specs`` (``{link}_latency``) are tried with each of their choices.

        A ``proof`` formula (a claim's or an answer's ``expect``) may name cited constants
        only: one the application's code derives would hold that code to itself."""
        from deck.formula import FormulaError, parse

        expr = None
        for variant in placeholder_variants(text, specs):
            try:
                expr = parse(variant)
            except FormulaError as exc:
                self.report(pos, field, f"bad expression: {exc}")
                return None
            missing = sorted(expr.variables - known - self.constant_names)
            if missing:
                own = sorted(known - self.constant_names)  # the card's names, not constants
                listing = f"; known: {', '.join(own) or 'none'}" if len(own) <= 12 else ""
                hint = suggest(missing[0], sorted(known | self.constant_names))
                self.report(pos, field, f"unknown name(s) {', '.join(missing)}{hint}{listing}")
                return None
            if proof and self.registry is not None and self._derived_in(expr.variables, pos, field):
                return None
        return expr

    def _derived_in(self, names: set[str], pos: Pos, field: str) -> bool:
        """Report the constants among ``names`` that code derives; True if there were any."""
        assert self.registry is not None
        derived = sorted(
            n for n in names if (c := self.registry.constant(n)) is not None and not c.cited
        )
        for name in derived:
            code = self.registry.constant(name).derived  # type: ignore[union-attr]
            self.report(
                pos,
                field,
                f"{name!r} is derived by {code}, not cited: a proof's expect may use only "
                "cited constants (a published figure with its source) and parameters",
            )
        return bool(derived)


def placeholder_variants(text: str, specs: Sequence[ParamSpec]) -> list[str]:
    """``text`` with its ``{param}`` placeholders of text parameters filled in every way
    their choices allow (at most 64 variants); ``[text]`` when it has none."""
    if "{" not in text:
        return [text]
    used = [p for p in specs if p.choices is not None and "{" + p.name + "}" in text]
    variants = [text]
    for spec in used:
        assert spec.choices is not None
        variants = [
            v.replace("{" + spec.name + "}", name_part(str(choice)))
            for v in variants
            for choice in spec.choices
        ][:64]
    return variants


def _powers_of_two(lo: float, hi: float) -> list[int]:
    out, p = [], 1
    while p <= hi:
        if p >= lo:
            out.append(p)
        p *= 2
    return out


def _sweep_size(p: ParamSpec) -> int:
    if p.formula is not None or (p.choices is None and p.range is None):
        return 1
    return sweep_size([p])


def param_extremes(p: ParamSpec) -> list[Any]:
    """The values of a parameter that bound-checking must try (base units)."""
    factor = units.lookup_unit(p.unit).factor if p.unit and units.is_unit(p.unit) else 1
    if p.choices is not None:
        return [c * factor if isinstance(c, int | float) and factor != 1 else c for c in p.choices]
    if p.range is not None:
        lo, hi = p.range
        if p.pow2:
            pw = _powers_of_two(lo, hi)
            lo, hi = pw[0], pw[-1]
        return [lo * factor, hi * factor]
    return []


def _is_number(key: object) -> bool:
    return isinstance(key, int | float) and not isinstance(key, bool)


def _key_text(key: object) -> str:
    """A mapping key that is not text, as the YAML that wrote it (``null``, ``true``, ``1``)."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return str(key).lower()
    if isinstance(key, int) and key.bit_length() > 128:
        return "a long number"
    text = repr(key)
    return text if len(text) <= 40 else text[:37] + "..."
