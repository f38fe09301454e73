"""The memory witnesses (quizcoll.witnesses.mem_*) held to hand-enumerated small cases,
published figures and properties — never to the calculators' formulas."""

from __future__ import annotations

import itertools

import pytest

from quizcoll.witnesses import (
    mem_activations,
    mem_allocator,
    mem_formats,
    mem_kv,
    mem_layers,
    mem_offload,
    mem_sharding,
)

MiB = 1 << 20
# c10/cuda/CUDACachingAllocator.cpp: kMinBlockSize, kSmallSize, kSmallBuffer, kLargeBuffer,
# kMinLargeAlloc, kRoundLarge.
TORCH = mem_allocator.AllocatorConstants(512, MiB, 2 * MiB, 20 * MiB, 10 * MiB, 2 * MiB)


# ---------------------------------------------------------------- KV cache


def test_kv_cache_small_case_by_hand() -> None:
    # 2 layers × (key, value), each [1 sequence, 3 tokens, 1 head, 2 dims] = 6 values.
    tensors = mem_kv.kv_cache_tensors(layers=2, kv_heads=1, head_dim=2, tokens=3)
    assert [name for name, _ in tensors] == [
        "layers.0.key",
        "layers.0.value",
        "layers.1.key",
        "layers.1.value",
    ]
    assert all(shape == (1, 3, 1, 2) for _, shape in tensors)
    assert mem_kv.kv_cache_bytes(2, 1, 2, 3, bytes_per_value=2)["bytes"] == 4 * 6 * 2


def test_kv_cache_depends_on_kv_heads_only() -> None:
    # Grouped-query attention: 64 query heads sharing 8 KV heads cache 8 heads' vectors, so
    # the per-token bytes of Llama-3-70B's shape (80 layers, 8 KV heads of 128) are
    # 80 × 2 × 8 × 128 × 2 B = 320 KiB, and 8 times that with one KV head per query head.
    gqa = mem_kv.kv_cache_bytes(80, 8, 128, tokens=1, bytes_per_value=2)["bytes"]
    mha = mem_kv.kv_cache_bytes(80, 64, 128, tokens=1, bytes_per_value=2)["bytes"]
    assert gqa == 320 * 1024
    assert mha == 8 * gqa


def test_rolling_buffer_keeps_at_most_the_window() -> None:
    assert mem_kv.tokens_kept(3, window=4) == 3
    assert mem_kv.tokens_kept(4, window=4) == 4
    assert mem_kv.tokens_kept(5, window=4) == 4
    assert mem_kv.tokens_kept(10_000, window=0) == 10_000
    kept = [mem_kv.tokens_kept(t, window=16) for t in range(40)]
    assert kept == sorted(kept) and max(kept) == 16


def test_kv_cache_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="kv_heads"):
        mem_kv.kv_cache_tensors(layers=2, kv_heads=0, head_dim=2, tokens=3)


# ---------------------------------------------------------------- layers and LoRA


def test_llama_2_7b_total_from_the_enumerated_layer() -> None:
    # Published: meta-llama/Llama-2-7b-hf has 6,738,415,616 parameters (safetensors
    # metadata). 32 enumerated layers of config.json's shape (4096, no GQA, 11008), two
    # untied 32000 × 4096 embeddings and the final norm.
    layer = mem_layers.layer_parameter_counts(4096, 4096, 4096, 11008)["parameters"]
    assert 32 * layer + 2 * 32000 * 4096 + 4096 == 6_738_415_616


def test_lora_small_case_by_hand() -> None:
    # One layer, hidden 4, queries 4 wide, keys/values 2 wide, rank 1 on q and v:
    # A_q [1, 4], B_q [4, 1], A_v [1, 4], B_v [2, 1] = 4 + 4 + 4 + 2.
    adapters = mem_layers.lora_adapters(1, 1, 4, 4, 2, 8, ("q_proj", "v_proj"))
    assert [s for _, s in adapters] == [(1, 4), (4, 1), (1, 4), (2, 1)]
    totals = mem_layers.lora_totals(adapters, state_bytes=16)
    assert totals == {"parameters": 14, "adapted_matrices": 2, "state_bytes": 224}


def test_lora_grows_linearly_with_rank() -> None:
    def count(r: int) -> int:
        a = mem_layers.lora_adapters(r, 2, 64, 64, 16, 128, mem_layers.ATTENTION)
        return mem_layers.lora_totals(a, 1)["parameters"]

    assert count(8) == 8 * count(1)


