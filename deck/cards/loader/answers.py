"""Validating a card's answer: tolerances, executable calls and their arguments,
numeric and formula answers with their closed forms, and choice options."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from deck import units
from deck.cards.loader.base import (
    ANSWER_KEYS,
    FORMULA_ANSWER_KEYS,
    NAME_PATTERN,
    VARIABLE_KEYS,
    _describe,
    _fact_names,
    _is_number,
    _number_problem,
    _type_message,
)
from deck.cards.loader.params import _ParamsMixin, param_extremes
from deck.cards.model import (
    AnswerSpec,
    Computation,
    ParamSpec,
    Tolerance,
    Variable,
)
from deck.cards.placeholders import placeholders
from deck.cards.registry import ArgumentError, suggest
from deck.cards.yamlsource import LList, LMap


class _AnswersMixin(_ParamsMixin):
    """Validates answers (numeric, formula, choice), tolerances and executable calls."""

    # ------------------------------------------------------------------ answers

    def tolerance(self, m: LMap, field: str, default: Tolerance) -> Tolerance:
        if "tolerance" not in m:
            return default
        value = m["tolerance"]
        pos = m.where("tolerance")
        if isinstance(value, str) and value.strip().endswith("%"):
            try:
                percent = units.parse_number(value.strip()[:-1], "", low=0, high=100)
            except units.RangeError:
                negative = value.strip().startswith(("-", "−"))
                self.report(
                    pos,
                    field,
                    f"negative tolerance {value.strip()}"
                    if negative
                    else f"a tolerance is from 0% to 100%, found {value!r}",
                )
                return default
            except units.UnitError:
                self.report(pos, field, f"expected a percentage like 2%, found {value!r}")
                return default
            return Tolerance(rel=percent / 100)
        if isinstance(value, LMap):
            self.unknown_keys(value, ("rel", "abs"), f"{field}.")
            rel = self.number(
                value.get("rel", 0), value.where("rel"), f"{field}.rel", value.raw.get("rel")
            )
            abs_ = self.number(
                value.get("abs", 0), value.where("abs"), f"{field}.abs", value.raw.get("abs")
            )
            if rel is None or abs_ is None:
                return default
            if rel < 0 or abs_ < 0:
                self.report(pos, field, "negative tolerance")
                return default
            if rel > 1:
                self.report(pos, field, f"a relative tolerance is at most 1 (100%), found {rel:g}")
                return default
            return Tolerance(rel=rel, abs=abs_)
        number = self.number(value, pos, field, m.raw.get("tolerance"))
        if number is None:
            return default
        if number < 0:
            self.report(pos, field, f"negative tolerance {number:g}")
            return default
        if number > 1:
            self.report(pos, field, f"a relative tolerance is at most 1 (100%), found {number:g}")
            return default
        return Tolerance(rel=float(number))

    def computation(
        self, m: LMap, field: str, params: Sequence[ParamSpec], *, dims_unit: str | None = None
    ) -> Computation | None:
        name = self.text(m, "run", f"{field}.run")
        if name is None:
            return None
        args_raw = m.get("args", LMap(m.pos))
        if not isinstance(args_raw, LMap):
            self.report(
                m.where("args"),
                f"{field}.args",
                f"expected a mapping of argument names to values, found {_describe(args_raw)}",
            )
            return None
        result_field = self.text(m, "field", f"{field}.field", required=True)
        if result_field is None:
            return None
        comp = Computation(
            run=name,
            args=tuple((str(k), v) for k, v in args_raw.items()),
            field=result_field,
            location=self.loc(m.where("run")),
        )
        if self.registry is None:
            return comp
        if name not in self.registry:
            self.report(
                m.where("run"),
                f"{field}.run",
                f"no executable named {name!r} is registered{suggest(name, self.registry.names())}",
            )
            return None
        ex = self.registry.get(name)
        ok = True
        if ex.field_(result_field) is None:
            fields = [f.name for f in ex.fields]
            self.report(
                m.where("field"),
                f"{field}.field",
                f"{name} has no result field {result_field!r}{suggest(result_field, fields)}; it has {', '.join(fields)}",
            )
            ok = False
        by_name = {p.name: p for p in params}
        for key, value in args_raw.items():
            pos = args_raw.where(key)
            decl = ex.param(str(key))
            if decl is None:
                names = [p.name for p in ex.params]
                self.report(
                    args_raw.key_pos.get(key, pos),
                    f"{field}.args.{key}",
                    f"{name} takes no argument {key!r}{suggest(str(key), names)}; it takes {', '.join(names)}",
                )
                ok = False
                continue
            literal = _number_problem(value, args_raw.raw.get(key)) if _is_number(value) else None
            if literal:
                self.report(pos, f"{field}.args.{key}", literal)
                ok = False
                continue
            for problem in _argument_problems(decl, value, by_name):
                self.report(pos, f"{field}.args.{key}", problem)
                ok = False
        for decl in ex.params:
            if decl.required and decl.name not in args_raw:
                self.report(
                    m.where("args") if "args" in m else m.pos,
                    f"{field}.args",
                    f"{name} needs the argument {decl.name!r}",
                )
                ok = False
        return comp if ok else None

    def numeric_answer(self, m: LMap, params: Sequence[ParamSpec]) -> AnswerSpec | None:
        if "answer" not in m:
            self.report(
                m.pos, "answer", "missing: a numeric card needs an answer (run:, value: or expr:)"
            )
            return None
        a = m["answer"]
        if not isinstance(a, LMap):
            self.report(
                m.where("answer"),
                "answer",
                f"expected a mapping (run/args/field/unit/tolerance), found {_describe(a)}",
            )
            return None
        self.unknown_keys(a, ANSWER_KEYS, "answer.")
        if "formula" in a:
            self.report(
                a.key_pos.get("formula"),
                "answer.formula",
                "numeric cards take run:, value: or expr: (formula: is for formula cards)",
            )
        unit = self.unit(a, "answer.unit") or ""
        tolerance = self.tolerance(a, "answer.tolerance", Tolerance())
        strict = self.boolean(a, "strict_unit", "answer.strict_unit", False)
        expect = self.answer_expect(a, params, _fact_names(m))
        sources = [k for k in ("run", "value", "expr") if k in a]
        if len(sources) != 1:
            self.report(
                a.pos,
                "answer",
                f"needs exactly one of run, value or expr (found {' and '.join(sources) or 'none'})",
            )
            return None
        loc = self.loc(m.where("answer"))
        if sources[0] == "run":
            comp = self.computation(a, "answer", params)
            if comp is None:
                return None
            if self.registry is not None and unit:
                fdef = self.registry.get(comp.run).field_(comp.field)
                udim = units.unit_dim(unit)
                if fdef is not None and udim is not None and udim is not fdef.dimension:
                    self.report(
                        a.where("unit"),
                        "answer.unit",
                        f"{unit!r} measures {udim.value}, but {comp.run}.{comp.field} is {fdef.dimension.value}",
                    )
                    return None
            return AnswerSpec(
                computation=comp,
                unit=unit,
                tolerance=tolerance,
                strict_unit=strict,
                location=loc,
                expect=expect,
            )
        if sources[0] == "value":
            raw = a["value"]
            value: float | None
            if isinstance(raw, str):
                try:
                    q = units.parse_quantity(raw, units.unit_dim(unit) if unit else None)
                    value = q.value
                except units.UnitError as exc:
                    self.report(a.where("value"), "answer.value", str(exc))
                    return None
            else:
                value = self.number(raw, a.where("value"), "answer.value", a.raw.get("value"))
                if value is not None and unit and units.is_unit(unit):
                    value = value * units.lookup_unit(unit).factor
                    if _number_problem(value, None):
                        self.report(a.where("value"), "answer.value", f"{raw} {unit} is too large")
                        return None
            if value is None:
                return None
            return AnswerSpec(
                value=float(value), unit=unit, tolerance=tolerance, strict_unit=strict, location=loc
            )
        expr = self.text(a, "expr", "answer.expr")
        if (
            expr is None
            or self.formula_vars(expr, a.where("expr"), "answer.expr", {p.name for p in params})
            is None
        ):
            return None
        return AnswerSpec(
            expr=expr, unit=unit, tolerance=tolerance, strict_unit=strict, location=loc
        )

    def answer_expect(
        self, a: LMap, params: Sequence[ParamSpec], facts: Iterable[str] = ()
    ) -> str | None:
        """``answer.expect``: the closed form the computed answer is held to, over the
        parameters, constants and the card's facts (each proven against its own closed form,
        so a closed form built on them still ends in parameters and constants)."""
        if "expect" not in a:
            return None
        raw = a["expect"]
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            self.report(
                a.where("expect"),
                "answer.expect",
                _type_message("a formula or a quantity", raw, a.raw.get("expect")),
            )
            return None
        text = str(raw)
        if isinstance(raw, str):
            try:
                units.parse_quantity(text)
                return text
            except units.UnitError:
                known = {p.name for p in params} | self.constant_names | set(facts)
                if (
                    self.formula_vars(
                        text, a.where("expect"), "answer.expect", known, params, proof=True
                    )
                    is None
                ):
                    return None
        return text

    def variables(self, m: LMap) -> tuple[Variable, ...]:
        if "variables" not in m:
            self.report(
                m.pos, "variables", "missing: a formula card lists the variables an answer may use"
            )
            return ()
        raw = m["variables"]
        if not isinstance(raw, LMap) or not raw:
            self.report(
                m.where("variables"),
                "variables",
                f"expected a mapping of variable names to domains, found {_describe(raw)}",
            )
            return ()
        out = []
        for name, spec in raw.items():
            field = f"variables.{name}"
            if not isinstance(name, str) or not NAME_PATTERN.match(name):
                self.report(
                    raw.key_pos.get(name),
                    field,
                    "a variable name must be a letter followed by letters, digits or '_'",
                )
                continue
            if spec is None:
                out.append(Variable(name))
                continue
            if isinstance(spec, str):
                out.append(Variable(name, meaning=spec))
                continue
            if not isinstance(spec, LMap):
                self.report(
                    raw.where(name),
                    field,
                    f"expected a mapping (range, integer, meaning), found {_describe(spec)}",
                )
                continue
            self.unknown_keys(spec, VARIABLE_KEYS, f"{field}.")
            lo, hi = 1.0, 100.0
            if "range" in spec:
                bounds = self.range_bounds(spec, field)
                if bounds is None:
                    continue
                lo, hi = float(bounds[0]), float(bounds[1])
            meaning = self.text(spec, "meaning", f"{field}.meaning") or ""
            out.append(
                Variable(
                    name, lo, hi, self.boolean(spec, "integer", f"{field}.integer", False), meaning
                )
            )
        return tuple(out)

    def formula_answer(self, m: LMap, variables: Sequence[Variable]) -> AnswerSpec | None:
        if "answer" not in m:
            self.report(m.pos, "answer", "missing: a formula card needs answer: {formula: ...}")
            return None
        a = m["answer"]
        if isinstance(a, str):
            formula, pos, tol = a, m.where("answer"), Tolerance(rel=1e-6)
        elif isinstance(a, LMap):
            self.unknown_keys(a, FORMULA_ANSWER_KEYS, "answer.", " for a formula card")
            formula = self.text(a, "formula", "answer.formula", required=True)
            pos = a.where("formula")
            tol = self.tolerance(a, "answer.tolerance", Tolerance(rel=1e-6))
            if formula is None:
                return None
            if "run" in a:
                as_params = [
                    ParamSpec(v.name, range=(v.low, v.high), integer=v.integer) for v in variables
                ]
                comp = self.computation(a, "answer", as_params)
                if comp is None:
                    return None
                if (
                    self.formula_vars(formula, pos, "answer.formula", {v.name for v in variables})
                    is None
                ):
                    return None
                return AnswerSpec(
                    formula=formula, tolerance=tol, location=self.loc(pos), computation=comp
                )
        else:
            self.report(
                m.where("answer"), "answer", f"expected {{formula: ...}}, found {_describe(a)}"
            )
            return None
        if self.formula_vars(formula, pos, "answer.formula", {v.name for v in variables}) is None:
            return None
        return AnswerSpec(formula=formula, tolerance=tol, location=self.loc(pos))

    def choice(self, m: LMap) -> tuple[tuple[str, ...], tuple[int, ...]]:
        if "options" not in m:
            self.report(m.pos, "options", "missing: a choice card needs a list of options")
            return (), ()
        if not isinstance(m["options"], LList):  # found by fuzzing: `options: text` crashed
            self.report(
                m.where("options"),
                "options",
                _type_message("a list of options", m["options"], m.raw.get("options")),
            )
            return (), ()
        options = self.str_list(m, "options", "options")
        if len(m["options"]) < 2:
            self.report(m.where("options"), "options", "a choice card needs at least two options")
        if len(set(options)) != len(options):
            self.report(m.where("options"), "options", "two options have the same text")
        if "correct" not in m:
            self.report(
                m.pos,
                "correct",
                "missing: the index (from 0) of the correct option, or a list of them",
            )
            return options, ()
        raw = m["correct"]
        items = list(raw) if isinstance(raw, LList) else [raw]
        where = (
            [raw.where(i) for i in range(len(items))]
            if isinstance(raw, LList)
            else [m.where("correct")]
        )
        out: list[int] = []
        for i, item in enumerate(items):
            if isinstance(item, bool) or not isinstance(item, int):
                if isinstance(item, str) and item in options:
                    out.append(options.index(item))
                    continue
                self.report(
                    where[i],
                    "correct",
                    _type_message("an option index (from 0) or an option's text", item, None),
                )
                continue
            if not 0 <= item < len(options):
                self.report(
                    where[i],
                    "correct",
                    f"index {item} is out of range: there are {len(options)} options (0 to {len(options) - 1})",
                )
                continue
            out.append(item)
        if not items:
            self.report(m.where("correct"), "correct", "empty: at least one option must be correct")
        return options, tuple(sorted(set(out)))


def _argument_problems(decl: Any, value: Any, params: dict[str, ParamSpec]) -> Iterator[str]:
    """Why ``value`` (a literal, ``"{p}"`` or ``"= expr"``) cannot fit ``decl``."""
    if isinstance(value, str):
        stripped = value.strip()
        m = re.fullmatch(r"\{([A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff]*)\}", stripped)
        if m:
            name = m.group(1)
            spec = params.get(name)
            if spec is None:
                yield f"{{{name}}}: no such parameter{suggest(name, params)}"
                return
            for v in param_extremes(spec):
                try:
                    decl.coerce(v)
                except ArgumentError as exc:
                    yield f"parameter {name} can be {v!r}: {exc}"
                    return
            return
        if stripped.startswith("="):
            from deck.formula import FormulaError, parse

            try:
                expr = parse(stripped[1:])
            except FormulaError as exc:
                yield f"bad expression: {exc}"
                return
            missing = sorted(expr.variables - set(params))
            if missing:
                yield f"unknown name(s) {', '.join(missing)} in the expression"
            return
        if placeholders(value):
            missing = [n for n in placeholders(value) if n not in params]
            if missing:
                yield f"placeholder {{{missing[0]}}}: no such parameter"
            return
    try:
        decl.coerce(value)
    except ArgumentError as exc:
        yield str(exc)
