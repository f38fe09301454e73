"""Fine-tuning memory: LoRA adapter sizes, QLoRA's NF4 bits per weight, offload transfer time.

- LoRA (Hu et al., "LoRA", ICLR 2022): a frozen d_out × d_in matrix gets a trainable B·A with
  A r × d_in and B d_out × r: r·(d_in + d_out) parameters per adapted matrix. GPT-3 175B
  (96 layers, d = 12,288) with r = 4 on W_q and W_v, r = 8 on W_q alone or r = 2 on all four
  attention matrices has the same 18.9M trainable parameters (their Table 5's "18M").
- QLoRA (Dettmers et al., NeurIPS 2023, §3): NF4 stores 4 bits per weight plus one fp32
  absmax per block of 64: 4 + 32/64 = 4.5 bits. Double quantization stores those absmax
  values in 8 bits with an fp32 constant per 256 of them: 4 + 8/64 + 32/(64·256) ≈ 4.127 bits.
- ZeRO-Offload (Ren et al., USENIX ATC 2021, §4.1): the optimizer lives on the CPU; each step
  moves the fp16 gradients to the CPU (2Ψ bytes) and the updated fp16 parameters back (2Ψ):
  4Ψ over PCIe, 2Ψ per direction when both directions run at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from quizcoll.memory.architecture import ModelConfig
from quizcoll.memory.params import count_parameters, tensors
from quizcoll.systems.errors import SystemsInputError, at_least, exact, positive

# Adapter target names → the tensor names quizcoll.memory.params gives them (dense, MoE, GPT-2).
_TARGETS: dict[str, tuple[str, ...]] = {
    "q": ("attn.q_proj.weight",),
    "k": ("attn.k_proj.weight",),
    "v": ("attn.v_proj.weight",),
    "o": ("attn.o_proj.weight",),
    "gate": ("mlp.gate_proj.weight", "moe.experts.gate_proj.weight"),
    "up": ("mlp.up_proj.weight", "moe.experts.up_proj.weight", "mlp.fc_in.weight"),
    "down": ("mlp.down_proj.weight", "moe.experts.down_proj.weight"),
}
TARGET_NAMES: tuple[str, ...] = tuple(_TARGETS)
ALL_LINEAR = "all"


def parse_targets(text: str) -> tuple[str, ...]:
    """``"q,v"`` → ("q", "v"); ``"all"`` → every linear layer of the blocks."""
    if not isinstance(text, str) or not text.strip():
        raise SystemsInputError(f"targets: expected names like 'q,v' or 'all', got {text!r}")
    if text.strip() == ALL_LINEAR:
        return TARGET_NAMES
    names = tuple(dict.fromkeys(p.strip() for p in text.split(",")))
    bad = [n for n in names if n not in _TARGETS]
    if bad or len(text) > 100:
        raise SystemsInputError(
            f"targets: unknown {bad[0] if bad else text!r}; use names from "
            f"{', '.join(TARGET_NAMES)} or 'all'"
        )
    return names


def lora_parameters(shapes: Iterable[tuple[int, int, int]], rank: int) -> int:
    """Σ copies · r · (d_in + d_out) over (d_out, d_in, copies) matrices."""
    at_least("rank", rank, 1)
    total = 0
    for d_out, d_in, copies in shapes:
        if rank > min(d_out, d_in):
            raise SystemsInputError(f"rank {rank} exceeds the {d_out} × {d_in} matrix")
        total += copies * rank * (d_in + d_out)
    return total


@dataclass(frozen=True)
class LoraPlan:
    lora_parameters: int
    base_parameters: int
    adapted_matrices: int  # per model: layers × targets (× experts)

    @property
    def trainable_fraction(self) -> float:
        return self.lora_parameters / self.base_parameters


def model_lora(cfg: ModelConfig, rank: int, targets: tuple[str, ...]) -> LoraPlan:
    """LoRA parameters of a catalog model with adapters on ``targets``."""
    wanted = {name for t in targets for name in _TARGETS[t]}
    shapes = [(t.shape[0], t.shape[1], t.copies) for t in tensors(cfg) if t.name in wanted]
    if not shapes:
        raise SystemsInputError(f"{cfg.name} has none of the targets {', '.join(targets)}")
    return LoraPlan(
        lora_parameters(shapes, rank),
        count_parameters(cfg).total,
        sum(copies for _, _, copies in shapes),
    )


@dataclass(frozen=True)
class Nf4Storage:
    bits_per_parameter: float
    constant_bits: float  # the per-parameter cost of the quantization constants
    weight_bytes: int
    bf16_bytes: int


def nf4_storage(
    parameters: int,
    double_quant: bool = True,
    block_size: int = 64,
    second_block_size: int = 256,
) -> Nf4Storage:
    """QLoRA's NF4 weight storage, constants included."""
    at_least("parameters", parameters, 1)
    at_least("block_size", block_size, 1)
    at_least("second_block_size", second_block_size, 1)
    if double_quant:
        constants = 8 / block_size + 32 / (block_size * second_block_size)
    else:
        constants = 32 / block_size
    bits = 4 + constants
    return Nf4Storage(bits, constants, math.ceil(parameters * bits / 8), 2 * parameters)


@dataclass(frozen=True)
class Offload:
    to_cpu_bytes: int  # fp16 gradients
    to_gpu_bytes: int  # fp16 parameters
    duplex_time_s: float  # both directions at once
    serial_time_s: float  # one direction after the other


def offload_transfer(parameters: int, bandwidth: float) -> Offload:
    """ZeRO-Offload's per-step PCIe traffic and its time at ``bandwidth`` bytes/s per direction."""
    at_least("parameters", parameters, 1)
    positive("bandwidth", bandwidth)
    one_way = 2 * parameters
    return Offload(one_way, one_way, one_way / bandwidth, exact(2 * one_way) / bandwidth)