def test_nf4_constants_match_the_qlora_paper() -> None:
    # Dettmers et al. 2023 §3: double quantization cuts the constants from 32/64 = 0.5
    # bits per parameter to 8/64 + 32/(64·256) = 0.127 bits.
    n = 64 * 256 * 1000
    dq = mem_layers.nf4_bytes(n)
    plain = mem_layers.nf4_bytes(n, double_quant=False)
    assert plain["constant_bytes"] * 8 / n == 0.5
    assert dq["constant_bytes"] * 8 / n == pytest.approx(0.127, abs=5e-4)
    assert dq["code_bytes"] == n // 2


def test_vocab_split_covers_the_vocabulary_once() -> None:
    r = mem_layers.vocab_parallel_logits(tokens=5, vocab=10, ranks=3, bytes_per_value=4)
    assert r["slice"] == 4  # slices 4, 3, 3
    assert r["elements"] == 5 * 4
    assert r["total_elements"] == 5 * 10


# ---------------------------------------------------------------- caching allocator


def test_allocator_replay_by_hand() -> None:
    # 3 MiB tensors: a 20 MiB segment serves six (18 MiB, the 2 MiB rest split off as it is
    # more than kSmallSize); the seventh needs a second segment.
    state = mem_allocator.replay([3 * MiB] * 7, TORCH)
    assert state.segments == [20 * MiB, 20 * MiB]
    assert state.served_by == [0] * 6 + [1]
    assert state.allocated_bytes == 21 * MiB


def test_allocator_unsplit_rest_goes_with_the_block() -> None:
    # 13 MiB: its own segment rounded to 14 MiB; the 1 MiB rest is not more than kSmallSize,
    # so the block handed out is the whole segment.
    state = mem_allocator.replay([13 * MiB], TORCH)
    assert state.segments == [14 * MiB]
    assert state.handed_out == [14 * MiB]


def test_allocator_small_pool() -> None:
    assert mem_allocator.served_by_first_segment(1, TORCH) == 4096  # 512 B blocks in 2 MiB
    assert mem_allocator.served_by_first_segment(MiB, TORCH) == 2


def test_allocator_fewer_per_segment_as_tensors_grow() -> None:
    sizes = [int(x * MiB) for x in (1.25, 1.5, 2, 2.5, 3, 4, 5, 6.5, 9.5)]
    served = [mem_allocator.served_by_first_segment(s, TORCH) for s in sizes]
    assert served == sorted(served, reverse=True)
    assert all(n * s <= 20 * MiB < (n + 1) * s for n, s in zip(served, sizes, strict=True))


# ---------------------------------------------------------------- sharding


def test_fsdp_step_small_case_by_hand() -> None:
    # 8 parameters, 2 GPUs, 2 units of 4, no prefetch: shard 2 + 2 elements × 16 B = 64 B;
    # forward holds one gathered unit (8 B); backward one unit and its fp32 gradient (16 B).
    # Each all-gather ring sends one 2-element bf16 chunk (4 B), each reduce-scatter one
    # fp32 chunk (8 B): 4 gathers and 2 reduce-scatters.
    s = mem_sharding.fsdp_step(8, 2, 2, prefetch=0)
    assert s.sharded_state_bytes == 64
    assert s.forward_peak_bytes == 72
    assert s.backward_peak_bytes == 88
    assert s.all_gathers == 2
    assert s.sent_bytes == 4 * 4 + 2 * 8
    kept = mem_sharding.fsdp_step(8, 2, 2, prefetch=0, reshard_after_forward=False)
    assert kept.all_gathers == 1 and kept.sent_bytes == 2 * 4 + 2 * 8
    assert kept.forward_peak_bytes == 64 + 16  # both units gathered at the end


def test_fsdp_prefetch_holds_one_more_unit() -> None:
    peaks = [
        mem_sharding.fsdp_step(64_000, 8, 16, prefetch=p).backward_peak_bytes for p in range(4)
    ]
    unit = 64_000 // 16 * 2
    assert [b - a for a, b in itertools.pairwise(peaks)] == [unit] * 3


def test_single_gpu_sends_nothing() -> None:
    assert mem_sharding.fsdp_step(1000, 1, 4).sent_bytes == 0


