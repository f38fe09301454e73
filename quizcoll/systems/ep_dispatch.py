"""Expert-parallel dispatch across nodes: which bytes leave the node, and over which NIC.

Experts sit in equal contiguous blocks on ``nodes × gpus_per_node`` GPUs. Under uniform
routing each of a GPU's tokens sends its hidden vector to each of its top-k experts, every
expert equally likely. :func:`dispatch` enumerates the experts one by one, from a source
GPU's point of view, and adds the expected bytes each receives to "local", "same node" or
"other node" by where the expert lives. A GPU's off-node bytes leave through its own NIC:
an all-to-all does not spread one GPU's traffic over the node's other NICs (NVIDIA's
nccl-tests issue 267), so the NIC time is those bytes over one NIC's bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least, divides, positive

MAX_EXPERTS = 4096
MAX_GPUS = 4096


@dataclass(frozen=True)
class Dispatch:
    local_bytes: float
    node_bytes: float  # to other GPUs of the same node (NVLink)
    offnode_bytes: float  # through the NIC
    nic_s: float


def dispatch(
    tokens: int,
    top_k: int,
    hidden: int,
    value_bytes: float,
    experts: int,
    nodes: int,
    gpus_per_node: int,
    nic_bandwidth: float,
) -> Dispatch:
    """Expected bytes one GPU's dispatch sends, by destination, and its NIC time."""
    for name, v in (("tokens", tokens), ("top_k", top_k), ("hidden", hidden)):
        at_least(name, v, 1)
    at_least("nodes", nodes, 1)
    at_least("gpus_per_node", gpus_per_node, 1)
    positive("value_bytes", value_bytes)
    positive("nic_bandwidth", nic_bandwidth)
    gpus = nodes * gpus_per_node
    if experts > MAX_EXPERTS or gpus > MAX_GPUS:
        raise SystemsInputError(f"at most {MAX_EXPERTS} experts on {MAX_GPUS} GPUs")
    if top_k > experts:
        raise SystemsInputError(f"top_k {top_k} is more than the {experts} experts")
    divides("GPUs", gpus, "experts", experts)
    per_gpu = experts // gpus
    src = 0  # every GPU is alike under uniform routing; take GPU 0 of node 0
    per_expert = tokens * top_k / experts * hidden * value_bytes
    local = node = off = 0.0
    for e in range(experts):
        owner = e // per_gpu
        if owner == src:
            local += per_expert
        elif owner // gpus_per_node == src // gpus_per_node:
            node += per_expert
        else:
            off += per_expert
    return Dispatch(local, node, off, off / nic_bandwidth)
