"""Constants of the hardware cards that no data table holds (RoCEv2's port, NVL72's GPUs).

Each GPU's memory bandwidth and dense peak, each link's line rate figures and NCCL's tuning
figures are published figures in ``quizcoll/data/gpus.yaml``, ``links.yaml`` and
``nccl.yaml`` (:mod:`quizcoll.constants.data`), read from there, never from the calculators
they check. Names are ``<key>_<figure>`` with the key's ``-`` and ``.`` as ``_``
(``h100-80gb`` → ``h100_80gb_hbm_bandwidth``), which is how ``{gpu}`` in a formula reads a
drawn choice."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim


def _published() -> tuple[Constant, ...]:
    """Figures no table in the code holds, each with its source."""
    return (
        Constant(
            "rocev2_udp_port",
            4791,
            Dim.COUNT,
            "IANA service registry and InfiniBand Architecture Specification, Annex A17 "
            "(RoCEv2): RoCEv2 packets are UDP datagrams to destination port 4791",
        ),
        Constant(
            "nvl72_gpus",
            72,
            Dim.COUNT,
            "NVIDIA GB200 NVL72 datasheet: 36 Grace CPUs and 72 Blackwell GPUs in one "
            "NVLink domain (rack-scale NVSwitch)",
        ),
    )


CONSTANTS: tuple[Constant, ...] = _published()
