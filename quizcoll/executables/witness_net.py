"""The network witnesses (:mod:`quizcoll.witnesses.net_link`, ``net_collectives``,
``net_fabric``) as ``witness.*`` executables, each with how it reaches its result:

- ``witness.link_clock``: a message dealt piece by piece onto a link's lanes and framed
  into line-code blocks, on the lanes' clocks;
- ``witness.chain_events``: a chain broadcast stepped chunk by chunk and hop by hop;
- ``witness.switch_reduce``: an all-reduce reduced in a switch, chunk by chunk up and down;
- ``witness.sync_steps``: synchronous steps whose idle GPU-time is integrated over arrivals;
- ``witness.leaf_spine_cut``: a leaf–spine's every cut enumerated, the rate bisected;
- ``witness.hash_occupancy``: hash functions of flows onto uplinks counted by image size.

Every link rate, latency and size arrives as an argument (cited constants in the card).
"""

from __future__ import annotations

import re
from typing import Any

from deck.cards.registry import (
    ArgumentError,
    Derivation,
    Dimension,
    Field,
    Param,
    ParamKind,
    Registry,
)
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.witnesses import net_collectives as nc
from quizcoll.witnesses import net_fabric as nf
from quizcoll.witnesses import net_link as nl
from quizcoll.witnesses.net_errors import NetWitnessError

B, C, R, S = Dimension.BYTES, Dimension.COUNT, Dimension.RATIO, Dimension.SECONDS
MAX_SIZE = 2**50
FIGURES = ("lanes", "lane_bits_per_s", "payload_bits", "block_bits")
TIMING = ("latency", "bandwidth")


def _guard(function: Any) -> Any:
    return refusals_as_argument_errors(function, lambda: NetWitnessError)


def _figures(registry: Registry, function: Any, names: tuple[str, ...]) -> Any:
    """``function`` with its arguments ``names`` given as formulas over numbers and cited
    constants (``h100_nvlink_links``, ``gen4_gt_s*1e9``): a witness's figures come from
    the card's cited data, never from the tables the calculators read."""
    from deck.formula import FormulaError, parse

    def value(name: str, text: str) -> float:
        # a card's {gpu} placeholder fills in the catalog's name (a100-80gb); its constants
        # spell it with underscores (a100_80gb_hbm_bandwidth)
        text = _NAME.sub(lambda m: _constant_name(registry, m.group(0)), text)
        try:
            expr = parse(text)
        except FormulaError as exc:
            raise ArgumentError(f"{name}: {exc}") from None
        env = {}
        for v in sorted(expr.variables):
            c = registry.constants.get(v)
            if c is None or not c.cited:
                raise ArgumentError(f"{name}: {v} is not a cited constant")
            env[v] = c.value
        return float(expr.evaluate(env))

    def wrapped(**kwargs: Any) -> Any:
        for name in names:
            kwargs[name] = value(name, kwargs[name])
        return function(**kwargs)

    return wrapped


_NAME = re.compile(r"[A-Za-z][\w-]*")


def _constant_name(registry: Registry, word: str) -> str:
    spelled = word.replace("-", "_")
    return spelled if "-" in word and spelled in registry.constants else word


def _figure(name: str, help: str, default: str | None = None) -> Param:
    help = f"{help}: a formula over numbers and cited constants"
    if default is None:
        return Param(name, ParamKind.STR, help)
    return Param(name, ParamKind.STR, help, default=default)


def link_clock(
    size: int,
    lanes: float,
    lane_bits_per_s: float,
    payload_bits: float,
    block_bits: float,
    pieces: int,
) -> dict[str, Any]:
    whole = [int(x) for x in (lanes, payload_bits, block_bits)]
    if whole != [lanes, payload_bits, block_bits]:
        raise ArgumentError("lanes, payload_bits, block_bits: whole numbers")
    run = nl.clocked_transfer(size, whole[0], lane_bits_per_s, whole[1], whole[2], pieces)
    return {
        "time_s": run.time_s,
        "bandwidth": run.bandwidth(size),
        "per_second": 1 / run.time_s,
        "pieces": run.pieces,
        "blocks": run.blocks,
    }


def chain_events(
    ranks: int, size: int, chunks: int, latency: float, bandwidth: float
) -> dict[str, Any]:
    return {"time_s": nc.chain_broadcast_time(ranks, size, chunks, latency, bandwidth)}


def switch_reduce(
    ranks: int, size: int, chunks: int, latency: float, bandwidth: float
) -> dict[str, Any]:
    run = nc.switch_all_reduce(ranks, size, chunks, latency, bandwidth)
    return {"time_s": run.time_s, "bytes_up": run.bytes_up, "bytes_down": run.bytes_down}


def sync_steps(
    ranks: int, slow: int, compute: float, delay: float, comm: float, steps: int
) -> dict[str, Any]:
    run = nc.synchronous_steps(ranks, slow, compute, delay, comm, steps)
    return {
        "idle_fraction": run.idle_fraction,
        "idle_gpu_seconds": run.idle_gpu_s / steps,
        "step_time_s": run.total_s / steps,
    }


def leaf_spine_cut(leaves: int, hosts: int, uplinks: int, link: float) -> dict[str, Any]:
    run = nf.leaf_spine_cut(leaves, hosts, uplinks, link)
    return {"host_rate": run.host_rate, "one_way": run.one_way, "aggregate": run.aggregate}


def hash_occupancy(bins: int, flows: int) -> dict[str, Any]:
    reached = nf.hash_occupancy(bins, flows)
    return {"reached": reached, "idle": bins - reached}


def _int(name: str, help: str, maximum: int, minimum: int = 1, default: Any = None) -> Param:
    if default is None:
        return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum)
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, default=default)


