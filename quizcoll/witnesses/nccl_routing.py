"""Expert-parallel token routing, counted expert by expert: where a GPU's dispatch bytes go.

Experts sit in equal contiguous blocks on the GPUs (GPU ``g`` holds experts
``g·E/G … (g+1)·E/G − 1``), GPUs in nodes of ``gpus_per_node``. With uniform routing each of
a GPU's ``tokens × top_k`` assignments picks every expert with the same chance, so expert
``e`` receives ``tokens·top_k/E`` of them on average. This module walks the experts one by
one, finds each expert's GPU and node, and adds its expected bytes to the class of path it
takes from the sending GPU (GPU 0): stays on the GPU, crosses NVLink inside the node, or
leaves through the NIC. No share such as (n − 1)/n is written anywhere; it falls out of
the placement.

``layer_traffic`` lists the all-to-alls of one MoE layer (forward: dispatch the token states,
combine the expert outputs; backward: the gradients of both, each the mirror of its forward
pass) and sums what one GPU sends in each.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_EXPERTS = 1 << 16


@dataclass(frozen=True)
class Routed:
    local_bytes: float  # to experts on the sending GPU itself
    node_bytes: float  # to the node's other GPUs (NVLink)
    offnode_bytes: float  # to other nodes (the NIC)

    @property
    def sent_bytes(self) -> float:
        """What leaves the GPU."""
        return self.node_bytes + self.offnode_bytes


def route(
    tokens: int,
    top_k: int,
    hidden: int,
    value_bytes: int,
    experts: int,
    gpus: int,
    gpus_per_node: int,
) -> Routed:
    """GPU 0's dispatch under uniform routing, expert by expert."""
    if min(tokens, top_k, hidden, value_bytes, experts, gpus, gpus_per_node) < 1:
        raise ValueError("every count must be at least 1")
    if experts > MAX_EXPERTS:
        raise ValueError(f"at most {MAX_EXPERTS:,} experts")
    if experts % gpus or gpus % gpus_per_node:
        raise ValueError("experts must split evenly over GPUs, and GPUs over nodes")
    if top_k > experts:
        raise ValueError("top_k cannot exceed the experts")
    per_gpu = experts // gpus
    bytes_per_expert = tokens * top_k / experts * hidden * value_bytes
    local = node = off = 0.0
    for e in range(experts):
        gpu = e // per_gpu
        if gpu == 0:
            local += bytes_per_expert
        elif gpu // gpus_per_node == 0:
            node += bytes_per_expert
        else:
            off += bytes_per_expert
    return Routed(local, node, off)


# One MoE layer's all-to-alls in a training step: (pass, what moves, forward?).
LAYER_ALL_TO_ALLS: tuple[tuple[str, str, bool], ...] = (
    ("dispatch", "token hidden states to their experts' GPUs", True),
    ("combine", "expert outputs back to the tokens' GPUs", True),
    ("combine backward", "output gradients to the experts' GPUs", False),
    ("dispatch backward", "input gradients back to the tokens' GPUs", False),
)


@dataclass(frozen=True)
class LayerTraffic:
    dispatch_bytes: float  # one all-to-all
    forward_bytes: float
    step_bytes: float  # forward and backward


def layer_traffic(tokens: int, top_k: int, hidden: int, value_bytes: int, ep: int) -> LayerTraffic:
    """What one GPU sends per MoE layer over ``ep`` GPUs (one node's worth of NVLink or not:
    every byte that leaves the GPU counts), pass by pass."""
    sent = route(tokens, top_k, hidden, value_bytes, ep, ep, ep).sent_bytes
    forward = sum(sent for _, _, fwd in LAYER_ALL_TO_ALLS if fwd)
    step = sum(sent for _ in LAYER_ALL_TO_ALLS)
    return LayerTraffic(sent, forward, step)
