"""Registers the declared constants and the digit-initial terms with the engine.

The cited constants come from :mod:`quizcoll.constants` (data files and configs, no code
under test). The few figures the calculators *derive* (a link's line rate from its lanes,
signalling rate and encoding) are declared here, from the calculators, and marked derived:
cards may show them, but no proof's ``expect`` may use them.
"""

from __future__ import annotations

from deck.cards.registry import Constant, Registry
from deck.units import Dim
from quizcoll.constants import TERMS, all_constants

_LINKS = "quizcoll.collectives.hardware.link_figures"


def derived_constants() -> tuple[Constant, ...]:
    """``{link}_line_rate``, ``{link}_nccl_bw`` and ``{gpu}_gpu_pcie_nccl_bw``, as the
    calculators compute them."""
    from quizcoll.collectives import hardware as hw

    out: list[Constant] = []
    for key in [*hw.NVLINK_ONLY, *hw.GPUS, *hw.PCIE, *hw.NICS]:
        f = hw.link_figures(key)
        for suffix, value in (("line_rate", f.line_rate), ("nccl_bw", f.nccl_bw)):
            out.append(
                Constant(
                    f"{key}_{suffix}",
                    value * 1e9,
                    Dim.RATE,
                    f.source,
                    "GB/s",
                    derived=f"{_LINKS}({key!r}).{suffix}",
                )
            )
    for key, g in hw.GPUS.items():
        p = hw.PCIE[g.pcie]
        out.append(
            Constant(
                f"{key}_gpu_pcie_nccl_bw",
                p.nccl_bw * 1e9,
                Dim.RATE,
                f"{g.source}: the GPU's PCIe {p.name} x16 link as NCCL counts it ({p.source})",
                "GB/s",
                derived=f"quizcoll.collectives.hardware.PCIE[{g.pcie!r}].nccl_bw",
            )
        )
    return tuple(out)


def gpu_terms() -> tuple[str, ...]:
    """The words of the catalog GPUs' names that start with a digit ("4090" of "RTX 4090",
    the marketing "80GB" of "A100 80GB"): parts of a product's name, not quantities."""
    from quizcoll.memory.gpus import GPUS

    words = (w for gpu in GPUS for w in gpu.name.split())
    return tuple(sorted({w for w in words if w[:1].isdigit()}))


def register(registry: Registry) -> None:
    from quizcoll.executables import derivations

    for constant in (*all_constants(), *derived_constants()):
        registry.add_constant(constant)
    registry.add_terms(*TERMS, *gpu_terms())
    derivations.register(registry)  # the executables are registered before the constants
