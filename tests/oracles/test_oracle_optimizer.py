"""Oracle: model-state bytes per parameter after a real optimizer step, against the recipes.

A small MLP takes one real ``torch.optim.AdamW`` step; the bytes are the storages held
afterwards by the parameters, their gradients and ``optimizer.state`` (fp32 master weights
where the recipe keeps them), each storage counted once, divided by the parameter count.

- fp32 (Megatron-Core's fp32 recipe): fp32 params and grads, AdamW's exp_avg, exp_avg_sq.
- bf16 params with fp32 main grads and an fp32 master copy (Megatron-Core's bf16 recipe).
- fp16 params and grads with the fp32 master copy (the ZeRO paper's K = 12 recipe).
- bitsandbytes' AdamW8bit (runs on CPU since bitsandbytes 0.49): one byte per moment plus an
  fp32 absmax per 256-value block and two 256-entry fp32 maps that all tensors share; tensors under
  4,096 values keep fp32 moments (``min_8bit_size``). Against the card constant 4 + 1 + 1.

AdamW's ``step`` counters (one fp32 scalar per tensor) are per tensor, not per parameter:
they are counted and shown to vanish per parameter (< 0.01 B here).
"""

from __future__ import annotations

import bitsandbytes as bnb
import pytest
import torch

from quizcoll.constants import all_constants
from quizcoll.memory.training import Recipe, recipe_states

WIDTH = 512  # every weight 512 × 512 = 262,144 values: far above bitsandbytes' 4,096 floor


def _model(dtype: torch.dtype) -> torch.nn.Module:
    torch.manual_seed(0)
    layers = [torch.nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(3)]
    return torch.nn.Sequential(*layers).to(dtype)


def _storage_bytes(tensors) -> int:
    seen: dict[int, int] = {}
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.numel():
            seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
    return sum(seen.values())


def _state_tensors(optimizer: torch.optim.Optimizer):
    for state in optimizer.state.values():
        yield from state.values()


def _backward(model: torch.nn.Module, dtype: torch.dtype) -> None:
    x = torch.randn(8, WIDTH, dtype=dtype)
    model(x).float().pow(2).mean().backward()


def _count(model) -> int:
    return sum(p.numel() for p in model.parameters())


def test_fp32_adamw_holds_megatron_fp32_recipe():
    model = _model(torch.float32)
    opt = torch.optim.AdamW(model.parameters())
    _backward(model, torch.float32)
    opt.step()
    params = list(model.parameters())
    held = _storage_bytes([*params, *(p.grad for p in params), *_state_tensors(opt)])
    per_param = held / _count(model)
    assert per_param == pytest.approx(
        recipe_states(Recipe.MEGATRON_FP32).bytes_per_parameter, abs=0.01
    )


def _mixed_step(dtype: torch.dtype, main_grads: bool) -> float:
    """One step with low-precision params, an fp32 master copy and (optionally) fp32 main grads."""
    model = _model(dtype)
    params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(master)
    _backward(model, dtype)
    for p, m in zip(params, master, strict=True):
        m.grad = p.grad.float()
        if main_grads:  # Megatron: the fp32 main grad is the gradient buffer; no bf16 copy kept
            p.grad = None
    opt.step()
    with torch.no_grad():
        for p, m in zip(params, master, strict=True):
            p.copy_(m)
    kept_grads = [m.grad for m in master] if main_grads else [p.grad for p in params]
    held = _storage_bytes([*params, *kept_grads, *master, *_state_tensors(opt)])
    return held / _count(model)


def test_bf16_params_fp32_main_grads_and_master_hold_megatron_bf16_recipe():
    per_param = _mixed_step(torch.bfloat16, main_grads=True)
    assert per_param == pytest.approx(
        recipe_states(Recipe.MEGATRON_BF16).bytes_per_parameter, abs=0.01
    )


def test_fp16_params_and_grads_with_fp32_master_hold_the_zero_papers_16_bytes():
    per_param = _mixed_step(torch.float16, main_grads=False)
    assert per_param == pytest.approx(recipe_states(Recipe.ZERO_FP16).bytes_per_parameter, abs=0.01)


def test_bitsandbytes_adamw8bit_state_is_two_bytes_plus_block_scales():
    model = _model(torch.float32)
    opt = bnb.optim.AdamW8bit(model.parameters())
    _backward(model, torch.float32)
    opt.step()
    state = _storage_bytes(list(_state_tensors(opt)))
    n = _count(model)
    # 2 one-byte moments, an fp32 absmax per 256 values, two 256-entry fp32 maps shared by all
    assert state == 2 * n + 2 * 4 * (n // 256) + 2 * 256 * 4
    master_plus_state = 4 + state / n  # the fp32 weights are the master copy here
    card = next(c.value for c in all_constants() if c.name == "adam_8bit_optimizer_bytes_per_param")
    assert master_plus_state == pytest.approx(card, rel=0.01)
    assert master_plus_state > card  # the block scales are what the card's 6 B leaves out


def test_bitsandbytes_keeps_fp32_moments_for_small_tensors():
    small = torch.nn.Linear(32, 32, bias=False)  # 1,024 values < min_8bit_size = 4,096
    opt = bnb.optim.AdamW8bit(small.parameters())
    small(torch.randn(4, 32)).pow(2).mean().backward()
    opt.step()
    moments = [t for t in _state_tensors(opt) if isinstance(t, torch.Tensor) and t.numel() > 1]
    assert {t.dtype for t in moments} == {torch.float32}
    assert _storage_bytes(moments) == 8 * 1024
