"""A hardware profile from a measured nccl-tests sweep: latency α, bandwidth, and the
per-size efficiency that says where the measurement leaves the α-β line.

:func:`fit` takes a :class:`~.nccl_tests_log.Sweep` and fits ``t(S) = α + S / algbw∞``
to its out-of-place times as an envelope (:func:`fit_line`: α the latency floor, the
bandwidth the best any size reached). The bus bandwidth is ``algbw∞ × factor`` with
nccl-tests' factor for the collective (``doc/PERFORMANCE.md``: 2(n−1)/n for all-reduce,
(n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce).
Each size then gets ``efficiency = t_αβ(S) / t_measured(S)``: 1 where the line is exact,
below 1 where the run is slower (launch overhead, pipeline fill). Where the log shows
NCCL's pick per size (``NCCL_DEBUG_SUBSYS=TUNING``), each algorithm gets its own α and
bandwidth too.

Pure functions of frozen values; :meth:`Profile.to_json` / :meth:`Profile.from_json` are
the profile file's format (``quizcoll calibrate`` writes it, ``sim --gpu NAME`` reads it).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from quizcoll.collectives.nccl_tests_log import LogError, Row, Sweep

PROFILE_FORMAT = 1
NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_FACTOR_SLACK = 0.03  # busbw/algbw as printed (2 decimals) may differ from the factor
FLAT = 1.25  # sizes within 25% of the fastest time are latency-bound
FLAT_SPAN = 4.0


class CalibrationError(ValueError):
    """A sweep that no profile can be fitted to, or a profile file that is not one."""


def busbw_factor(collective: str, ranks: int) -> float:
    """nccl-tests' bus-bandwidth factor (``doc/PERFORMANCE.md``)."""
    n = ranks
    if collective == "all_reduce":
        return 2 * (n - 1) / n
    if collective in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0


def ranks_from_factor(collective: str, factor: float) -> int | None:
    """The rank count whose factor is ``factor`` (busbw ÷ algbw), when it tells one."""
    if collective == "all_reduce" and factor < 2:
        return round(2 / (2 - factor))
    if collective in ("all_gather", "reduce_scatter", "all_to_all") and factor < 1:
        return round(1 / (1 - factor))
    return None


@dataclass(frozen=True)
class Line:
    """``t(S) = alpha_s + S / algbw`` (seconds, bytes/s), and its bus bandwidth."""

    alpha_s: float
    algbw: float
    busbw: float

    def time_s(self, size: float) -> float:
        return self.alpha_s + size / self.algbw


@dataclass(frozen=True)
class Point:
    """One size: measured against the fitted line."""

    size: int
    measured_time_s: float
    measured_busbw: float  # bytes/s
    model_time_s: float
    model_busbw: float
    efficiency: float  # model time ÷ measured time
    algorithm: str | None


