"""Reading the published figures of ``quizcoll/data/*.yaml`` as declared constants.

Each data file is ``figures:``, a list of records ``{name, printed, dimension, unit, source,
quote}``: ``printed`` is the figure as its source prints it, in ``unit`` (``6.6`` µs), and
the constant's value is that figure in base units. ``quote``, where given, is the source's
own text (a line of NCCL's ``tuning.cc``), a second record of the figure that ``check``
holds the value to (:mod:`deck.proving.provenance`). Each record remembers its
``PATH:LINE``. The calculators are never imported here: the constants check their code.

A file may also hold ``tables:``, a source's table typed once with its quote: ``{name,
dimension, unit, columns, printed: {ROW: [cells] | cell}, source, quote}``. Each cell is a
constant of its own, ``NAME_ROW_COLUMN`` (``nccl_nvlink_tree_LL``; ``NAME_ROW_I`` without
``columns``, ``NAME_ROW`` for a one-cell row), held by position to the numbers the quote
lists (:func:`deck.proving.provenance.listed_numbers`): the quote must list exactly as many
numbers as the table has cells, in row order.

The files are package data, read through a size cap; a malformed record is a programming
error of the distribution and raises :class:`DataError` naming the file, line and field.
"""

from __future__ import annotations

import functools
import math
from importlib import resources

from deck import units
from deck.cards.registry import Constant
from deck.cards.yamlsource import LList, LMap, parse_yaml
from deck.proving.provenance import listed_numbers

_PACKAGE, _FOLDER = "quizcoll", "data"
MAX_DATA_BYTES = 1024 * 1024
_KEYS = frozenset({"name", "printed", "dimension", "unit", "source", "quote"})
_TABLE_KEYS = _KEYS | {"columns", "what"}
_DIMS = {d.value: d for d in units.Dim if d is not units.Dim.TEXT}


class DataError(ValueError):
    """A record of a shipped data file that does not parse."""


def data_path(name: str) -> str:
    """The display path of data file ``name`` (``quizcoll/data/nccl.yaml``)."""
    return f"{_PACKAGE}/{_FOLDER}/{name}.yaml"


def _scale(unit: str, dim: units.Dim) -> float:
    if not unit:
        return 1.0
    try:
        u = units.lookup_unit(unit)
    except units.UnitError:
        return 1.0  # a label (``TFLOP/s``): the figure is in base units
    return u.factor if u.dim is dim else 1.0


@functools.cache
def figures(name: str) -> tuple[Constant, ...]:
    """The constants of data file ``name``, in file order (a file's tables after its figures)."""
    path = data_path(name)
    raw = resources.files(_PACKAGE).joinpath(_FOLDER, f"{name}.yaml").read_bytes()
    if len(raw) > MAX_DATA_BYTES:
        raise DataError(f"{path}: larger than {MAX_DATA_BYTES:,} bytes")
    return parse_figures(raw.decode("utf-8"), path)


def parse_figures(text: str, path: str) -> tuple[Constant, ...]:
    """The constants of a data file's ``text``, read as ``path`` (which errors name)."""
    data, problem = parse_yaml(text, path)
    if problem is not None:
        raise DataError(problem.format())
    if not isinstance(data, LMap) or not isinstance(data.get("figures"), LList):
        raise DataError(f"{path}: expected a mapping with a 'figures' list")
    items = data["figures"]
    out = [_record(path, items.where(i).line, r) for i, r in enumerate(items)]
    tables = data.get("tables", LList(None))
    if not isinstance(tables, LList):
        raise DataError(f"{path}: tables: expected a list of tables")
    for i, t in enumerate(tables):
        out += _table(path, tables.where(i).line, t)
    return tuple(out)


def _mapping(where: str, what: str, r: object, keys: frozenset[str]) -> LMap:
    """``r`` as a record of known keys, or the one-line error that names its place."""
    if not isinstance(r, LMap):
        raise DataError(f"{where}: expected a {what} mapping")
    extra = sorted(set(r) - keys)
    if extra:
        raise DataError(f"{where}: unknown key(s) {', '.join(map(str, extra))}")
    return r


def _number(where: str, field: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise DataError(f"{where}: {field}: expected a number")
    if not math.isfinite(v) or abs(v) > 1e30:
        raise DataError(f"{where}: {field}: not a finite number in ±1e30")
    return float(v)


def _record(path: str, line: int, record: object) -> Constant:
    where = f"{path}:{line}"
    r = _mapping(where, "figure", record, _KEYS)
    name, dim = r.get("name"), _DIMS.get(str(r.get("dimension")))
    source, unit, quote = r.get("source"), r.get("unit", ""), r.get("quote", "")
    if not isinstance(name, str) or not name:
        raise DataError(f"{where}: name: expected a name")
    printed = _number(where, f"{name}: printed", r.get("printed"))
    if dim is None:
        raise DataError(f"{where}: {name}: dimension: one of {', '.join(_DIMS)}")
    if not isinstance(source, str) or not source.strip():
        raise DataError(f"{where}: {name}: source: every figure says where it comes from")
    if not isinstance(unit, str) or not isinstance(quote, str):
        raise DataError(f"{where}: {name}: unit and quote are text")
    value = printed * _scale(unit, dim)
    return Constant(name, value, dim, source, unit, quote=quote, where=where)


def _table(path: str, line: int, table: object) -> list[Constant]:
    """The cells of one table, each a constant held to its place in the table's quote."""
    where = f"{path}:{line}"
    t = _mapping(where, "table", table, _TABLE_KEYS)
    name, dim, rows = t.get("name"), _DIMS.get(str(t.get("dimension"))), t.get("printed")
    source, unit, quote = t.get("source"), t.get("unit", ""), t.get("quote")
    columns = t.get("columns", [])
    if not isinstance(name, str) or not name.isidentifier():
        raise DataError(f"{where}: name: expected a name")
    if dim is None:
        raise DataError(f"{where}: {name}: dimension: one of {', '.join(_DIMS)}")
    if not isinstance(source, str) or not source.strip():
        raise DataError(f"{where}: {name}: source: every table says where it comes from")
    if not isinstance(quote, str) or not quote.strip():
        raise DataError(f"{where}: {name}: quote: a table is held to its source's text")
    if not isinstance(unit, str):
        raise DataError(f"{where}: {name}: unit: expected text")
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise DataError(f"{where}: {name}: columns: expected a list of names")
    if not isinstance(rows, LMap) or not rows:
        raise DataError(f"{where}: {name}: printed: expected a mapping of rows")
    scale = _scale(unit, dim)
    out: list[Constant] = []
    for row, cells in rows.items():
        at = f"{path}:{rows.where(row).line}"
        field = f"{name}: printed: {row}"
        values = cells if isinstance(cells, list) else [cells]
        if columns and len(values) != len(columns):
            raise DataError(f"{at}: {field}: expected {len(columns)} cells ({', '.join(columns)})")
        for i, v in enumerate(values):
            label = columns[i] if columns else (str(i) if isinstance(cells, list) else "")
            cell = f"{name}_{row}_{label}" if label else f"{name}_{row}"
            value = _number(at, field, v) * scale
            out.append(
                Constant(
                    cell, value, dim, source, unit, quote=quote, where=at, quote_index=len(out)
                )
            )
    listed = len(listed_numbers(quote))
    if listed != len(out):
        raise DataError(f"{where}: {name}: quote lists {listed} numbers for {len(out)} cells")
    return out
