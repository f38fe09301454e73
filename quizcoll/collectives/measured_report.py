"""The measured model's tables for docs/collectives.md (``python -m
quizcoll.collectives.measured_report``): the published sweeps with their sources, the
error by size class (each system judged by the model fitted without its group, and
by the model fitted to all; TCPXO apart), and the error by system. ``tests/test_nccl_measured.py`` checks
that the docs hold exactly this text.
"""

from __future__ import annotations

from quizcoll.collectives import measured as m
from quizcoll.collectives.published import systems

GIB, MIB, KIB = 2**30, 2**20, 2**10


def _size(n: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n:,} B"


def data_table() -> str:
    lines = [
        "| system | transport | NCCL | rows | sizes | source |",
        "|---|---|---|---|---|---|",
    ]
    for s in systems():
        sizes = [r.size for r in s.rows]
        span = (
            _size(min(sizes)) if len(sizes) == 1 else f"{_size(min(sizes))} – {_size(max(sizes))}"
        )
        forced = f", NCCL_ALGO={s.forced}" if s.forced else ""
        lines.append(
            f"| {s.system}{forced} | {s.transport} | {s.nccl_version or '–'} | {len(s.rows)} "
            f"| {span} | [{s.id}]({s.url}) |"
        )
    return "\n".join(lines)


def _cells(held: bool, *, fitted: bool = True) -> list[str]:
    errs = m.on_fitted_transports(m.errors(held=held), fitted=fitted)
    out = []
    for name, cell in m.summary(errs).items():
        out.append(
            f"| {name} | {cell.rows} | {m.pct(cell.median)} | {cell.worst:+.1%} "
            f"| {m.pct(cell.tuner_median)} |"
        )
    return out


def class_table() -> str:
    head = [
        "| size class | rows | median error, measured model | worst | median error, NCCL's tuner |",
        "|---|---|---|---|---|",
    ]
    held = [
        "**Held out**, InfiniBand, RoCE and single-node NVLink systems (each priced by the "
        "model fitted to the other groups; the goals are judged here):",
        "",
        *head,
        *_cells(True),
    ]
    tcpxo = [
        "**Held out**, Google's GPUDirect-TCPXO system (judged, never fitted):",
        "",
        *head,
        *_cells(True, fitted=False),
    ]
    fitted = [
        "**Fitted to all systems** (what `sim --model measured` uses), InfiniBand, RoCE "
        "and NVLink systems:",
        "",
        *head,
        *_cells(False),
    ]
    return "\n".join([*held, "", *tcpxo, "", *fitted])


def system_table() -> str:
    held = m.per_system(m.errors(held=True))
    full = m.per_system(m.errors(held=False))
    lines = [
        "| system | held-out error | fitted error | tuner error | NCCL's pick in the model |",
        "|---|---|---|---|---|",
    ]
    for sid, (s, med, tuner, picks) in held.items():
        lines.append(
            f"| {s.id} | {m.pct(med)} | {m.pct(full[sid][1])} | {m.pct(tuner)} | {picks} |"
        )
    return "\n".join(lines)


def params_line() -> str:
    p = m.fitted()
    return (
        f"Fitted: launch {p.launch_us:.2f} µs, latency × {p.k_latency:.3f}, "
        f"{p.step_us:.2f} µs per network step, fill × {p.k_fill_tree:.3f} (Tree), "
        f"× {p.k_fill_nvls:.3f} (NVLS, NVLSTree), none for Ring (chunk {_size(p.chunk)}); "
        f"bandwidth as run (not fitted)."
    )


def tables() -> str:
    return "\n\n".join([data_table(), class_table(), system_table(), params_line()]) + "\n"


if __name__ == "__main__":
    print(tables(), end="")
