"""Published figures the calculators compute with, read from ``quizcoll/data/*.yaml``.

A table a source publishes (PyTorch's caching-allocator sizes, ggml's block layouts, NCCL's
tuner constants, PCIe's line codes) lives once, in its data file, with the source's own
text as ``quote``; ``quizcoll check`` holds each ``printed`` to its quote. The calculators
read the figure from there instead of keeping a copy, so a wrong figure is a wrong record
that ``check`` names, not a second copy that agrees with nothing. (The calculators may not
import the engine's reader in ``quizcoll.constants``; this is the few lines they need, for
every calculator package: ``memory`` is the layer the others stand on.)

- :func:`figure`: one record's value in base units (bytes, counts): ``printed`` times its
  byte unit (``20`` MiB is 20,971,520); :func:`whole` for one that must be whole;
- :func:`printed`: one record's figure as the source prints it, in the unit the caller
  computes in (NCCL's µs and GB/s), which the record must declare;
- :func:`table`: the rows of one of a file's ``tables:``, as the source prints them.

A missing file, record, unit or row is a programming error of the distribution and raises
:class:`DataFileError` naming it.
"""

from __future__ import annotations

import functools
import math
from importlib import resources

import yaml

# PyYAML's C parser where the install has it (the pure-Python one is 10x slower here).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_PACKAGE, _FOLDER = "quizcoll", "data"
MAX_DATA_BYTES = 1024 * 1024
# The display units the calculators' tables use, in base units.
_UNITS: dict[str, int] = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


class DataFileError(ValueError):
    """A shipped data file, or a record of it, that is missing or malformed."""


@functools.cache
def _document(name: str) -> dict:
    path = f"{_PACKAGE}/{_FOLDER}/{name}.yaml"
    try:
        raw = resources.files(_PACKAGE).joinpath(_FOLDER, f"{name}.yaml").read_bytes()
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read: {exc}") from None
    if len(raw) > MAX_DATA_BYTES:
        raise DataFileError(f"{path}: larger than {MAX_DATA_BYTES:,} bytes")
    doc = yaml.load(raw.decode("utf-8"), Loader=_LOADER)
    if not isinstance(doc, dict) or not isinstance(doc.get("figures"), list):
        raise DataFileError(f"{path}: expected a mapping with a 'figures' list")
    return doc


@functools.cache
def _named(name: str, key: str) -> dict[str, dict]:
    items = _document(name).get(key) or []
    return {r["name"]: r for r in items if isinstance(r, dict) and "name" in r}


def _records(name: str) -> dict[str, dict]:
    return _named(name, "figures")


def _record(name: str, record: str) -> tuple[dict, str]:
    """Record ``record`` of data file ``name``, and the place errors about it name."""
    where = f"{_PACKAGE}/{_FOLDER}/{name}.yaml: {record}"
    r = _records(name).get(record)
    if r is None:
        raise DataFileError(f"{where}: no such record")
    return r, where


def _finite(where: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise DataFileError(f"{where}: expected a finite number, not {v!r}")
    return float(v)


def _in_unit(name: str, kind: str, r: dict, unit: str) -> None:
    if r.get("unit", "") != unit:
        found = r.get("unit", "")
        raise DataFileError(
            f"{_PACKAGE}/{_FOLDER}/{name}.yaml: {kind} {r['name']}: in {found!r}, not {unit!r}"
        )


def printed(name: str, record: str, unit: str = "") -> float:
    """The figure of ``record`` of data file ``name`` as its source prints it, in ``unit``
    (the record must declare that unit: a calculator never guesses a scale)."""
    r, where = _record(name, record)
    _in_unit(name, "record", r, unit)
    return _finite(f"{where}: printed", r.get("printed"))


def table(name: str, table_name: str, unit: str = "") -> dict[str, tuple[float, ...]]:
    """The rows of table ``table_name`` of data file ``name``, as its source prints them
    (in ``unit``, which the table must declare); a one-cell row is a 1-tuple."""
    t = _named(name, "tables").get(table_name)
    where = f"{_PACKAGE}/{_FOLDER}/{name}.yaml: table {table_name}"
    if t is None or not isinstance(t.get("printed"), dict):
        raise DataFileError(f"{where}: no such table")
    _in_unit(name, "table", t, unit)
    rows: dict[str, tuple[float, ...]] = {}
    for row, cells in t["printed"].items():
        values = cells if isinstance(cells, list) else [cells]
        rows[str(row)] = tuple(_finite(f"{where}: {row}", v) for v in values)
    return rows


def figure(name: str, record: str) -> float:
    """The value of ``record`` of data file ``name`` in base units (bytes, counts)."""
    r, where = _record(name, record)
    unit = r.get("unit", "")
    if unit not in _UNITS:
        raise DataFileError(f"{where}: unit {unit!r} is not one of {', '.join(_UNITS)}")
    value = _finite(f"{where}: printed", r.get("printed")) * _UNITS[unit]
    if not math.isfinite(value):
        raise DataFileError(f"{where}: printed: not a finite number")
    return value


def whole(name: str, record: str) -> int:
    """:func:`figure` for a figure that is a whole number (a size in bytes, a block size)."""
    value = figure(name, record)
    if value != int(value):
        raise DataFileError(f"{_PACKAGE}/{_FOLDER}/{name}.yaml: {record}: not a whole number")
    return int(value)