@dataclass(frozen=True)
class Profile:
    """What a cluster's nccl-tests run says about it."""

    name: str
    collective: str
    ranks: int
    hosts: int | None
    gpu: str | None
    nccl_version: str | None
    source: str
    line: Line
    points: tuple[Point, ...]
    per_algorithm: tuple[tuple[str, Line], ...]

    def efficiency_at(self, size: float) -> float:
        """The efficiency at ``size``, interpolated in log-size between measured sizes
        (the end values beyond them)."""
        sizes = np.log2([p.size for p in self.points])
        eff = [p.efficiency for p in self.points]
        return float(np.interp(math.log2(max(size, 1.0)), sizes, eff))

    def time_s(self, size: float) -> float:
        """The profile's time for ``size`` bytes: the line, slowed by the efficiency."""
        return self.line.time_s(size) / self.efficiency_at(size)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PROFILE_FORMAT,
            "name": self.name,
            "collective": self.collective,
            "ranks": self.ranks,
            "hosts": self.hosts,
            "gpu": self.gpu,
            "nccl_version": self.nccl_version,
            "source": self.source,
            "alpha_s": self.line.alpha_s,
            "algbw": self.line.algbw,
            "busbw": self.line.busbw,
            "points": [
                {
                    "size": p.size,
                    "measured_time_s": p.measured_time_s,
                    "measured_busbw": p.measured_busbw,
                    "model_time_s": p.model_time_s,
                    "model_busbw": p.model_busbw,
                    "efficiency": p.efficiency,
                    "algorithm": p.algorithm,
                }
                for p in self.points
            ],
            "per_algorithm": {
                name: {"alpha_s": ln.alpha_s, "algbw": ln.algbw, "busbw": ln.busbw}
                for name, ln in self.per_algorithm
            },
        }

    @classmethod
    def from_json(cls, doc: Any, *, where: str = "profile") -> Profile:
        """A profile from its JSON document; a clear error for anything else."""
        try:
            if not isinstance(doc, dict) or doc.get("format") != PROFILE_FORMAT:
                raise CalibrationError(f"{where}: not a quizcoll profile (format 1)")
            line = _line(doc, where)
            points = tuple(_point(p, where) for p in doc["points"])
            if not 1 <= len(points) <= 4096:
                raise CalibrationError(f"{where}: a profile holds 1 to 4096 sizes")
            per = tuple((str(k), _line(v, where)) for k, v in dict(doc["per_algorithm"]).items())
            name = str(doc["name"])
            if not NAME.fullmatch(name):
                raise CalibrationError(f"{where}: bad profile name {name!r}")
            ranks = int(doc["ranks"])
            if not 2 <= ranks <= 1_000_000:
                raise CalibrationError(f"{where}: ranks {ranks} outside 2 … 1,000,000")
            return cls(
                name=name,
                collective=str(doc["collective"]),
                ranks=ranks,
                hosts=None if doc.get("hosts") is None else int(doc["hosts"]),
                gpu=None if doc.get("gpu") is None else str(doc["gpu"]),
                nccl_version=None if doc.get("nccl_version") is None else str(doc["nccl_version"]),
                source=str(doc.get("source", "")),
                line=line,
                points=points,
                per_algorithm=per,
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"{where}: not a valid profile ({exc})") from None


def _finite(doc: dict, key: str, where: str, low: float, high: float) -> float:
    value = float(doc[key])
    if not math.isfinite(value) or not low <= value <= high:
        raise CalibrationError(f"{where}: {key} = {value!r} outside [{low:g}, {high:g}]")
    return value


def _line(doc: dict, where: str) -> Line:
    return Line(
        _finite(doc, "alpha_s", where, 0.0, 10.0),
        _finite(doc, "algbw", where, 1.0, 1e15),
        _finite(doc, "busbw", where, 1.0, 1e15),
    )


def _point(doc: dict, where: str) -> Point:
    algo = doc.get("algorithm")
    return Point(
        size=int(_finite(doc, "size", where, 1, 2**50)),
        measured_time_s=_finite(doc, "measured_time_s", where, 1e-9, 1e4),
        measured_busbw=_finite(doc, "measured_busbw", where, 0.0, 1e15),
        model_time_s=_finite(doc, "model_time_s", where, 1e-12, 1e4),
        model_busbw=_finite(doc, "model_busbw", where, 0.0, 1e15),
        efficiency=_finite(doc, "efficiency", where, 1e-6, 1e6),
        algorithm=None if algo is None else str(algo),
    )


