"""Safe YAML reading that keeps line numbers.

The file is parsed by PyYAML's C parser (``CSafeLoader``'s composer) into nodes, and
the nodes are turned into plain values here, so that every mapping remembers where
each of its keys and values was written. Nothing but plain YAML data is ever built:
Python tags are refused before anything is constructed, alias expansion is
budgeted (no billion laughs), and oversized files or values are refused early.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import yaml

from deck.base.errors import Problem
from deck.base.safeio import PathError, read_bytes

try:  # the C parser; the pure-Python one is a fallback for exotic installs only
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_ScalarNode = yaml.ScalarNode
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_SCALAR_CHARS = 64 * 1024
MAX_INT_DIGITS = 40  # beyond any card number (±1e30); Python refuses ints past 4,300 digits
ALIAS_BUDGET_FACTOR = 4  # constructed values may exceed the file's nodes this many times

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


class Pos(NamedTuple):
    """1-based line and column of a value in its file."""

    line: int
    col: int


def _mark_pos(mark: Any) -> Pos:
    return Pos(mark.line + 1, mark.column + 1)


class _Marks(dict):  # type: ignore[type-arg]
    """Parser marks kept as they are; turned into a :class:`Pos` only when asked (errors are rare)."""

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        mark = dict.get(self, key)
        return default if mark is None else _mark_pos(mark)

    def __getitem__(self, key: Any) -> Pos:
        return _mark_pos(dict.__getitem__(self, key))


class LMap(dict):  # type: ignore[type-arg]
    """A mapping that knows where it, its keys and its values were written."""

    __slots__ = ("_mark", "key_pos", "raw", "value_pos")

    def __init__(self, mark: Any) -> None:
        super().__init__()
        self._mark = mark
        self.key_pos = _Marks()
        self.value_pos = _Marks()
        self.raw: dict[Any, tuple[str, str]] = {}  # key -> (tag, source text) of scalar values

    @property
    def pos(self) -> Pos:
        return self._mark if isinstance(self._mark, Pos) else _mark_pos(self._mark)

    def where(self, key: Any) -> Pos:
        return self.value_pos.get(key) or self.key_pos.get(key) or self.pos


class LList(list):  # type: ignore[type-arg]
    """A sequence that knows where it and each item were written."""

    __slots__ = ("_mark", "item_marks", "raw")

    def __init__(self, mark: Any) -> None:
        super().__init__()
        self._mark = mark
        self.item_marks: list[Any] = []
        self.raw: list[tuple[str, str] | None] = []

    @property
    def pos(self) -> Pos:
        return self._mark if isinstance(self._mark, Pos) else _mark_pos(self._mark)

    def where(self, index: int) -> Pos:
        if 0 <= index < len(self.item_marks):
            return _mark_pos(self.item_marks[index])
        return self.pos


class _Abort(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def _pos(node: yaml.Node) -> Pos:
    return _mark_pos(node.start_mark)


class _Builder:
    """Turns a composed node graph into LMap/LList/scalars, refusing anything unsafe."""

    def __init__(self, path: str, budget: int) -> None:
        self.path = path
        self.budget = budget
        self.built = 0

    def fail(self, node: yaml.Node, message: str) -> _Abort:
        p = _pos(node)
        return _Abort(Problem(self.path, p.line, p.col, message))

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if len(text) > MAX_SCALAR_CHARS:
            raise self.fail(
                node,
                f"a value of {len(text):,} characters is too long (limit {MAX_SCALAR_CHARS:,})",
            )
        if tag == _STR:
            return text
        if tag == _INT:
            if sum(ch.isalnum() for ch in text) > MAX_INT_DIGITS:
                raise self.fail(
                    node,
                    f"a whole number of {len(text):,} digits is out of range "
                    "(card numbers are limited to ±1e30)",
                )
            return _int(text)
        if tag == _FLOAT:
            return _float(text)
        if tag == _BOOL:
            return text.lower() in ("yes", "true", "on", "y")
        if tag == _NULL:
            return None
        if tag == _TIMESTAMP:
            return text  # dates are kept as written; no card field takes a date
        raise self.fail(node, _tag_message(tag))

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        self.built += 1
        if self.built > self.budget:
            raise self.fail(node, "too many values after expanding aliases (an alias bomb?)")
        if depth > 64:
            raise self.fail(node, "nesting deeper than 64 levels")
        kind = type(node)
        if kind is _ScalarNode:
            return self.scalar(node)
        if kind is yaml.SequenceNode:
            if node.tag != _SEQ:
                raise self.fail(node, _tag_message(node.tag))
            out = LList(node.start_mark)
            for item in node.value:
                out.append(self.build(item, depth + 1))
                out.item_marks.append(item.start_mark)
                out.raw.append((item.tag, item.value) if type(item) is _ScalarNode else None)
            return out
        if kind is yaml.MappingNode:
            if node.tag != _MAP:
                raise self.fail(node, _tag_message(node.tag))
            out_map = LMap(node.start_mark)
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    raise self.fail(key_node, "merge keys (<<) are not supported in card files")
                if not isinstance(key_node, yaml.ScalarNode):
                    raise self.fail(key_node, "a mapping key must be a plain value")
                key = self.scalar(key_node)
                if key in out_map:
                    raise self.fail(key_node, f"key {key!r} appears twice in this mapping")
                out_map[key] = self.build(value_node, depth + 1)
                dict.__setitem__(out_map.key_pos, key, key_node.start_mark)
                dict.__setitem__(out_map.value_pos, key, value_node.start_mark)
                if type(value_node) is _ScalarNode:
                    out_map.raw[key] = (value_node.tag, value_node.value)
            return out_map
        raise self.fail(node, "unsupported YAML node")  # pragma: no cover


def _tag_message(tag: str) -> str:
    if "python/" in tag:
        return f"the tag {tag.replace('tag:yaml.org,2002:', '!!')} is refused: card files are data, never code"
    return f"the tag {tag.replace('tag:yaml.org,2002:', '!!')} is not allowed in card files"


def _int(text: str) -> int | float:
    t = text.replace("_", "")
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if t.startswith("0x"):
        return sign * int(t[2:], 16)
    if t.startswith("0o"):
        return sign * int(t[2:], 8)
    if t.startswith("0b"):
        return sign * int(t[2:], 2)
    if ":" in t:  # YAML 1.1 sexagesimal: 1:30 == 90
        value = 0
        for part in t.split(":"):
            value = value * 60 + int(part)
        return sign * value
    if len(t) > 1 and t.startswith("0"):
        return sign * int(t, 8)
    return sign * int(t)


def _float(text: str) -> float:
    t = text.replace("_", "").lower()
    if t in (".inf", "+.inf"):
        return float("inf")
    if t == "-.inf":
        return float("-inf")
    if t == ".nan":
        return float("nan")
    if ":" in t:
        sign = -1.0 if t.startswith("-") else 1.0
        value = 0.0
        for part in t.lstrip("+-").split(":"):
            value = value * 60 + float(part)
        return sign * value
    return float(t)


def _syntax_problem(path: str, exc: yaml.YAMLError, source: str) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = problem
    at = source[mark.index] if mark is not None and 0 <= mark.index < len(source) else ""
    if at == "\t" or "\\t" in problem:
        text = "a tab character: YAML indentation must use spaces"
    elif context and "quoted scalar" in context:
        text = f"{problem} (an unclosed quote?)"
    elif context:
        text = f"{problem} ({context})"
    line = mark.line + 1 if mark else 0
    col = mark.column + 1 if mark else 0
    return Problem(path, line, col, f"YAML syntax: {text}")


def read_text(path: Path, display: str) -> tuple[str | None, Problem | None]:
    """Read a card file as UTF-8 text, or say in one line why it cannot be."""
    try:
        # a regular file only, with a byte cap: a FIFO or /dev/zero is refused at once
        data = read_bytes(path, limit=MAX_FILE_BYTES, what="card file")
    except PathError as exc:
        message = str(exc)
        if message.startswith(f"{path}: "):
            message = message[len(f"{path}: ") :]
        return None, Problem(display, 0, 0, message)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, Problem(display, 0, 0, "UTF-16 text: save the file as UTF-8")
    if b"\x00" in data[:8192]:
        return None, Problem(display, 0, 0, "this is a binary file, not YAML text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, Problem(
            display,
            line,
            col,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
        )
    return text, None


def parse_yaml(text: str, path: str) -> tuple[Any, Problem | None]:
    """Parse one YAML document; return (data, None) or (None, problem)."""
    if not text.strip() or all(
        not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()
    ):
        return None, Problem(path, 0, 0, "file is empty: expected a mapping with a 'cards:' list")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.YAMLError as exc:
        return None, _syntax_problem(path, exc, text)
    except RecursionError:
        return None, Problem(path, 0, 0, "YAML nesting is too deep")
    finally:
        loader.dispose()
    if node is None:
        return None, Problem(path, 0, 0, "file is empty: expected a mapping with a 'cards:' list")
    builder = _Builder(path, budget=ALIAS_BUDGET_FACTOR * (text.count("\n") + 1) * 4 + 10_000)
    try:
        return builder.build(node), None
    except _Abort as abort:
        return None, abort.problem
    except (ValueError, OverflowError) as exc:
        return None, Problem(path, 0, 0, f"bad value: {exc}")
