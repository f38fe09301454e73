"""The systems executables: every one runs, declares honest fields, explains itself in one line,
and turns bad arguments into one-line ArgumentErrors."""

from __future__ import annotations

import math

import pytest

from deck.cards.registry import ArgumentError, Dimension
from quizcoll.executables import build_registry
from quizcoll.executables.common import SYSTEMS_NAMESPACES as SYSTEMS

CALLS = {
    "pipeline.schedule": {"schedule": "1f1b", "stages": 4, "micro_batches": 8},
    "pipeline.micro_batches": {"stages": 8, "target": 0.1},
    "training.bytes_per_param": {
        "recipe": "megatron-bf16",
        "data_parallel": 8,
        "distributed_optimizer": True,
        "params": "7B",
    },
    "training.zero_traffic": {"params": "7.5B", "gpus": 64, "zero_stage": 3},
    "training.zeropp": {"params": "7B"},
    "training.fsdp": {"params": "7B", "gpus": 64, "units": 32, "shard_size": 8},
    "training.batch": {
        "global_batch": 1024,
        "micro_batch": 4,
        "data_parallel": 32,
        "seq_len": 4096,
    },
    "gpu.specs": {"gpu": "h100-80gb"},
    "training.flops": {
        "params": "7B",
        "tokens": "2T",
        "seq_len": 4096,
        "model": "llama-2-7b",
        "recompute": "full",
    },
    "training.time": {"params": "7B", "tokens": 2e12, "gpus": 1024},
    "training.mfu": {"params": "7B", "tokens_per_second": 3e6, "gpus": 1024},
    "training.chinchilla": {"params": "70B"},
    "serving.roofline": {"gpu": "h100-80gb", "m": 1, "n": 4096, "k": 4096},
    "serving.decode": {"model": "llama-2-7b", "context": 4096, "batch": 8},
    "serving.request": {"model": "llama-3-8b", "prompt": 2000, "output": 200},
    "serving.paged_kv": {"tokens": 1000, "model": "llama-2-7b", "max_len": 4096},
    "serving.prefix_cache": {"prefix_tokens": 1000, "sequences": 8, "model": "llama-3-8b"},
    "serving.speculative": {"alpha": 0.8, "gamma": 4, "cost_ratio": 0.05},
    "serving.mla_kv": {},
    "serving.decode_crossover": {"model": "llama-3.1-8b", "gpu": "h100-80gb", "context": 1024},
    "context.traffic": {"seq_len": 131072, "cp": 8, "model": "llama-3-8b"},
    "moe.capacity": {
        "tokens": 1024,
        "experts": 8,
        "top_k": 2,
        "capacity_factor": 1.25,
        "loads": "400,300,250,250,200,200,250,198",
    },
    "moe.all_to_all": {"tokens_per_gpu": 4096, "hidden": 4096, "top_k": 2, "ep": 8},
    "moe.balance_loss": {"loads": "10,10,10,10", "probabilities": "0.25,0.25,0.25,0.25"},
    "layout.check": {"world": 1024, "tp": 8, "pp": 4, "model": "llama-2-70b"},
    "layout.traffic": {
        "seq_len": 4096,
        "micro_batch": 1,
        "micro_batches": 32,
        "tp": 8,
        "pp": 4,
        "dp": 32,
        "model": "llama-2-70b",
    },
    "layout.tp_degree": {"model": "llama-2-70b", "gpu": "a100-80gb"},
    "precision.format": {"format": "fp8-e4m3"},
    "precision.loss_scale": {"format": "fp16", "scale": 65536, "grad_max": 10, "grad_min": 1e-10},
    "precision.fp8_scale": {"format": "fp8-e4m3", "amax": 3.5},
    "finetune.lora": {"rank": 8, "model": "llama-2-7b", "targets": "all"},
    "finetune.qlora": {"params": "65B"},
    "finetune.offload": {"params": "7B", "bandwidth": "25GB/s"},
    "allocator.block": {"bytes": "3MiB"},
    "allocator.requests": {"bytes": "1.5MiB", "count": 100},
    "training.pass_flops": {"model": "llama-3-8b", "context": 8192},
    "training.run_mfu": {"tokens": 2e12, "gpu_hours": 184320, "model": "llama-2-7b"},
    "precision.layout": {"exponent_bits": 4, "mantissa_bits": 3, "specials": "nan-only"},
    "overlap.exposed": {"compute": "4ms", "comm": "6ms"},
    "overlap.chunks": {"pattern": "prefetch", "chunks": 32, "compute": "5ms", "comm": "6ms"},
    "overlap.ddp_buckets": {"backward": "40ms", "bucket": "25MiB", "buckets": 8, "ranks": 64},
    "moe.experts_touched": {"experts": 64, "top_k": 8, "batch": 16, "expert_bytes": "350MB"},
    "training.checkpoint": {"params": 7e9, "ranks": 8, "storage_bandwidth": "2GB/s"},
}


def test_every_systems_executable_is_exercised() -> None:
    names = {n for n in build_registry().names() if n.split(".")[0] in SYSTEMS}
    assert names == set(CALLS)


