"""Reading the published figures of ``quizcoll/data/*.yaml`` as declared constants.

Each data file is ``figures:``, a list of records ``{name, printed, dimension, unit, source,
quote}``: ``printed`` is the figure as its source prints it, in ``unit`` (``6.6`` µs), and
the constant's value is that figure in base units. ``quote``, where given, is the source's
own text (a line of NCCL's ``tuning.cc``), a second record of the figure that ``check``
holds the value to (:mod:`deck.proving.provenance`). Each record remembers its
``PATH:LINE``. The calculators are never imported here: the constants check their code.

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

_PACKAGE, _FOLDER = "quizcoll", "data"
MAX_DATA_BYTES = 1024 * 1024
_KEYS = frozenset({"name", "printed", "dimension", "unit", "source", "quote"})
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
    """The constants of data file ``name``, in file order."""
    path = data_path(name)
    raw = resources.files(_PACKAGE).joinpath(_FOLDER, f"{name}.yaml").read_bytes()
    if len(raw) > MAX_DATA_BYTES:
        raise DataError(f"{path}: larger than {MAX_DATA_BYTES:,} bytes")
    data, problem = parse_yaml(raw.decode("utf-8"), path)
    if problem is not None:
        raise DataError(problem.format())
    if not isinstance(data, LMap) or not isinstance(data.get("figures"), LList):
        raise DataError(f"{path}: expected a mapping with a 'figures' list")
    items = data["figures"]
    return tuple(_record(path, items.where(i).line, r) for i, r in enumerate(items))


def _record(path: str, line: int, r: object) -> Constant:
    where = f"{path}:{line}"
    if not isinstance(r, LMap):
        raise DataError(f"{where}: expected a figure mapping")
    extra = sorted(set(r) - _KEYS)
    if extra:
        raise DataError(f"{where}: unknown key(s) {', '.join(map(str, extra))}")
    name, printed, dim = r.get("name"), r.get("printed"), _DIMS.get(str(r.get("dimension")))
    source, unit, quote = r.get("source"), r.get("unit", ""), r.get("quote", "")
    if not isinstance(name, str) or not name:
        raise DataError(f"{where}: name: expected a name")
    if isinstance(printed, bool) or not isinstance(printed, int | float):
        raise DataError(f"{where}: {name}: printed: expected a number")
    if not math.isfinite(printed) or abs(printed) > 1e30:
        raise DataError(f"{where}: {name}: printed: not a finite number in ±1e30")
    if dim is None:
        raise DataError(f"{where}: {name}: dimension: one of {', '.join(_DIMS)}")
    if not isinstance(source, str) or not source.strip():
        raise DataError(f"{where}: {name}: source: every figure says where it comes from")
    if not isinstance(unit, str) or not isinstance(quote, str):
        raise DataError(f"{where}: {name}: unit and quote are text")
    value = float(printed) * _scale(unit, dim)
    return Constant(name, value, dim, source, unit, quote=quote, where=where)
