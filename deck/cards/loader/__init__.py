"""Loading and validating card files into a :class:`~deck.cards.model.Collection`.

Every problem of every file is reported, one line each (``PATH:LINE:COL: card 'ID':
field: what is wrong``), and every valid card is still returned. Executable names
and arguments are checked against a :class:`~deck.cards.registry.Registry` when one is
given, before anything runs.

The validator is built in layers, one module each: :mod:`deck.cards.loader.base` (keys,
reporting, typed access), :mod:`deck.cards.loader.params` (parameters and sweeps),
:mod:`deck.cards.loader.answers` (answers, executable calls, options),
:mod:`deck.cards.loader.claims` (claims, facts, constraints) and this module (files, cards,
text spans and where each text stands in its file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from deck.base.errors import Problem
from deck.base.forking import forked_map
from deck.base.textpos import TextOrigin, origin_at
from deck.cards.loader.base import (
    ALL_CARD_KEYS,
    CARD_FILE_SUFFIXES,
    COMMON_KEYS,
    FILE_KEYS,
    ID_PATTERN,
    TYPE_KEYS,
    UNPROVEN_POLICIES,
    _describe,
    _type_message,
)
from deck.cards.loader.claims import _ClaimsMixin
from deck.cards.model import (
    Card,
    CardType,
    Claim,
    Collection,
    Computation,
    Location,
    ParamSpec,
    Variable,
)
from deck.cards.placeholders import placeholders
from deck.cards.registry import Registry, suggest
from deck.cards.spancheck import span_problems
from deck.cards.unitwords import repeated_units
from deck.cards.yamlsource import LList, LMap, Pos, parse_yaml, read_text


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
    jobs: int = 1,
    overrides: Path | None = None,
) -> Collection:
    """Load every card file under ``paths``; never raises for bad content.

    ``display_root`` shortens paths in messages; ``on_file(i, n, path)`` reports progress.
    A card in a file under ``overrides`` (the user's card folder) whose id an earlier file
    outside it defined (a built-in card the user edited) takes that card's place instead
    of being a duplicate; the review schedule, keyed on the id, follows it.
    With ``jobs`` > 1 the files are parsed and validated in that many forked processes
    (see :mod:`deck.base.forking`); the collection is the same, in the same order.
    """
    files = card_files(paths)

    def load_one(path: Path) -> tuple[list[Card], list[Problem]]:
        display = _display(path, display_root)
        if not path.exists():
            return [], [Problem(display, 0, 0, "no such file or folder")]
        return load_file(path, registry, display=display)

    def progress(done: int, total: int, index: int) -> None:
        if on_file is not None:
            on_file(done, total, files[index])

    workers = min(jobs, len(files) // MIN_FILES_PER_JOB)
    loaded = forked_map(load_one, files, workers, on_result=progress)
    cards: list[Card] = []
    problems: list[Problem] = []
    seen: dict[str, Location] = {}
    position: dict[str, int] = {}
    overriding = overrides.resolve() if overrides is not None else None
    for file, (file_cards, file_problems) in zip(files, loaded, strict=True):
        problems.extend(file_problems)
        mine = overriding is not None and file.resolve().is_relative_to(overriding)
        for card in file_cards:
            first = seen.get(card.id)
            if first is not None and mine and card.id in position:
                cards[position.pop(card.id)] = card  # a user's copy of a built-in card
                continue
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
            if not mine:
                position[card.id] = len(cards)
            cards.append(card)
    return Collection(tuple(cards), tuple(problems), tuple(str(f) for f in files))


MIN_FILES_PER_JOB = 4  # fewer files load faster in one process than a worker starts


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


class _FileValidator(_ClaimsMixin):
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
        if "interviews" in data and "cards" not in data:
            return [], []  # an interview script file: deck.interview.loader reads those
        self.unknown_keys(data, FILE_KEYS, "", " at file level")
        deck = self.deck_name(data, "default")
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
        card_deck = self.deck_name(m, deck)
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
        raw_params = m["params"] if isinstance(m.get("params"), LMap) else {}
        declared = {k for k in raw_params if isinstance(k, str)}  # 1: or null: is no name

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
        from deck.cards.loader.mistakes import read_mistakes

        known = {v.name for v in variables} if ctype is CardType.FORMULA else param_names
        mistakes = read_mistakes(self, m, ctype, known, len(options), correct)
        from deck.cards.loader.keypoints import read_points

        key_points, bonus_points = read_points(self, m, back)

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
            self.unit_repeats(container, key, field, text_value, params)
        for i, opt in enumerate(options):
            self.check_placeholders(m, f"options[{i}]", opt, names, pos=m["options"].where(i))
            self.text_spans(m["options"], i, f"options[{i}]", opt, names | {"answer"}, origins)
            self.unit_repeats(m["options"], i, f"options[{i}]", opt, params)
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
            key_points=key_points,
            bonus_points=bonus_points,
        )

    def deck_name(self, m: LMap, default: str) -> str:
        """``deck:`` of a file or a card: a slug, since it names files on export."""
        deck = self.text(m, "deck", "deck") or default
        if "deck" in m and isinstance(m["deck"], str) and not ID_PATTERN.match(deck):
            fixed = re.sub(r"[^a-z0-9]+", "-", deck.lower()).strip("-")[:60] or "default"
            self.report(
                m.where("deck"),
                "deck",
                f"deck name {deck[:60]!r} must be lowercase letters, digits and '-' "
                f"(e.g. {fixed!r})",
            )
            return default  # never a name that could lead an export out of its folder
        return deck

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

    def unit_repeats(
        self, container: Any, key: Any, field: str, text: str | None, params: Sequence[ParamSpec]
    ) -> None:
        """Report each ``{param}`` the text follows with the unit it already shows."""
        if not text or "{" not in text or not isinstance(container, LMap | LList):
            return
        origin = self.origin(container, key)
        for offset, message in repeated_units(text, params):
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
            if (
                name in names
                or name in self.constant_names
                or (allow_result and name.startswith("result."))
            ):
                continue
            hint = suggest(name, names | self.constant_names)  # a misspelt constant too
            what = (
                "no such parameter"
                if not name.startswith("result.")
                else "only cards with a computed answer have {result.…}"
            )
            self.report(pos or m.where(field), field, f"placeholder {{{name}}}: {what}{hint}")