def _size(help: str) -> Param:
    return Param("size", ParamKind.BYTES, help, minimum=1, maximum=MAX_SIZE)


_LATENCY = _figure("latency", "seconds per message")
_BANDWIDTH = _figure("bandwidth", "bytes/s of one link, one direction")


def register(registry: Registry) -> None:
    D = Derivation
    registry.add_function(
        "witness.link_clock",
        _figures(registry, _guard(link_clock), FIGURES),
        params=[
            _size("bytes to move"),
            _figure("lanes", "lanes side by side (PCIe lanes, NVLink links, NICs, GPUs)"),
            _figure("lane_bits_per_s", "symbols (bits) one lane signals per second"),
            _figure("payload_bits", "payload bits per line-code block", "1"),
            _figure("block_bits", "symbols per line-code block", "1"),
            _int("pieces", "pieces the message is cut into (0: 8 per lane)", nl.MAX_PIECES, 0, 0),
        ],
        fields=[
            Field("time_s", S, "when the last lane sends its last block"),
            Field("bandwidth", Dimension.RATE, "size over that time"),
            Field("per_second", R, "such transfers back to back in one second"),
            Field("pieces", C, "pieces dealt to the lanes"),
            Field("blocks", C, "line-code blocks sent over all lanes"),
        ],
    )
    registry.declare_derivation(
        "witness.link_clock",
        D.SIMULATED,
        "deals the message piece by piece to the lane that falls idle first and frames each "
        "lane's bytes into line-code blocks on its clock (quizcoll.witnesses.net_link)",
    )
    chain = [
        Param("ranks", ParamKind.INT, "ranks in the chain", minimum=2, maximum=1 << 16),
        _size("the root's buffer"),
        _int("chunks", "equal chunks", 1 << 16),
        _LATENCY,
        _BANDWIDTH,
    ]
    registry.add_function(
        "witness.chain_events",
        _figures(registry, _guard(chain_events), TIMING),
        params=chain,
        fields=[Field("time_s", S, "when the last rank holds the last chunk")],
    )
    registry.declare_derivation(
        "witness.chain_events",
        D.SIMULATED,
        "steps every chunk over every hop: a hop starts once its sender holds the chunk and "
        "its link is idle (quizcoll.witnesses.net_collectives)",
    )
    registry.add_function(
        "witness.switch_reduce",
        _figures(registry, _guard(switch_reduce), TIMING),
        params=[*chain[:2], _int("chunks", "chunks streamed", 1 << 14), _LATENCY, _BANDWIDTH],
        fields=[
            Field("time_s", S, "when the last GPU holds the last reduced chunk"),
            Field("bytes_up", B, "one GPU's bytes to the switch"),
            Field("bytes_down", B, "one GPU's bytes from the switch"),
        ],
    )
    registry.declare_derivation(
        "witness.switch_reduce",
        D.SIMULATED,
        "streams chunks up every GPU's link, reduces each once all copies arrived, streams "
        "the sums down each link (quizcoll.witnesses.net_collectives)",
    )
    seconds = [
        Param(n, ParamKind.SECONDS, h, minimum=0, maximum=1e4)
        for n, h in (
            ("compute", "compute per step"),
            ("delay", "how late the slow ranks are"),
            ("comm", "the collective"),
        )
    ]
    registry.add_function(
        "witness.sync_steps",
        _guard(sync_steps),
        params=[
            _int("ranks", "ranks", 1 << 20),
            _int("slow", "ranks that arrive late", 1 << 20, 0),
            *seconds,
            _int("steps", "steps stepped", nc.MAX_STEPS, default=3),
        ],
        fields=[
            Field("idle_fraction", R, "waiting GPU-time over all GPU-time"),
            Field("idle_gpu_seconds", S, "waiting GPU-time per step"),
            Field("step_time_s", S, "time per step"),
        ],
    )
    registry.declare_derivation(
        "witness.sync_steps",
        D.SIMULATED,
        "steps the training steps and integrates the number of waiting GPUs between "
        "arrivals (quizcoll.witnesses.net_collectives)",
    )
    registry.add_function(
        "witness.leaf_spine_cut",
        _guard(leaf_spine_cut),
        params=[
            _int("leaves", "leaf switches (even)", nf.MAX_LEAVES, 2),
            _int("hosts", "host ports per leaf", 1 << 12),
            _int("uplinks", "uplinks per leaf, one per spine", 1 << 12),
            Param("link", ParamKind.RATE, "every link, one direction", minimum=1, maximum=1e15),
        ],
        fields=[
            Field("host_rate", Dimension.RATE, "the rate every host of a half gets at once"),
            Field("one_way", Dimension.RATE, "one half's hosts together"),
            Field("aggregate", Dimension.RATE, "both halves sending at once"),
        ],
    )
    registry.declare_derivation(
        "witness.leaf_spine_cut",
        D.SEARCHED,
        "enumerates every s-t cut of the fabric's links by the leaves' sides and bisects "
        "the largest rate all cuts carry (quizcoll.witnesses.net_fabric)",
    )
    registry.add_function(
        "witness.hash_occupancy",
        _guard(hash_occupancy),
        params=[
            _int("bins", "uplinks (or experts)", nf.MAX_BINS),
            _int("flows", "flows hashed", nf.MAX_FLOWS, 0),
        ],
        fields=[
            Field("reached", C, "expected uplinks carrying a flow"),
            Field("idle", C, "expected uplinks left idle"),
        ],
    )
    registry.declare_derivation(
        "witness.hash_occupancy",
        D.ENUMERATED,
        "counts the U^F hash functions by how many uplinks they use (surjections by "
        "inclusion-exclusion) and averages (quizcoll.witnesses.net_fabric)",
    )
