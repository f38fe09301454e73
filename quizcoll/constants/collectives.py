"""Constants of the collectives decks: the α-β link presets, taken from the simulator's
table (``quizcoll.collectives.cost.PRESETS``, whose figures are NCCL's own), never typed again."""

from __future__ import annotations

from deck.registry import Constant
from deck.units import Dim

_SOURCES = {
    "nvlink": "NCCL: 18 NVLink links × SM90_NVLINK_BW 20.6 GB/s (topo.h); "
    "hwLatencies[NVLINK][Ring][Simple] (cost_model.cc)",
    "infiniband": "NCCL: NDR 400 Gb/s NIC / 8000 = 50 GB/s (ncclTopoAddNet); "
    "hwLatencies[NET][Ring][Simple] (cost_model.cc)",
}


def _preset_constants() -> tuple[Constant, ...]:
    from quizcoll.collectives.cost import PRESETS

    out: list[Constant] = []
    for name, link in PRESETS.items():
        source = f"the simulator's {name} preset; {_SOURCES.get(name, 'quizcoll.collectives.cost')}"
        out.append(Constant(f"{name}_latency", link.latency_s, Dim.SECONDS, source, "µs"))
        out.append(Constant(f"{name}_bandwidth", link.bandwidth, Dim.RATE, source, "GB/s"))
    return tuple(out)


CONSTANTS: tuple[Constant, ...] = _preset_constants()
