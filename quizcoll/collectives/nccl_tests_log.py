"""A bounded parser for the text that nccl-tests prints (``all_reduce_perf`` and friends).

:func:`parse` reads one run: the ``# nThread … nGpus …`` header, the ``#  Rank …`` device
lines (how many ranks, on how many hosts, which GPU), ``NCCL version`` and
``nccl-library=`` lines, NCCL's ``… Bytes -> Algo A proto P …`` tuning lines when the run
had ``NCCL_DEBUG_SUBSYS=TUNING``, and the result rows, with or without the ``redop`` and
``root`` columns of older and newer nccl-tests, out-of-place and in-place. Lines may
carry an MPI prefix (``[1,0]<stdout>:``) or a rank tag (``[0] ``). Anything else
(NCCL INFO lines, shell prompts, banners) is skipped.

Everything is bounded: at most :data:`MAX_CHARS` characters, :data:`MAX_LINE` per line and
:data:`MAX_ROWS` rows, one pass over the lines. Every number must be finite and inside a
documented range, and each row's algbw must agree with its size and time (to the
printed rounding): a row that does not parse, or was cut short, is a :class:`LogError`
naming its line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_CHARS = 16 * 2**20
MAX_LINE = 16_384
MAX_ROWS = 4096
MAX_SIZE = 2**50  # bytes per rank
MAX_TIME_US = 1e10
MAX_GBS = 1e6

# binary name -> quizcoll collective (nccl-tests src/*.cu)
BINARIES: dict[str, str] = {
    "all_reduce_perf": "all_reduce",
    "all_gather_perf": "all_gather",
    "reduce_scatter_perf": "reduce_scatter",
    "alltoall_perf": "all_to_all",
    "broadcast_perf": "broadcast",
    "reduce_perf": "reduce",
    "gather_perf": "gather",
    "scatter_perf": "scatter",
    "sendrecv_perf": "sendrecv",
    "hypercube_perf": "hypercube",
}
DTYPES = (
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
    "bfloat16", "f8e4m3", "f8e5m2", "float16", "float32", "float64", "char", "int", "uint",
)  # fmt: skip
REDOPS = ("sum", "prod", "max", "min", "avg", "none", "mulsum", "all")
_ALGOS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
_PROTOS = ("LL", "LL128", "Simple")

_PREFIX = re.compile(r"^(?:\[\d+,\d+\]<std(?:out|err)>:|\[\d+\]\s?)+")
_HEADER = re.compile(r"#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\b")
_RANK = re.compile(r"#\s*Rank\s+(\d+)\s.*?\bon\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$")
_VERSION = re.compile(r"NCCL version\s+(\d+\.\d+\.\d+)")
_LIBRARY = re.compile(r"nccl-library=(\d+)")
_STARTING = re.compile(r"Collective test starting:\s*(\w+)")
_BINARY = re.compile(r"\b(" + "|".join(BINARIES) + r")(?:_mpi)?\b")
_TUNING = re.compile(r"NCCL INFO\s+(\d+)\s+Bytes\s*->\s*Algo\s+(\d+)\s+proto\s+(\d+)")
_ROW_START = re.compile(r"^\s*\d")


class LogError(ValueError):
    """A log that is not nccl-tests output, or a row that is broken (names the line)."""


@dataclass(frozen=True)
class Result:
    """One direction of one row: time (µs), algbw and busbw (GB/s, as printed)."""

    time_us: float
    algbw: float
    busbw: float


@dataclass(frozen=True)
class Row:
    """One size of the sweep: bytes per rank (nccl-tests' ``size``), its out-of-place and
    in-place results, and the line it came from."""

    size: int
    count: int
    dtype: str
    out_of_place: Result
    in_place: Result
    line: int


@dataclass(frozen=True)
class Sweep:
    """A parsed nccl-tests run."""

    collective: str
    ranks: int | None  # from the device lines (None when the log has none)
    hosts: int | None
    gpu: str | None
    nccl_version: str | None
    rows: tuple[Row, ...]
    algorithms: tuple[tuple[int, str], ...]  # (bytes, "Ring/LL") from NCCL's tuning lines

    @property
    def gpus_per_host(self) -> int | None:
        if not self.ranks or not self.hosts or self.ranks % self.hosts:
            return None
        return self.ranks // self.hosts

    def algorithm_at(self, size: int) -> str | None:
        """NCCL's pick for ``size`` bytes, when the log shows it."""
        for nbytes, name in self.algorithms:
            if nbytes == size:
                return name
        return None


def _number(token: str, where: str, what: str, low: float, high: float) -> float:
    try:
        value = float(token)
    except ValueError:
        raise LogError(f"{where}: {what} {token!r} is not a number") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise LogError(f"{where}: {what} {token} is outside [{low:g}, {high:g}]")
    return value


def _whole(token: str, where: str, what: str, high: int) -> int:
    if not token.isdigit() or len(token) > 16:
        raise LogError(f"{where}: {what} {token!r} is not a whole number")
    value = int(token)
    if value > high:
        raise LogError(f"{where}: {what} {value:,} is larger than {high:,}")
    return value


def _result(tokens: list[str], where: str, size: int) -> Result:
    time_us = _number(tokens[0], where, "time", 0.0, MAX_TIME_US)
    algbw = _number(tokens[1], where, "algbw", 0.0, MAX_GBS)
    busbw = _number(tokens[2], where, "busbw", 0.0, MAX_GBS)
    if time_us <= 0:
        raise LogError(f"{where}: time must be positive, got {tokens[0]}")
    # algbw = size / time, printed with 2 decimals: it must agree within that rounding
    expected = size / (time_us * 1e3)
    slack = 0.006 + 0.02 * expected + size / (time_us * 1e3) * _time_rounding(tokens[0])
    if abs(expected - algbw) > slack:
        raise LogError(
            f"{where}: algbw {tokens[1]} GB/s does not match size {size:,} B over "
            f"{tokens[0]} µs ({expected:.2f} GB/s): not an nccl-tests row"
        )
    return Result(time_us, algbw, busbw)


def _time_rounding(token: str) -> float:
    """Relative rounding of a printed time (``24361`` carries ±0.5 µs)."""
    digits = token.split(".")[1] if "." in token else ""
    step = 10.0 ** (-len(digits))
    value = float(token)
    return 0.5 * step / value if value else 0.0


def _row(text: str, number: int, source: str) -> Row:
    where = f"{source}:{number}"
    tokens = text.split()
    # size count type [redop] [root] | time algbw busbw wrong | time algbw busbw wrong
    if len(tokens) < 11:
        raise LogError(
            f"{where}: a result row needs size, count, type and two groups of time, algbw, "
            f"busbw and #wrong; this one has {len(tokens)} fields (cut short?)"
        )
    if len(tokens) > 13:
        raise LogError(f"{where}: {len(tokens)} fields is more than a result row has")
    size = _whole(tokens[0], where, "size", MAX_SIZE)
    count = _whole(tokens[1], where, "count", MAX_SIZE)
    dtype = tokens[2]
    if dtype not in DTYPES:
        raise LogError(f"{where}: unknown data type {dtype!r}")
    middle = tokens[3:-8]
    if middle and middle[0] not in REDOPS:
        raise LogError(f"{where}: unknown reduction {middle[0]!r}")
    if len(middle) == 2 and not re.fullmatch(r"-?\d+", middle[1]):
        raise LogError(f"{where}: root {middle[1]!r} is not a rank")
    out = _result(tokens[-8:-5], where, size)
    inp = _result(tokens[-4:-1], where, size)
    return Row(size, count, dtype, out, inp, number)


def parse(text: str, *, source: str = "<log>", collective: str | None = None) -> Sweep:
    """The run in ``text``. ``collective`` overrides what the log says about its binary."""
    if len(text) > MAX_CHARS:
        raise LogError(f"{source}: {len(text):,} characters is more than a log may be")
    header = False
    ranks: dict[int, tuple[str, str]] = {}
    version: str | None = None
    named: str | None = None
    rows: list[Row] = []
    tuned: dict[int, str] = {}
    seen_sizes: set[int] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE:
            raise LogError(f"{source}:{number}: line of {len(raw):,} characters is too long")
        line = _PREFIX.sub("", raw).rstrip()
        if not line.strip():
            continue
        if m := _TUNING.search(line):
            a, p = int(m.group(2)), int(m.group(3))
            if a < len(_ALGOS) and p < len(_PROTOS):
                tuned.setdefault(int(m.group(1)), f"{_ALGOS[a]}/{_PROTOS[p]}")
            continue
        if "NCCL INFO" in line or "NCCL WARN" in line:
            if m := _VERSION.search(line):
                version = version or m.group(1)
            continue
        if m := _VERSION.search(line):
            version = version or m.group(1)
        if m := _LIBRARY.search(line):
            code = int(m.group(1))  # NCCL_VERSION_CODE: 23102 = 2.31.2
            version = version or f"{code // 10000}.{code // 100 % 100}.{code % 100}"
        if m := _STARTING.search(line):
            named = named or BINARIES.get(m.group(1))
        elif (m := _BINARY.search(line)) and named is None:
            named = BINARIES[m.group(1)]
        if _HEADER.search(line):
            header = True
            continue
        if m := _RANK.match(line.strip()):
            rank = int(m.group(1))
            if rank < 1_000_000:
                ranks[rank] = (m.group(2), m.group(4).strip())
            continue
        if line.lstrip().startswith("#"):
            if "size" in line and "count" in line and "busbw" in line:
                header = True  # the column header: rows follow
            continue
        if _ROW_START.match(line):
            if not header and not rows:
                continue  # digits before any nccl-tests header: not ours
            row = _row(line, number, source)
            if row.size == 0:
                continue  # nccl-tests prints empty sizes too
            if row.size in seen_sizes:
                raise LogError(
                    f"{source}:{number}: size {row.size:,} appears twice (two runs in one "
                    "log? calibrate reads one run)"
                )
            seen_sizes.add(row.size)
            rows.append(row)
            if len(rows) > MAX_ROWS:
                raise LogError(f"{source}:{number}: more than {MAX_ROWS} result rows")
    if not rows:
        raise LogError(f"{source}: no nccl-tests result rows found (is this an nccl-tests log?)")
    name = collective or named
    if name is None:
        raise LogError(
            f"{source}: the log does not name its test (no *_perf command line or "
            "'Collective test starting' line); pass --collective"
        )
    hosts = len({host for host, _ in ranks.values()}) if ranks else None
    gpus = {gpu for _, gpu in ranks.values()}
    return Sweep(
        collective=name,
        ranks=len(ranks) if ranks else None,
        hosts=hosts,
        gpu=gpus.pop() if len(gpus) == 1 else None,
        nccl_version=version,
        rows=tuple(rows),
        algorithms=tuple(sorted(tuned.items())),
    )
