"""Loading and validating card files into a :class:`~deck.model.Collection`.

Every problem of every file is reported, one line each (``PATH:LINE:COL: card 'ID':
field: what is wrong``), and every valid card is still returned. Executable names
and arguments are checked against a :class:`~deck.registry.Registry` when one is
given, before anything runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from deck import units
from deck.errors import Problem
from deck.model import (
    AnswerSpec,
    Card,
    CardType,
    Claim,
    Collection,
    Computation,
    Location,
    ParamSpec,
    Tolerance,
    Variable,
)
from deck.placeholders import name_part, placeholders
from deck.registry import ArgumentError, Registry, suggest
from deck.spancheck import span_problems
from deck.textpos import TextOrigin, origin_at
from deck.yamlsource import LList, LMap, Pos, parse_yaml, read_text

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NAME_PATTERN = re.compile(r"^[A-Za-z_\u0370-\u03ff][A-Za-z0-9_\u0370-\u03ff]*$")
MAX_SWEEP_POINTS = 2000

FILE_KEYS = ("deck", "tags", "source", "unproven", "cards")
UNPROVEN_POLICIES = ("error", "warn")
COMMON_KEYS = (
    "id",
    "type",
    "front",
    "back",
    "deck",
    "tags",
    "source",
    "hint",
    "params",
    "constraints",
    "verify",
    "mistakes",
)
TYPE_KEYS: dict[CardType, tuple[str, ...]] = {
    CardType.BASIC: (),
    CardType.CHOICE: ("options", "correct", "shuffle"),
    CardType.NUMERIC: ("answer",),
    CardType.FORMULA: ("answer", "variables"),
}
ALL_CARD_KEYS = tuple(dict.fromkeys(COMMON_KEYS + sum(TYPE_KEYS.values(), ())))
PARAM_KEYS = ("choices", "range", "step", "log", "pow2", "unit", "formula", "integer")
ANSWER_KEYS = (
    "run",
    "args",
    "field",
    "unit",
    "tolerance",
    "value",
    "expr",
    "formula",
    "strict_unit",
    "expect",
)
FORMULA_ANSWER_KEYS = ("formula", "tolerance", "run", "args", "field")
CLAIM_KEYS = (
    "claim",
    "name",
    "run",
    "expr",
    "vary",
    "args",
    "field",
    "expect",
    "where",
    "tolerance",
)
VARIABLE_KEYS = ("range", "integer", "meaning")
CARD_FILE_SUFFIXES = (".yaml", ".yml")


def card_files(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their card files (recursively, sorted); keep files as given."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(
                sorted(f for f in p.rglob("*") if f.suffix in CARD_FILE_SUFFIXES and f.is_file())
            )
        else:
            out.append(p)
    return out


def load_collection(
    paths: Sequence[Path],
    registry: Registry | None = None,
    *,
    display_root: Path | None = None,
    on_file: Any = None,
) -> Collection:
    """Load every card file under ``paths``; never raises for bad content.

    ``display_root`` shortens paths in messages; ``on_file(i, n, path)`` reports progress.
    """
    files = card_files(paths)
    cards: list[Card] = []
    problems: list[Problem] = []
    seen: dict[str, Location] = {}
    for i, path in enumerate(files):
        if on_file is not None:
            on_file(i, len(files), path)
        display = _display(path, display_root)
        if not path.exists():
            problems.append(Problem(display, 0, 0, "no such file or folder"))
            continue
        file_cards, file_problems = load_file(path, registry, display=display)
        problems.extend(file_problems)
        for card in file_cards:
            first = seen.get(card.id)
            if first is not None:
                loc = card.location
                problems.append(
                    Problem(
                        loc.path,
                        loc.line,
                        loc.col,
                        f"duplicate id, first defined at {first}",
                        card.id,
                        "id",
                    )
                )
                continue
            seen[card.id] = card.location
            cards.append(card)
    return Collection(tuple(cards), tuple(problems), tuple(str(f) for f in files))


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def load_file(
    path: Path, registry: Registry | None = None, *, display: str | None = None
) -> tuple[list[Card], list[Problem]]:
    """Load one card file: its valid cards and all its problems."""
    shown = display or str(path)
    text, problem = read_text(path, shown)
    if problem is not None:
        return [], [problem]
    assert text is not None
    return load_text(text, shown, registry)


def load_text(
    text: str, path: str, registry: Registry | None = None
) -> tuple[list[Card], list[Problem]]:
    """Load card-file text; ``path`` is only used in messages and locations."""
    data, problem = parse_yaml(text, path)
    if problem is not None:
        return [], [problem]
    return _FileValidator(path, registry, text).file(data)


class _FileValidator:
    """Validates one parsed file, collecting problems instead of stopping at the first."""

    def __init__(self, path: str, registry: Registry | None, source: str = "") -> None:
        self.path = path
        self.registry = registry
        self.source = source
        self.problems: list[Problem] = []
        self.card_id: str | None = None
        self.unproven = "error"
        self.claim_maps: list[tuple[Claim, LMap]] = []
        self.constant_names: frozenset[str] = (
            frozenset(registry.constants) if registry is not None else frozenset()
        )

    # ------------------------------------------------------------------ reporting

    def report(self, pos: Pos | None, field: str | None, message: str) -> None:
        line, col = (pos.line, pos.col) if pos else (0, 0)
        self.problems.append(Problem(self.path, line, col, message, self.card_id, field))

    def loc(self, pos: Pos) -> Location:
        return Location(self.path, pos.line, pos.col)

    # ------------------------------------------------------------------ typed access

    def unknown_keys(self, m: LMap, allowed: Sequence[str], prefix: str, extra: str = "") -> None:
        for key in m:
            if key not in allowed:
                hint = suggest(str(key), allowed)
                field = f"{prefix}{key}" if prefix else str(key)
                self.report(m.key_pos.get(key), field, f"unknown key{extra}{hint}")

    def text(self, m: LMap, key: str, field: str, *, required: bool = False) -> str | None:
        if key not in m:
            if required:
                self.report(m.pos, field, "missing (required)")
            return None
        value = m[key]
        if isinstance(value, str):
            return value
        self.report(m.where(key), field, _type_message("text", value, m.raw.get(key)))
        return None

    def number(
        self, value: Any, pos: Pos, field: str, raw: tuple[str, str] | None = None
    ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            if isinstance(value, str):
                try:
                    return units.parse_count(value)
                except units.UnitError:
                    pass
            self.report(pos, field, _type_message("a number", value, raw))
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.report(pos, field, f"{value} is not a finite number")
            return None
        return value

    def boolean(self, m: LMap, key: str, field: str, default: bool) -> bool:
        if key not in m:
            return default
        value = m[key]
        if isinstance(value, bool):
            return value
        self.report(m.where(key), field, _type_message("true or false", value, m.raw.get(key)))
        return default

    def str_list(self, m: LMap, key: str, field: str) -> tuple[str, ...]:
        if key not in m:
            return ()
        value = m[key]
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, LList):
            self.report(m.where(key), field, _type_message("a list of text", value, m.raw.get(key)))
            return ()
        out = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.report(
                    value.where(i), f"{field}[{i}]", _type_message("text", item, value.raw[i])
                )
        return tuple(out)

    # ------------------------------------------------------------------ file

    def file(self, data: Any) -> tuple[list[Card], list[Problem]]:
        if isinstance(data, LList):
            self.report(
                data.pos,
                None,
                "expected a mapping with a 'cards:' list at the top, found a list (indent it under 'cards:')",
            )
            return [], self.problems
        if not isinstance(data, LMap):
            self.report(
                Pos(1, 1),
                None,
                f"expected a mapping with a 'cards:' list at the top, found {_describe(data)}",
            )
            return [], self.problems
        self.unknown_keys(data, FILE_KEYS, "", " at file level")
        deck = self.text(data, "deck", "deck") or "default"
        if "deck" in data and isinstance(data["deck"], str) and not ID_PATTERN.match(deck):
            self.report(
                data.where("deck"),
                "deck",
                f"deck name {deck!r} must be lowercase letters, digits and '-'",
            )
        tags = self.str_list(data, "tags", "tags")
        source = self.text(data, "source", "source") or ""
        policy = self.text(data, "unproven", "unproven")
        if policy is not None:
            if policy in UNPROVEN_POLICIES:
                self.unproven = policy
            else:
                self.report(
                    data.where("unproven"),
                    "unproven",
                    f"expected one of {', '.join(UNPROVEN_POLICIES)}, found {policy!r}",
                )
        if "cards" not in data:
            self.report(data.pos, "cards", "missing: a card file needs a 'cards:' list")
            return [], self.problems
        raw_cards = data["cards"]
        if not isinstance(raw_cards, LList):
            self.report(
                data.where("cards"),
                "cards",
                f"expected a list of cards, found {_describe(raw_cards)}",
            )
            return [], self.problems
        cards: list[Card] = []
        seen: dict[str, Pos] = {}
        for i, raw in enumerate(raw_cards):
            self.card_id = None
            card = self.card(raw, raw_cards.where(i), i, deck, tags, source)
            if card is None:
                continue
            if card.id in seen:
                first = seen[card.id]
                self.report(
                    raw_cards.where(i),
                    "id",
                    f"duplicate id, first defined at {self.path}:{first.line}:{first.col}",
                )
                continue
            seen[card.id] = raw_cards.where(i)
            cards.append(card)
        self.card_id = None
        self.problems.sort(key=lambda p: (p.line, p.col))
        return cards, self.problems

    # ------------------------------------------------------------------ card

    def card(
        self, m: Any, pos: Pos, index: int, deck: str, file_tags: tuple[str, ...], source: str
    ) -> Card | None:
        if not isinstance(m, LMap):
            self.report(
                pos,
                f"cards[{index}]",
                f"expected a card (a mapping with id, type, front), found {_describe(m)}",
            )
            return None
        before = len(self.problems)
        card_id = self.card_identity(m, index)
        if card_id is None and "id" in m and m["id"] is not None:
            self.card_id = m.raw.get("id", ("", str(m["id"])))[1]
        else:
            self.card_id = card_id or f"#{index + 1}"
        ctype = self.card_type(m)
        allowed = COMMON_KEYS + (TYPE_KEYS[ctype] if ctype else ALL_CARD_KEYS[len(COMMON_KEYS) :])
        for key in m:
            if key in allowed:
                continue
            if key in ALL_CARD_KEYS and ctype is not None:
                self.report(m.key_pos.get(key), str(key), f"not used by {ctype.value} cards")
            else:
                self.report(
                    m.key_pos.get(key), str(key), f"unknown key{suggest(str(key), ALL_CARD_KEYS)}"
                )
        front = self.text(m, "front", "front", required=True)
        if front is not None and not front.strip():
            self.report(m.where("front"), "front", "is empty")
        back = self.text(m, "back", "back") or ""
        hint = self.text(m, "hint", "hint") or ""
        card_deck = self.text(m, "deck", "deck") or deck
        tags = tuple(dict.fromkeys(file_tags + self.str_list(m, "tags", "tags")))
        for t in tags:
            if not re.match(r"^[A-Za-z0-9][\w./+-]*$", t):
                self.report(
                    m.where("tags"), "tags", f"tag {t!r}: use letters, digits, '-', '_', '/'"
                )
        card_source = self.text(m, "source", "source") or source
        params = self.params(m)
        param_names = {p.name for p in params}
        # A parameter with a bad spec is already reported; its placeholders are not errors too.
        declared = set(m["params"]) if isinstance(m.get("params"), LMap) else set()

        answer = None
        options: tuple[str, ...] = ()
        correct: tuple[int, ...] = ()
        variables: tuple[Variable, ...] = ()
        shuffle = True
        if ctype is CardType.NUMERIC:
            answer = self.numeric_answer(m, params)
        elif ctype is CardType.FORMULA:
            variables = self.variables(m)
            answer = self.formula_answer(m, variables)
        elif ctype is CardType.CHOICE:
            options, correct = self.choice(m)
            shuffle = self.boolean(m, "shuffle", "shuffle", True)
        claims = self.claims(m, param_names, params)
        from deck.mistake_specs import read_mistakes

        known = {v.name for v in variables} if ctype is CardType.FORMULA else param_names
        mistakes = read_mistakes(self, m, ctype, known, len(options), correct)

        fact_names = {c.name for c in claims if c.name}
        names = param_names | declared | fact_names | self.constant_names
        constraints = self.constraints(m, param_names | declared | fact_names)
        answered = ctype in (CardType.NUMERIC, CardType.FORMULA, CardType.CHOICE)
        computed = (
            ctype is CardType.NUMERIC and isinstance(m.get("answer"), LMap) and "run" in m["answer"]
        )
        origins: dict[str, TextOrigin] = {}
        back_names = names | {"answer"} if answered else names
        if computed and answer is not None and answer.computation is not None:
            back_names = back_names | self.result_names(answer.computation)
        for field, text_value, container, key, allowed in (
            ("front", front, m, "front", names),
            ("back", back, m, "back", back_names),
            ("hint", hint, m, "hint", names),
        ):
            self.check_placeholders(
                m, field, text_value, allowed, allow_result=computed and field == "back"
            )
            self.text_spans(container, key, field, text_value, allowed, origins)
        for i, opt in enumerate(options):
            self.check_placeholders(m, f"options[{i}]", opt, names, pos=m["options"].where(i))
            self.text_spans(m["options"], i, f"options[{i}]", opt, names | {"answer"}, origins)
        raw_mistakes = m.get("mistakes")
        if isinstance(raw_mistakes, LList) and len(raw_mistakes) == len(mistakes):
            mistake_names = names | ({"answer"} if answered else set())
            for i, spec in enumerate(mistakes):
                field = f"mistakes[{i}].message"
                item = raw_mistakes[i]
                if isinstance(item, LMap):
                    self.text_spans(item, "message", field, spec.message, mistake_names, origins)
        for i, (claim, claim_map) in enumerate(self.claim_maps):
            if claim.text:
                claim_names = names | {p.name for p in claim.where} | {"expect"}
                self.text_spans(
                    claim_map, "claim", f"verify[{i}].claim", claim.text, claim_names, origins
                )

        if len(self.problems) > before or card_id is None or ctype is None or front is None:
            return None
        return Card(
            id=card_id,
            type=ctype,
            deck=card_deck,
            front=front,
            back=back,
            tags=tags,
            params=params,
            answer=answer,
            options=options,
            correct=correct,
            shuffle=shuffle,
            variables=variables,
            verify=claims,
            hint=hint,
            source=card_source,
            location=self.loc(pos),
            origins=origins,
            unproven=self.unproven,
            constraints=constraints,
            mistakes=mistakes,
        )

    def constraints(self, m: LMap, names: set[str]) -> tuple[Any, ...]:
        """``constraints:``, a list of comparisons over parameters, facts and constants."""
        from deck.constraints import ConstraintError, parse_constraint

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

    def result_names(self, comp: Computation) -> set[str]:
        if self.registry is None or comp.run not in self.registry:
            return set()
        return {f"result.{f.name}" for f in self.registry.get(comp.run).fields}

    def origin(self, container: LMap | LList, key: Any) -> TextOrigin:
        """Where the text value ``container[key]`` starts in the file, and how it is written."""
        marks = container.value_pos if isinstance(container, LMap) else None
        mark = dict.get(marks, key) if marks is not None else None
        if mark is None and isinstance(container, LList) and isinstance(key, int):
            mark = container.item_marks[key] if key < len(container.item_marks) else None
        if mark is None or not hasattr(mark, "index"):
            pos = container.where(key)
            return TextOrigin(pos.line, pos.col)
        return origin_at(self.source, mark.index, mark.line + 1, mark.column + 1)

    def text_spans(
        self,
        container: Any,
        key: Any,
        field: str,
        text: str | None,
        names: set[str],
        origins: dict[str, TextOrigin],
    ) -> None:
        """Record where ``text`` starts and report its malformed or unknown spans in place."""
        if not text or not isinstance(container, LMap | LList):
            return
        origin = self.origin(container, key)
        origins[field] = origin
        if "{" not in text:
            return
        for offset, message in span_problems(text, names):
            line, col = origin.locate(text, offset)
            self.report(Pos(line, col), field, message)

    def card_identity(self, m: LMap, index: int) -> str | None:
        if "id" not in m:
            self.card_id = f"#{index + 1}"
            self.report(m.pos, "id", "missing (required): every card needs a unique id")
            return None
        value = m["id"]
        if not isinstance(value, str):
            self.card_id = m.raw.get("id", ("", str(value)))[1]
            self.report(m.where("id"), "id", _type_message("text", value, m.raw.get("id")))
            return None
        if not ID_PATTERN.match(value):
            self.card_id = value
            fixed = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
            self.report(
                m.where("id"), "id", f"must be lowercase letters, digits and '-' (e.g. {fixed!r})"
            )
            return None
        return value

    def card_type(self, m: LMap) -> CardType | None:
        raw = self.text(m, "type", "type", required=True)
        if raw is None:
            return None
        try:
            return CardType(raw)
        except ValueError:
            names = [t.value for t in CardType]
            self.report(
                m.where("type"),
                "type",
                f"unknown type {raw!r}{suggest(raw, names)}; expected one of {', '.join(names)}",
            )
            return None

    def check_placeholders(
        self,
        m: LMap,
        field: str,
        text: str | None,
        names: set[str],
        *,
        allow_result: bool = False,
        pos: Pos | None = None,
    ) -> None:
        if not text:
            return
        for name in placeholders(text):
            if name in names or (allow_result and name.startswith("result.")):
                continue
            hint = suggest(name, names)
            what = (
                "no such parameter"
                if not name.startswith("result.")
                else "only cards with a computed answer have {result.…}"
            )
            self.report(pos or m.where(field), field, f"placeholder {{{name}}}: {what}{hint}")

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
            p = self.param(str(name), spec, raw.where(name), raw.key_pos.get(name), "params", known)
            if p is not None:
                out.append(p)
                known.add(p.name)
        return tuple(out)

    def param(
        self, name: str, spec: Any, pos: Pos, key_pos: Pos | None, prefix: str, known: set[str]
    ) -> ParamSpec | None:
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
            values.append(item)
        if not ok:
            return None
        return ParamSpec(name, choices=tuple(values), unit=unit, location=self.loc(pos))

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
    ) -> Any:
        """Parse a formula over ``known`` names; ``{param}`` placeholders of text parameters
        among ``specs`` (``{link}_latency``) are tried with each of their choices."""
        from deck.formula import FormulaError, parse

        expr = None
        for variant in placeholder_variants(text, specs):
            try:
                expr = parse(variant)
            except FormulaError as exc:
                self.report(pos, field, f"bad expression: {exc}")
                return None
            missing = sorted(expr.variables - known)
            if missing:
                own = sorted(known - self.constant_names)  # the card's names, not constants
                listing = f"; known: {', '.join(own) or 'none'}" if len(own) <= 12 else ""
                hint = suggest(missing[0], sorted(known))
                self.report(pos, field, f"unknown name(s) {', '.join(missing)}{hint}{listing}")
                return None
        return expr

    # ------------------------------------------------------------------ answers

    def tolerance(self, m: LMap, field: str, default: Tolerance) -> Tolerance:
        if "tolerance" not in m:
            return default
        value = m["tolerance"]
        pos = m.where("tolerance")
        if isinstance(value, str) and value.strip().endswith("%"):
            try:
                rel = float(value.strip()[:-1]) / 100
            except ValueError:
                self.report(pos, field, f"expected a percentage like 2%, found {value!r}")
                return default
            if rel < 0:
                self.report(pos, field, f"negative tolerance {value}")
                return default
            return Tolerance(rel=rel)
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
            return Tolerance(rel=rel, abs=abs_)
        number = self.number(value, pos, field, m.raw.get("tolerance"))
        if number is None:
            return default
        if number < 0:
            self.report(pos, field, f"negative tolerance {number:g}")
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
        expect = self.answer_expect(a, params)
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

    def answer_expect(self, a: LMap, params: Sequence[ParamSpec]) -> str | None:
        """``answer.expect``: the closed form the computed answer is held to."""
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
                known = {p.name for p in params} | self.constant_names
                if (
                    self.formula_vars(text, a.where("expect"), "answer.expect", known, params)
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
        options = self.str_list(m, "options", "options")
        if isinstance(m["options"], LList) and len(m["options"]) < 2:
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
                        str(name), spec, w.where(name), w.key_pos.get(name), f"{field}.where", known
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
            known |= self.constant_names
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
            expect_text = str(expect)
            textual_field = (
                comp is not None
                and self.registry is not None
                and (f := self.registry.get(comp.run).field_(comp.field)) is not None
                and f.dimension is units.Dim.TEXT
            )
            if vary:
                from deck.model import Scaling

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
                except units.UnitError:
                    if (
                        self.formula_vars(
                            expect, c.where("expect"), f"{field}.expect", known, scope
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
    if p.choices is not None:
        return len(p.choices)
    if p.formula is not None or p.range is None:
        return 1
    lo, hi = p.range
    if p.pow2:
        return len(_powers_of_two(lo, hi))
    step = p.step or 1
    return int((hi - lo) // step) + 1


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


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, LMap | dict):
        return "a mapping"
    if isinstance(value, LList | list):
        return "a list"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        short = value if len(value) <= 30 else value[:27] + "..."
        return f"text ({short!r})"
    return type(value).__name__


def _type_message(expected: str, value: Any, raw: tuple[str, str] | None) -> str:
    """'expected text, found a boolean (false)' plus the YAML 1.1 explanation when it applies."""
    message = f"expected {expected}, found {_describe(value)}"
    if raw is not None:
        tag, source = raw
        if tag.endswith(":bool") and source.lower() not in ("true", "false"):
            message += f": YAML reads {source} as a boolean; quote it ('{source}')"
        elif tag.endswith((":int", ":float")) and expected.startswith("text"):
            message += f": YAML reads {source} as a number; quote it ('{source}')"
        elif tag.endswith(":null") and expected.startswith("text"):
            message += "; write the value or quote it"
    elif isinstance(value, LMap) and expected.startswith("text") and len(value) == 1:
        message += ": text starting with '{' is a YAML mapping; quote the whole text"
    return message
