"""Published nccl-tests sweeps (``data/nccl_tests_published.yaml``), loaded and checked.

Each :class:`System` is one published run: the cluster as :func:`~.nccl.topology` knows it,
the network's transport (``ib``, ``roce`` or ``tcpxo``), the NCCL version and algorithm when the source states them, the source URL
and a quote, the group of runs it shares a cluster or a post with, and the rows as printed (bytes per rank, out-of-place µs, busbw GB/s).
Loading is bounded (file size, row count) and every field is validated; a broken file is a
:class:`PublishedDataError` naming the system and field.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from quizcoll.collectives.nccl import Topology, topology

MAX_FILE_CHARS = 2**20
MAX_ROWS = 512
TRANSPORTS = ("ib", "roce", "tcpxo")
_TOPOLOGY_KEYS = {"gpu", "nodes", "gpus_per_node", "nic", "nics_per_node", "cpu", "nvls", "sharp"}


class PublishedDataError(ValueError):
    """The data file is not as documented."""


@dataclass(frozen=True)
class Row:
    size: int  # bytes per rank (nccl-tests' size)
    time_us: float | None  # out-of-place, as printed (None: only the bandwidth published)
    busbw: float  # GB/s as printed


@dataclass(frozen=True)
class System:
    id: str
    transport: str  # the network's kind: ib, roce or tcpxo (its per-step cost is fitted)
    system: str
    options: dict[str, Any] = field(hash=False)
    proxy: str | None
    nccl_version: str | None
    algorithm: str | None  # what the source says NCCL ran
    forced: str | None  # NCCL_ALGO of the run
    url: str
    quote: str
    rows: tuple[Row, ...]
    group: str = ""  # runs on one cluster or from one post (held out together); "" = the id

    @property
    def cluster(self) -> str:
        """The held-out unit: the group, or the system itself."""
        return self.group or self.id

    def topology(self) -> Topology:
        return topology(**self.options)


def _text(doc: dict, key: str, where: str, *, optional: bool = False) -> str | None:
    value = doc.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 2000:
        raise PublishedDataError(f"{where}: {key} must be a non-empty string")
    return value


def _row(item: Any, where: str) -> Row:
    if not isinstance(item, list) or len(item) != 3:
        raise PublishedDataError(f"{where}: a row is [size, time_us or null, busbw]")
    size, time_us, busbw = item
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 2**50:
        raise PublishedDataError(f"{where}: size {size!r} is not a byte count in 1 … 2^50")
    if time_us is not None and (
        isinstance(time_us, bool)
        or not isinstance(time_us, int | float)
        or not math.isfinite(time_us)
        or not 0 < time_us < 1e10
    ):
        raise PublishedDataError(f"{where}: time {time_us!r} µs is not a positive number")
    if isinstance(busbw, bool) or not isinstance(busbw, int | float) or not 0 <= busbw < 1e5:
        raise PublishedDataError(f"{where}: busbw {busbw!r} GB/s is out of range")
    if time_us is None and busbw <= 0:
        raise PublishedDataError(f"{where}: a row without a time needs a positive busbw")
    return Row(size, None if time_us is None else float(time_us), float(busbw))


def _system(doc: Any, index: int) -> System:
    if not isinstance(doc, dict):
        raise PublishedDataError(f"systems[{index}]: not a mapping")
    where = f"systems[{index}] ({doc.get('id', '?')})"
    sid = _text(doc, "id", where)
    transport = doc.get("transport", "ib")
    if transport not in TRANSPORTS:
        raise PublishedDataError(f"{where}: transport must be one of {', '.join(TRANSPORTS)}")
    options = doc.get("topology")
    if not isinstance(options, dict) or not set(options) <= _TOPOLOGY_KEYS:
        raise PublishedDataError(f"{where}: topology keys are {sorted(_TOPOLOGY_KEYS)}")
    rows = doc.get("rows")
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_ROWS:
        raise PublishedDataError(f"{where}: rows must be a list of 1 … {MAX_ROWS}")
    parsed = tuple(_row(r, f"{where} row {i + 1}") for i, r in enumerate(rows))
    if len({r.size for r in parsed}) != len(parsed):
        raise PublishedDataError(f"{where}: a size appears twice")
    url = _text(doc, "url", where)
    assert url is not None
    if not url.startswith("https://github.com/"):
        raise PublishedDataError(f"{where}: url must be a GitHub page")
    system = System(
        id=str(sid),
        transport=str(transport),
        system=str(_text(doc, "system", where)),
        options=dict(options),
        proxy=_text(doc, "proxy", where, optional=True),
        nccl_version=_text(doc, "nccl_version", where, optional=True),
        algorithm=_text(doc, "algorithm", where, optional=True),
        forced=_text(doc, "forced", where, optional=True),
        url=url,
        quote=str(_text(doc, "quote", where)),
        rows=parsed,
        group=str(_text(doc, "group", where, optional=True) or ""),
    )
    try:
        system.topology()
    except ValueError as exc:
        raise PublishedDataError(f"{where}: topology: {exc}") from None
    return system


def parse_systems(text: str) -> tuple[System, ...]:
    """The systems of a data file's text (see the module docstring)."""
    if len(text) > MAX_FILE_CHARS:
        raise PublishedDataError("the data file is larger than 1 MiB")
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("systems"), list):
        raise PublishedDataError("the data file needs a 'systems' list")
    systems = tuple(_system(d, i) for i, d in enumerate(doc["systems"]))
    if len({s.id for s in systems}) != len(systems):
        raise PublishedDataError("two systems share an id")
    return systems


@functools.cache
def systems() -> tuple[System, ...]:
    """The shipped data file's systems."""
    text = (
        resources.files("quizcoll.collectives")
        .joinpath("data", "nccl_tests_published.yaml")
        .read_text(encoding="utf-8")
    )
    return parse_systems(text)
