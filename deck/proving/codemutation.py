"""Single mutants of an application's code and data: where they go, and what they change.

The card mutations of :mod:`deck.proving.mutation` edit the YAML; these edit what the
proofs are meant to hold to the world — the source of the calculators and simulators
(numbers, arithmetic operators, comparisons) and the data tables of published figures
(numbers of YAML ``printed:`` records and of the rows of a table's ``printed:`` block,
numbers of JSON configs). A mutant is one edit of
one token, described by the file, the span it replaces and the replacement text, so it can
be applied to a copy of the tree and undone byte for byte.

Operators, each a separate mutant:

- a number ``v``: ``2v``, ``1.1v`` (an int rounds, and moves by at least one), ``v + 1``,
  ``v - 1`` (a zero only gets the last two; ``True``/``False`` are not numbers);
- an arithmetic operator: ``+ ↔ -``, ``* ↔ /``, ``// → /``, ``** → *``, ``% → //``;
- a comparison: ``< ↔ <=``, ``> ↔ >=``, ``== ↔ !=``.

Docstrings, f-string parts and annotations are not mutated (they hold no arithmetic a
result depends on). Nothing here runs the mutants; an application's bench does (see
``bench/bench_code_mutation.py``), in a process per mutant.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_SOURCE_BYTES = 2 * 1024 * 1024

_BINOPS: dict[type[ast.operator], tuple[str, str]] = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "/"),
    ast.Pow: ("**", "*"),
    ast.Mod: ("%", "//"),
}
_CMPOPS: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
}
# A YAML record's figure (``printed: 6.6``) and a JSON config's number (``"n_layer": 12``).
_YAML_NUMBER = re.compile(r"^(\s*(?:-\s+)?printed:\s*)(-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")
# A table's ``printed:`` block opens a mapping of rows, each a number or a flow list of them.
_YAML_BLOCK = re.compile(r"^(\s*)printed:\s*$")
_YAML_ROW = re.compile(r"^(\s+)[\w-]+:\s*(\[[^\]#]*\]|-?\d[\d_.eE+-]*)\s*$")
_YAML_CELL = re.compile(r"-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_JSON_NUMBER = re.compile(r'^(\s*"\w+":\s*)(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(,?)\s*$')


@dataclass(frozen=True, order=True)
class Mutant:
    """One edit: in ``path`` (relative to the tree), replace ``old`` at line ``line``,
    columns ``[col, end)`` (0-based, in characters) with ``new``."""

    path: str
    line: int
    col: int
    end: int
    old: str
    new: str
    kind: str  # "number", "operator", "comparison", "data"

    def describe(self) -> str:
        return f"{self.path}:{self.line}:{self.col + 1}: {self.old} → {self.new} ({self.kind})"

    def apply(self, text: str) -> str:
        """``text`` with this edit made; raises ValueError if the span no longer holds ``old``."""
        lines = text.splitlines(keepends=True)
        if not 0 < self.line <= len(lines):
            raise ValueError(f"{self.describe()}: no such line")
        row = lines[self.line - 1]
        if row[self.col : self.end] != self.old:
            raise ValueError(f"{self.describe()}: the source changed")
        lines[self.line - 1] = row[: self.col] + self.new + row[self.end :]
        return "".join(lines)


def number_variants(text: str) -> list[str]:
    """The replacement texts of the number written ``text`` (``"3"`` → 6, 4, 2; ``"0.92"`` →
    1.84, 1.012, 1.92, -0.08), without duplicates or no-ops."""
    clean = text.replace("_", "")
    is_int = re.fullmatch(r"-?\d+", clean) is not None
    value: float = int(clean) if is_int else float(clean)
    out: list[str] = []
    if value != 0:
        if is_int:
            out.append(str(int(value) * 2))
            scaled = round(value * 1.1)
            out.append(str(scaled if scaled != value else int(value) + (1 if value > 0 else -1)))
        else:
            out += [repr(value * 2), repr(value * 1.1)]
    if is_int:
        out += [str(int(value) + 1), str(int(value) - 1)]
    else:
        out += [repr(value + 1), repr(value - 1)]
    seen: list[str] = []
    for v in out:
        if v != clean and v not in seen:
            seen.append(v)
    return seen


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes not to mutate: docstrings, annotations, f-strings' insides."""
    skip: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.arg):
            drop(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            drop(node.returns)
        elif isinstance(node, ast.JoinedStr):
            drop(node)
    return skip


def python_mutants(path: str, source: str) -> list[Mutant]:
    """Every mutant of one Python module's numbers, operators and comparisons."""
    tree = ast.parse(source)
    lines = source.splitlines()
    skip = _skipped_nodes(tree)
    out: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if (
            isinstance(node, ast.Constant)
            and type(node.value) in (int, float)
            and node.lineno == node.end_lineno
        ):
            text = lines[node.lineno - 1][node.col_offset : node.end_col_offset]
            if not re.fullmatch(r"[\d_.eE+-]+", text):
                continue  # hex, complex or an odd spelling: left alone
            out += [
                Mutant(path, node.lineno, node.col_offset, node.end_col_offset, text, v, "number")
                for v in number_variants(text)
            ]
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            old, new = _BINOPS[type(node.op)]
            m = _between(lines, node.left, node.right, old, path, new, "operator")
            if m is not None:
                out.append(m)
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                if type(op) in _CMPOPS:
                    old, new = _CMPOPS[type(op)]
                    m = _between(lines, left, right, old, path, new, "comparison")
                    if m is not None:
                        out.append(m)
                left = right
    return sorted(out)


def _between(
    lines: Sequence[str], left: ast.AST, right: ast.AST, symbol: str, path: str, new: str, kind: str
) -> Mutant | None:
    """The mutant replacing the operator written between two operands on one line."""
    line, start = left.end_lineno, left.end_col_offset  # type: ignore[attr-defined]
    if line != right.lineno:  # type: ignore[attr-defined]
        return None  # an operator across lines: rare in the calculators, left alone
    gap = lines[line - 1][start : right.col_offset]  # type: ignore[attr-defined]
    # The symbol itself, not a longer one (``*`` inside ``**``, ``/`` inside ``//``).
    m = re.search(rf"(?<![*/<>=!]){re.escape(symbol)}(?![*/=])", gap)
    if m is None:
        return None
    col = start + m.start()
    return Mutant(path, line, col, col + len(symbol), symbol, new, kind)


def _cells(path: str, number: int, row: str, start: int) -> list[Mutant]:
    """The mutants of every number written in ``row`` from column ``start`` on."""
    return [
        Mutant(path, number, start + c.start(), start + c.end(), c.group(0), v, "data")
        for c in _YAML_CELL.finditer(row[start:])
        for v in number_variants(c.group(0))
    ]


def _yaml_mutants(path: str, text: str) -> list[Mutant]:
    out: list[Mutant] = []
    block: int | None = None  # the indent of an open ``printed:`` block of table rows
    for number, row in enumerate(text.splitlines(), start=1):
        if block is not None:
            m = _YAML_ROW.match(row)
            if m is not None and len(m.group(1)) > block:
                out += _cells(path, number, row, m.start(2))
                continue
            block = None
        opened = _YAML_BLOCK.match(row)
        if opened is not None:
            block = len(opened.group(1))
            continue
        m = _YAML_NUMBER.match(row)
        if m is not None:
            out += _cells(path, number, row, m.start(2))
    return out


def data_mutants(path: str, text: str) -> list[Mutant]:
    """Every mutant of a data table's figures: YAML ``printed:`` records and table rows, JSON
    numbers."""
    if path.endswith((".yaml", ".yml")):
        return _yaml_mutants(path, text)
    out: list[Mutant] = []
    for number, row in enumerate(text.splitlines(), start=1):
        m = _JSON_NUMBER.match(row)
        if m is None:
            continue
        col, end = m.start(2), m.end(2)
        out += [
            Mutant(path, number, col, end, m.group(2), v, "data")
            for v in number_variants(m.group(2))
        ]
    return out


def tree_mutants(root: Path, sources: Iterable[str], data: Iterable[str] = ()) -> list[Mutant]:
    """The mutants of the Python files under the folders ``sources`` and of the data files
    matching the globs ``data`` (paths relative to ``root``), in a stable order."""
    out: list[Mutant] = []
    for folder in sources:
        for path in sorted((root / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            text = _read(path)
            out += python_mutants(path.relative_to(root).as_posix(), text)
    for pattern in data:
        for path in sorted(root.glob(pattern)):
            out += data_mutants(path.relative_to(root).as_posix(), _read(path))
    return out


def _read(path: Path) -> str:
    raw = path.read_bytes()
    if len(raw) > MAX_SOURCE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_SOURCE_BYTES:,} bytes")
    return raw.decode("utf-8")


def sample(mutants: Sequence[Mutant], size: int, seed: int) -> list[Mutant]:
    """A fixed random sample of ``size`` mutants at distinct sites (one operator per site),
    the same for the same mutants and seed."""
    by_site: dict[tuple[str, int, int], list[Mutant]] = {}
    for m in mutants:
        by_site.setdefault((m.path, m.line, m.col), []).append(m)
    rng = random.Random(seed)
    sites = sorted(by_site)
    chosen = rng.sample(sites, min(size, len(sites)))
    return sorted(rng.choice(by_site[s]) for s in chosen)
