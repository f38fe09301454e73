"""A sharded training step stepped unit by unit: what one GPU holds and what it sends.

Provides:

- :func:`fsdp_step`: FSDP (or HSDP) over ``units`` flat-parameter units. The forward pass
  all-gathers each unit (and the ``prefetch`` next ones) and frees it afterwards when
  resharding; the backward pass walks the units in reverse, gathers what is not gathered,
  holds the unit's unsharded gradient, reduce-scatters it and frees both. The GPU's memory
  is tracked at every unit (live gathered units, the gradient, the padded shard of the
  optimizer's state), and every collective is run as a ring, step by step, counting the
  chunks this rank sends; with replicas, the gradient shard is all-reduced across them
  (reduce-scatter then all-gather rings). Unit sizes and shards are whole elements
  (a unit split evenly, a shard padded to the group).
- :func:`distributed_optimizer_state`: the model states one data-parallel rank holds, tensor
  by tensor: the replicated ones whole and the sharded ones split into ``ranks`` contiguous
  ranges (Megatron's distributed optimizer; ZeRO stage 1).

Byte widths come in as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass


def _whole(name: str, value: int, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: expected a whole number of at least {least}, got {value!r}")
    return value


def _split(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` whole sizes differing by at most one."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _ring_sent(chunk_elements: int, ranks: int, bytes_per_value: float, passes: int = 1) -> float:
    """Bytes one rank sends in ``passes`` rings of ``ranks - 1`` steps, one chunk a step."""
    sent = 0.0
    for _ in range(passes):
        for _step in range(ranks - 1):
            sent += chunk_elements * bytes_per_value
    return sent


@dataclass(frozen=True)
class FsdpStep:
    sharded_state_bytes: float
    forward_peak_bytes: float
    backward_peak_bytes: float
    shard_sent_bytes: float
    replicate_sent_bytes: float
    all_gathers: int  # per unit, over the step

    @property
    def sent_bytes(self) -> float:
        return self.shard_sent_bytes + self.replicate_sent_bytes


def fsdp_step(
    params: int,
    shard_size: int,
    units: int,
    *,
    replicas: int = 1,
    prefetch: int = 1,
    reshard_after_forward: bool = True,
    param_bytes: float = 2,
    grad_bytes: float = 4,
    state_bytes: float = 16,
) -> FsdpStep:
    """One step of rank 0 (see the module docstring)."""
    _whole("params", params)
    _whole("shard_size", shard_size)
    _whole("units", units)
    _whole("replicas", replicas)
    _whole("prefetch", prefetch, 0)
    if units > params:
        raise ValueError("units: more units than parameters")
    sizes = _split(params, units)
    shard_elements = [-(-s // shard_size) for s in sizes]  # each unit padded to the group
    shard = sum(shard_elements) * state_bytes
    live: dict[int, float] = {}
    gathers = [0] * units
    shard_sent = replicate_sent = 0.0

    def gather(i: int) -> None:
        nonlocal shard_sent
        if 0 <= i < units and i not in live:
            live[i] = sizes[i] * param_bytes
            gathers[i] += 1
            shard_sent += _ring_sent(shard_elements[i], shard_size, param_bytes)

    forward_peak = backward_peak = shard
    for i in range(units):
        for j in range(i, i + prefetch + 1):
            gather(j)
        forward_peak = max(forward_peak, shard + sum(live.values()))
        if reshard_after_forward:
            live.pop(i)
    for i in reversed(range(units)):
        for j in range(i, i - prefetch - 1, -1):
            gather(j)
        gradient = sizes[i] * grad_bytes
        backward_peak = max(backward_peak, shard + sum(live.values()) + gradient)
        # reduce-scatter of the unit's gradient in the shard group, then its shard
        # all-reduced across the replicas (a reduce-scatter ring and an all-gather ring)
        shard_sent += _ring_sent(shard_elements[i], shard_size, grad_bytes)
        if replicas > 1:
            piece = -(-shard_elements[i] // replicas)
            replicate_sent += _ring_sent(piece, replicas, grad_bytes, passes=2)
        live.pop(i)
    if len(set(gathers)) != 1:
        raise AssertionError("every unit is gathered equally often")
    return FsdpStep(shard, forward_peak, backward_peak, shard_sent, replicate_sent, gathers[0])


def distributed_optimizer_state(
    params: int,
    ranks: int,
    replicated_bytes: tuple[float, ...],
    sharded_bytes: tuple[float, ...],
) -> dict[str, float]:
    """Rank 0's model states: one tensor of ``params`` values per entry of
    ``replicated_bytes`` (bytes per value) held whole, and one per entry of
    ``sharded_bytes`` of which rank 0 holds its contiguous range."""
    _whole("params", params)
    _whole("ranks", ranks)
    first = _split(params, ranks)[0]
    held = [("replicated", params * b) for b in replicated_bytes]
    held += [("sharded", first * b) for b in sharded_bytes]
    return {
        "bytes": sum(b for _, b in held),
        "replicated_bytes": sum(b for k, b in held if k == "replicated"),
        "sharded_bytes": sum(b for k, b in held if k == "sharded"),
        "tensors": len(held),
    }