def fit_line(sizes: np.ndarray, times_s: np.ndarray, factor: float) -> Line:
    """The α-β envelope of a sweep: α is the latency floor (the fastest time, when at
    least two sizes a factor :data:`FLAT_SPAN` apart stay within :data:`FLAT` of it — the
    latency-bound end of the sweep; else 0: the log has no latency-bound sizes), and the
    bandwidth is the best ``S / (t − α)`` any size reached. The line is
    then at or below every measured time only where the run is as good as its best, so
    the per-size efficiency shows where time goes (launch, pipeline fill)."""
    order = np.argsort(sizes)
    sizes, times_s = sizes[order], times_s[order]
    fastest = float(times_s.min())
    flat = times_s <= FLAT * fastest
    flat_sizes = sizes[flat]
    alpha = 0.0
    if flat.sum() >= 2 and flat_sizes.max() >= FLAT_SPAN * max(flat_sizes.min(), 1.0):
        alpha = fastest
    spare = times_s - alpha
    usable = spare > 0.5 * times_s  # sizes where bandwidth is at least half of the time
    if not usable.any():
        usable = spare > 0
    if not usable.any():
        raise CalibrationError("every size took the latency floor: no bandwidth is visible")
    algbw = float(np.max(sizes[usable] / spare[usable]))
    return Line(alpha, algbw, algbw * factor)


def _ranks(sweep: Sweep, source: str) -> int:
    big = max(sweep.rows, key=lambda r: r.size)
    ratio = big.out_of_place.busbw / big.out_of_place.algbw if big.out_of_place.algbw else None
    told = ranks_from_factor(sweep.collective, ratio) if ratio else None
    if sweep.ranks is not None:
        if ratio is not None and sweep.ranks >= 2:
            factor = busbw_factor(sweep.collective, sweep.ranks)
            if abs(ratio - factor) > _FACTOR_SLACK * max(factor, 1.0):
                raise LogError(
                    f"{source}:{big.line}: busbw/algbw = {ratio:.3f} does not match the "
                    f"{sweep.ranks} ranks the log lists ({factor:.3f} for {sweep.collective})"
                )
        return sweep.ranks
    if told is None or told < 2:
        raise CalibrationError(
            "the log names no ranks (no '#  Rank' lines) and its busbw/algbw does not tell "
            "how many there were"
        )
    return told


def fit(sweep: Sweep, *, name: str, source: str, ranks: int | None = None) -> Profile:
    """The profile of ``sweep`` (see the module docstring); ``ranks`` when the log does
    not say (no device lines, and busbw/algbw too small to read)."""
    if not NAME.fullmatch(name):
        raise CalibrationError(
            f"profile name {name!r}: use 1–64 lowercase letters, digits, '.', '_' or '-'"
        )
    if ranks is None:
        ranks = _ranks(sweep, source)
    if ranks < 2:
        raise CalibrationError("a profile needs a run over at least 2 ranks")
    factor = busbw_factor(sweep.collective, ranks)
    rows = sorted(sweep.rows, key=lambda r: r.size)
    sizes = np.array([r.size for r in rows], dtype=float)
    times = np.array([r.out_of_place.time_us for r in rows]) * 1e-6
    line = fit_line(sizes, times, factor)
    points = tuple(_compare(r, line, factor, sweep.algorithm_at(r.size)) for r in rows)
    groups: dict[str, list[Row]] = {}
    for r in rows:
        if (algo := sweep.algorithm_at(r.size)) is not None:
            groups.setdefault(algo, []).append(r)
    per = []
    for algo, members in sorted(groups.items()):
        if len(members) >= 2:
            s = np.array([r.size for r in members], dtype=float)
            t = np.array([r.out_of_place.time_us for r in members]) * 1e-6
            per.append((algo, fit_line(s, t, factor)))
    return Profile(
        name=name,
        collective=sweep.collective,
        ranks=ranks,
        hosts=sweep.hosts,
        gpu=sweep.gpu,
        nccl_version=sweep.nccl_version,
        source=source,
        line=line,
        points=points,
        per_algorithm=tuple(per),
    )


def _compare(row: Row, line: Line, factor: float, algorithm: str | None) -> Point:
    t = row.out_of_place.time_us * 1e-6
    model = line.time_s(row.size)
    return Point(
        size=row.size,
        measured_time_s=t,
        measured_busbw=row.size / t * factor,
        model_time_s=model,
        model_busbw=row.size / model * factor,
        efficiency=model / t,
        algorithm=algorithm,
    )