@pytest.mark.parametrize(("name", "args"), sorted(CALLS.items()))
def test_contract_fields_typed_finite_and_explained(name: str, args: dict) -> None:
    """The registry contract (bounded parameters, declared fields present, typed, finite,
    one-line explanation); values are held by the cards' proofs and the unit tables."""
    registry = build_registry()
    ex = registry.get(name)
    assert ex.summary and all(p.help for p in ex.params) and all(f.help for f in ex.fields)
    for p in ex.params:  # every number an author passes is bounded
        if p.choices is None and p.kind.value not in ("str", "bool"):
            assert p.minimum is not None and p.maximum is not None, (name, p.name)
    result = registry.call(name, args)
    for f in ex.fields:
        value = result[f.name]
        if f.dimension is Dimension.TEXT:
            assert isinstance(value, str) and value
        else:
            assert isinstance(value, int | float) and not isinstance(value, bool)
            assert math.isfinite(value), (name, f.name, value)
            assert value >= 0 or f.name == "headroom_bits", (name, f.name, value)
    assert ex.explain is not None
    text = ex.explain(ex.bind(args), result)
    assert text and "\n" not in text
    assert not any(f" {u} " in text for u in ("G", "M")), text


BAD = [
    (
        "pipeline.schedule",
        {"schedule": "interleaved", "stages": 4, "micro_batches": 6, "virtual_stages": 2},
        "multiple of stages",
    ),
    ("pipeline.schedule", {"schedule": "1f2b", "stages": 4, "micro_batches": 8}, "not one of"),
    ("pipeline.micro_batches", {"stages": 4, "target": 0}, "below the minimum"),
    ("training.fsdp", {"params": 1e9, "gpus": 8, "units": 4, "shard_size": 3}, "does not divide"),
    (
        "training.batch",
        {"global_batch": 1000, "micro_batch": 3, "data_parallel": 8, "seq_len": 2048},
        "not a multiple",
    ),
    ("training.chinchilla", {}, "either params or compute"),
    (
        "training.flops",
        {"params": 1e9, "tokens": 1e9, "model": "llama-2-7b", "layers": 32},
        "not both",
    ),
    (
        "training.time",
        {"params": 7e9, "tokens": 1e12, "gpus": 8, "gpu": "t4", "dtype": "bf16"},
        "do not run bf16",
    ),
    ("serving.roofline", {"gpu": "h100-80gb"}, "give m, n and k"),
    ("serving.roofline", {"gpu": "h100-80gb", "m": 1, "n": 2, "k": 3, "flops": 5}, "not both"),
    ("serving.paged_kv", {"tokens": 100}, "either model or kv_bytes_per_token"),
    ("serving.request", {"model": "gpt2", "prompt": 2000, "output": 10}, "learned position"),
    (
        "serving.request",
        {"model": "llama-2-7b", "prompt": 10, "output": 40000},
        "above the maximum",
    ),
    ("context.traffic", {"seq_len": 1000, "cp": 3, "model": "llama-3-8b"}, "does not split"),
    ("context.traffic", {"seq_len": 1024, "cp": 2}, "give a model"),
    ("moe.capacity", {"tokens": 10, "experts": 2, "loads": "5,x"}, "not a whole number"),
    ("moe.capacity", {"tokens": 10, "experts": 2, "loads": "4,4"}, "sum to"),
    ("moe.balance_loss", {"loads": "1,1", "probabilities": "0.9,0.9"}, "sum to 1"),
    ("moe.balance_loss", {"loads": "-1,1", "probabilities": "0.5,0.5"}, "≥ 0"),
    ("layout.check", {"world": 8, "tp": 2, "pp": 1}, "give a model"),
    (
        "layout.traffic",
        {
            "seq_len": 1,
            "micro_batch": 1,
            "micro_batches": 1,
            "tp": 1,
            "pp": 3,
            "dp": 1,
            "model": "llama-2-7b",
        },
        "not divisible by PP",
    ),
    ("precision.format", {"format": "fp12"}, "not one of"),
    (
        "precision.loss_scale",
        {"format": "fp16", "scale": 1, "grad_max": 1, "grad_min": 2},
        "larger than grad_max",
    ),
    ("finetune.lora", {"rank": 8}, "give a model"),
    ("finetune.lora", {"rank": 8, "model": "llama-2-7b", "targets": "q,zz"}, "unknown"),
    ("finetune.lora", {"rank": 9000, "model": "llama-2-7b"}, "exceeds"),
    ("allocator.block", {"bytes": 0}, "below the minimum"),
]


@pytest.mark.parametrize(
    ("name", "args", "message"), BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)]
)
def test_bad_arguments_are_one_line_argument_errors(name: str, args: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message) as info:
        build_registry().call(name, args)
    assert "\n" not in str(info.value)


def test_model_fields_for_draw_constraints() -> None:
    r = build_registry().call("memory.model_params", {"model": "llama-3-8b"})
    assert (r["max_position_embeddings"], r["heads"], r["kv_heads"], r["head_dim"]) == (
        8192,
        32,
        8,
        128,
    )
    tp = build_registry().call("layout.tp_degree", {"model": "llama-2-13b", "gpu": "t4"})
    assert (tp["tp_degree"], tp["memory_gpus"], tp["fits"]) == (4, 3, "yes")
    none = build_registry().call("layout.tp_degree", {"model": "llama-3.1-405b", "gpu": "t4"})
    assert (none["tp_degree"], none["fits"]) == (0, "no")
