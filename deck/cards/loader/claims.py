"""Validating a card's ``verify`` claims (facts, sweeps, scaling and derived facts)
and its ``constraints`` on draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deck import units
from deck.cards.instances import MAX_SWEEP_POINTS
from deck.cards.loader.answers import _AnswersMixin
from deck.cards.loader.base import (
    CLAIM_KEYS,
    NAME_PATTERN,
    _describe,
    _is_number,
    _number_problem,
    _type_message,
)
from deck.cards.loader.params import _sweep_size
from deck.cards.model import (
    Claim,
    ParamSpec,
    Tolerance,
)
from deck.cards.registry import suggest
from deck.cards.yamlsource import LList, LMap


class _ClaimsMixin(_AnswersMixin):
    """Validates ``verify`` claims and facts, and ``constraints``."""

    # ------------------------------------------------------------------ claims

    def claims(
        self, m: LMap, param_names: set[str], params: Sequence[ParamSpec] = ()
    ) -> tuple[Claim, ...]:
        self.claim_maps = []
        if "verify" not in m:
            return ()
        raw = m["verify"]
        if not isinstance(raw, LList):
            self.report(
                m.where("verify"), "verify", f"expected a list of claims, found {_describe(raw)}"
            )
            return ()
        out = []
        facts: set[str] = set()
        self.claim_maps = []
        for i, c in enumerate(raw):
            field = f"verify[{i}]"
            if not isinstance(c, LMap):
                self.report(
                    raw.where(i),
                    field,
                    f"expected a claim mapping (claim, run, args, field, expect), found {_describe(c)}",
                )
                continue
            self.unknown_keys(c, CLAIM_KEYS, f"{field}.")
            fact = self.fact_name(c, field, param_names, facts)
            text = self.text(c, "claim", f"{field}.claim", required=not fact) or ""
            where: list[ParamSpec] = []
            known: set[str] = set()
            if "where" in c:
                w = c["where"]
                if not isinstance(w, LMap):
                    self.report(
                        c.where("where"),
                        f"{field}.where",
                        f"expected a mapping of names to values, found {_describe(w)}",
                    )
                    continue
                for name, spec in w.items():
                    p = self.param(
                        name, spec, w.where(name), w.key_pos.get(name), f"{field}.where", known
                    )
                    if p is not None:
                        if p.range is not None and not p.integer and p.step is None:
                            self.report(
                                w.where(name),
                                f"{field}.where.{name}",
                                "a sweep range needs whole numbers or a step",
                            )
                            continue
                        where.append(p)
                        known.add(p.name)
            points = 1
            for p in where:
                points *= _sweep_size(p)
            if points > MAX_SWEEP_POINTS:
                self.report(
                    c.where("where"),
                    f"{field}.where",
                    f"{points:,} combinations; keep a sweep under {MAX_SWEEP_POINTS:,}",
                )
                continue
            # Without a sweep a claim is evaluated at each instance: it may use the parameters.
            scope: Sequence[ParamSpec] = where if where else params
            if not where:
                known |= param_names
            # Declared constants are known too: formula_vars and check_placeholders look them up
            # (hundreds of names: not copied into every claim's set).
            expr_text: str | None = None
            if "expr" in c:
                if "run" in c:
                    self.report(
                        c.key_pos.get("expr"), f"{field}.expr", "give run or expr, not both"
                    )
                    continue
                expr_text = self.text(c, "expr", f"{field}.expr")
                if (
                    expr_text is None
                    or self.formula_vars(expr_text, c.where("expr"), f"{field}.expr", known | facts)
                    is None
                ):
                    continue
                comp = None
            else:
                comp = self.computation(c, field, scope)
                if comp is None:
                    continue
            vary = self.text(c, "vary", f"{field}.vary") or ""
            if vary and comp is None:
                self.report(c.where("vary"), f"{field}.vary", "vary needs run:")
                continue
            if vary and comp is not None and self.registry is not None:
                decl = self.registry.get(comp.run).param(vary)
                if decl is None or vary not in dict(comp.args):
                    self.report(
                        c.where("vary"),
                        f"{field}.vary",
                        f"{vary!r} must be one of the arguments given in args",
                    )
                    continue
            if "expect" not in c:
                self.report(
                    c.pos, f"{field}.expect", "missing: the value or formula the result must equal"
                )
                continue
            expect = c["expect"]
            if isinstance(expect, bool) or not isinstance(expect, str | int | float):
                self.report(
                    c.where("expect"),
                    f"{field}.expect",
                    _type_message("a formula or a quantity", expect, c.raw.get("expect")),
                )
                continue
            problem = _number_problem(expect, c.raw.get("expect")) if _is_number(expect) else None
            if problem:
                self.report(c.where("expect"), f"{field}.expect", problem)
                continue
            expect_text = str(expect)
            textual_field = (
                comp is not None
                and self.registry is not None
                and (f := self.registry.get(comp.run).field_(comp.field)) is not None
                and f.dimension is units.Dim.TEXT
            )
            if vary:
                from deck.cards.model import Scaling

                kinds = [k.value for k in Scaling]
                if expect_text not in kinds:
                    self.report(
                        c.where("expect"),
                        f"{field}.expect",
                        f"a scaling fact expects one of {', '.join(kinds)}{suggest(expect_text, kinds)}",
                    )
                    continue
            elif textual_field:
                pass  # a text result (an algorithm's name) is compared as written
            elif isinstance(expect, str):
                try:
                    units.parse_quantity(expect)
                except units.RangeError as exc:
                    self.report(c.where("expect"), f"{field}.expect", str(exc))
                    continue
                except units.UnitError:
                    if (
                        self.formula_vars(
                            expect,
                            c.where("expect"),
                            f"{field}.expect",
                            known if where else known | facts,  # may build on earlier facts
                            scope,
                            proof=True,
                        )
                        is None
                    ):
                        continue
            tol = self.tolerance(c, f"{field}.tolerance", Tolerance(rel=1e-9))
            if comp is None and expr_text is None:
                continue
            self.check_placeholders(c, f"{field}.claim", text, known | facts | {"expect"})
            out.append(
                Claim(
                    text,
                    comp,
                    expect_text,
                    tuple(where),
                    tol,
                    self.loc(raw.where(i)),
                    name=fact,
                    expr=expr_text,
                    vary=vary,
                )
            )
            self.claim_maps.append((out[-1], c))
            if fact and not where:
                facts.add(fact)
        return tuple(out)

    def fact_name(self, c: LMap, field: str, params: set[str], facts: set[str]) -> str:
        """A claim's ``name`` (empty when it has none), after checking it is a fresh name."""
        name = self.text(c, "name", f"{field}.name")
        if not name:
            return ""
        problem = None
        if not NAME_PATTERN.match(name):
            problem = "a fact name is a letter followed by letters, digits or '_'"
        elif name in params:
            problem = f"{name!r} is already a parameter"
        elif name in facts:
            problem = f"another claim of this card is named {name!r}"
        elif name in self.constant_names:
            problem = f"{name!r} is a declared constant"
        elif name in ("answer", "result", "expect", "pi", "e"):
            problem = f"{name!r} is reserved"
        if problem:
            self.report(c.where("name"), f"{field}.name", problem)
            return ""
        return name

    # ---------------------------------------------------------------------- helpers

    def constraints(self, m: LMap, names: set[str]) -> tuple[Any, ...]:
        """``constraints:``, a list of comparisons over parameters, facts and constants."""
        from deck.cards.constraints import ConstraintError, parse_constraint

        texts = self.str_list(m, "constraints", "constraints")
        out = []
        raw = m.get("constraints")
        for i, text in enumerate(texts):
            pos = raw.where(i) if isinstance(raw, LList) else m.where("constraints")
            try:
                c = parse_constraint(text)
            except ConstraintError as exc:
                self.report(pos, f"constraints[{i}]", str(exc))
                continue
            unknown = sorted(c.names - names - self.constant_names)
            if unknown:
                self.report(
                    pos,
                    f"constraints[{i}]",
                    f"unknown name(s) {', '.join(unknown)}: use parameters, facts or constants",
                )
                continue
            out.append(c)
        return tuple(out)