def test_distributed_optimizer_by_hand() -> None:
    # 10 parameters over 3 ranks: rank 0 holds 4 of each sharded tensor.
    r = mem_sharding.distributed_optimizer_state(10, 3, (2, 4), (4, 4, 4))
    assert r["replicated_bytes"] == 60
    assert r["sharded_bytes"] == 48
    assert r["tensors"] == 5


# ---------------------------------------------------------------- activations


def test_gpt_layer_list_gives_the_papers_table_2() -> None:
    # Korthikanti et al. 2022, Table 2 (per layer, bytes): no parallelism sbh(34 + 5as/h);
    # tensor parallelism sbh(10 + 24/t + 5as/(ht)); with sequence parallelism and selective
    # recomputation 34sbh/t; full recomputation 2sbh.
    s, b, h, a, t = 2048, 2, 4096, 32, 4
    sbh = s * b * h
    listed = mem_activations.gpt_layer_saved(s, b, h, a)
    assert mem_activations.saved_bytes(listed) == sbh * (34 + 5 * a * s / h)
    assert mem_activations.saved_bytes(listed, t) == sbh * (10 + 24 / t + 5 * a * s / (h * t))
    selective = mem_activations.gpt_layer_saved(s, b, h, a, "selective")
    assert mem_activations.saved_bytes(selective, t, sequence_parallel=True) == 34 * sbh / t
    full = mem_activations.gpt_layer_saved(s, b, h, a, "full")
    assert mem_activations.saved_bytes(full) == 2 * sbh


def test_llama_layer_small_case_by_hand() -> None:
    # One token, hidden 2, 1 head of 2, 1 KV head, MLP 3, bf16: two norms of
    # 4·2 + 4 + 2·2 + 2·2 = 20 B; q, k, v, output 4 × 2 × 2 = 16 B; log-sum-exp 4 B;
    # SwiGLU 4 × 3 × 2 = 24 B.
    listed = mem_activations.llama_layer_saved(1, 1, 2, 1, 1, 2, 3)
    assert mem_activations.saved_bytes(listed) == 2 * 20 + 16 + 4 + 24


# ---------------------------------------------------------------- offload


def test_offload_duplex_halves_the_serial_step() -> None:
    # ZeRO-Offload (Ren et al. 2021 §4.1): 2 B of gradient out and 2 B of parameter back per
    # parameter. 1e9 parameters at 1e9 B/s: 2 s each way; at once 2 s, one after the other 4 s.
    duplex = mem_offload.offload_steps(10**9, 1e9, duplex=True)
    serial = mem_offload.offload_steps(10**9, 1e9, duplex=False)
    assert duplex.to_cpu_bytes == duplex.to_gpu_bytes == 2e9
    assert duplex.step_time_s == pytest.approx(2.0)
    assert serial.step_time_s == pytest.approx(4.0)


def test_offload_one_bucket_cannot_overlap_within_a_step() -> None:
    # With a single bucket the parameters come back only after all gradients went out, but
    # across steps the return still overlaps the next step's gradients.
    one = mem_offload.offload_steps(1000, 1000.0, duplex=True, buckets=1)
    assert one.step_time_s == pytest.approx(2.0)


# ---------------------------------------------------------------- stored weights


def test_gguf_blocks_have_ggml_common_sizes() -> None:
    # llama.cpp ggml-common.h static_asserts: block_q8_0 34 B per 32, block_q4_0 18 B per
    # 32, block_q4_K 144 B, block_q5_K 176 B and block_q6_K 210 B per 256 weights.
    printed = {
        "q8_0": 34 / 32,
        "q4_0": 18 / 32,
        "q4_k": 144 / 256,
        "q5_k": 176 / 256,
        "q6_k": 210 / 256,
    }
    for fmt, per_weight in printed.items():
        assert mem_formats.stored_bytes(4096 * 256, fmt)["bytes"] == 4096 * 256 * per_weight


def test_plain_formats_and_an_odd_count() -> None:
    n = 3 * mem_formats.CHUNK + 5
    assert mem_formats.stored_bytes(n, "fp32")["bytes"] == 4 * n
    assert mem_formats.stored_bytes(n, "bf16")["bytes"] == 2 * n
    assert mem_formats.stored_bytes(n, "int8")["bytes"] == n
    assert mem_formats.stored_bytes(7, "int4")["bytes"] == 4  # 7 nibbles take 4 bytes
