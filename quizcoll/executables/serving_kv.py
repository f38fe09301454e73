"""KV-cache and decoding-strategy executables: PagedAttention blocks (``serving.paged_kv``),
prefix caching (``serving.prefix_cache``), speculative decoding (``serving.speculative``) and
MLA's latent KV cache (``serving.mla_kv``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Field, Param, ParamKind, Registry
from quizcoll.executables.common import B, C, R, count_param, guard, num, sizes
from quizcoll.executables.serving import COMPUTE_BYTES, MAX_CONTEXT, kv_value_bytes
from quizcoll.memory import inference
from quizcoll.memory.catalog import load_model, model_names
from quizcoll.memory.formats import KV_DTYPES
from quizcoll.memory.gpus import COMPUTE_DTYPES
from quizcoll.memory.vllm import BLOCK_SIZE
from quizcoll.systems import serving as sv


def _kv_per_token(model: str | None, kv_dtype: str, kv_bytes_per_token: int | None) -> int:
    if (model is None) == (kv_bytes_per_token is None):
        raise ArgumentError("give either model or kv_bytes_per_token")
    if kv_bytes_per_token is not None:
        return kv_bytes_per_token
    cfg = load_model(str(model))
    return inference.kv_bytes_per_token(
        cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, kv_value_bytes(kv_dtype)
    )


def paged_kv(
    tokens: int,
    block_size: int = BLOCK_SIZE,
    model: str | None = None,
    kv_dtype: str = "fp16",
    kv_bytes_per_token: int | None = None,
    sequences: int = 1,
    max_len: int = 0,
) -> dict[str, Any]:
    """PagedAttention's internal fragmentation: the unused tail of each sequence's last block."""
    per_token = _kv_per_token(model, kv_dtype, kv_bytes_per_token)
    p = sv.paged_kv(tokens, block_size, per_token, sequences, max_len)
    return {
        "blocks": p.blocks,
        "allocated_tokens": p.allocated_tokens,
        "waste_tokens": p.waste_tokens,
        "waste_bytes": p.waste_bytes,
        "waste_fraction": p.waste_fraction,
        "reserved_waste_bytes": p.reserved_waste_bytes,
        "kv_bytes_per_token": per_token,
    }


def _explain_paged(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    text = (
        f"⌈{args['tokens']:,} / {args['block_size']}⌉ = {r['blocks']:,} blocks = "
        f"{r['allocated_tokens']:,} token slots: **{r['waste_tokens']} wasted** in the last "
        f"block ({num(r['waste_fraction'])} of the allocation, "
        f"{sizes(r['waste_bytes'])} over {args['sequences']} sequence(s))"
    )
    if args["max_len"]:
        text += (
            f"; reserving {args['max_len']:,} tokens would waste {sizes(r['reserved_waste_bytes'])}"
        )
    return text + "."


def prefix_cache(
    prefix_tokens: int,
    sequences: int,
    block_size: int = BLOCK_SIZE,
    model: str | None = None,
    kv_dtype: str = "fp16",
    kv_bytes_per_token: int | None = None,
) -> dict[str, Any]:
    """KV memory and prefill work saved when sequences share a prompt prefix."""
    per_token = _kv_per_token(model, kv_dtype, kv_bytes_per_token)
    c = sv.prefix_cache(prefix_tokens, sequences, block_size, per_token)
    return {
        "shared_tokens": c.shared_tokens,
        "bytes_without_sharing": c.bytes_without_sharing,
        "bytes_with_sharing": c.bytes_with_sharing,
        "saved_bytes": c.saved_bytes,
        "prefill_tokens_saved": c.prefill_tokens_saved,
        "kv_bytes_per_token": per_token,
    }


def _explain_prefix(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"The {args['prefix_tokens']:,}-token prefix fills {r['shared_tokens']:,} tokens of full "
        f"{args['block_size']}-token blocks; {args['sequences']} sequences share them: "
        f"{sizes(r['bytes_without_sharing'])} → {sizes(r['bytes_with_sharing'])}, "
        f"**{sizes(r['saved_bytes'])} saved**, and {r['prefill_tokens_saved']:,} prefill tokens "
        "skipped."
    )


def speculative(alpha: float, gamma: int, cost_ratio: float = 0.0) -> dict[str, Any]:
    """Speculative decoding: expected tokens per target pass and the walltime speedup."""
    s = sv.speculative(alpha, gamma, cost_ratio)
    return {
        "expected_tokens": s.expected_tokens,
        "accepted_draft_tokens": s.accepted_draft_tokens,
        "speedup": s.speedup,
        "best_gamma": s.best_gamma,
        "best_speedup": s.best_speedup,
    }


def _explain_speculative(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    a, g, c = args["alpha"], args["gamma"], args["cost_ratio"]
    return (
        f"(1 − α^(γ+1))/(1 − α) with α = {num(a)}, γ = {g}: **{num(r['expected_tokens'])} tokens "
        f"per target pass**; speedup over (γc + 1) with c = {num(c)}: {num(r['speedup'])}× "
        f"(best γ ≤ 16: {r['best_gamma']}, {num(r['best_speedup'])}×)."
    )


def mla_kv(
    layers: int = 60,
    latent_dim: int = 512,
    rope_dim: int = 64,
    heads: int = 128,
    head_dim: int = 128,
    dtype: str = "bf16",
) -> dict[str, Any]:
    """MLA's latent KV cache per token against MHA's (defaults: DeepSeek-V2)."""
    lat = sv.latent_kv(layers, latent_dim, rope_dim, heads, head_dim, COMPUTE_BYTES[dtype])
    return {
        "mla_elements_per_token": lat.mla_elements_per_token,
        "mha_elements_per_token": lat.mha_elements_per_token,
        "mla_bytes_per_token": lat.mla_bytes_per_token,
        "mha_bytes_per_token": lat.mha_bytes_per_token,
        "reduction": lat.reduction,
        "gqa_groups_equivalent": lat.gqa_groups_equivalent,
    }


def _explain_mla(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"(d_c + d_R)·l = ({args['latent_dim']} + {args['rope_dim']}) × {args['layers']} = "
        f"**{r['mla_elements_per_token']:,} values per token** "
        f"({sizes(r['mla_bytes_per_token'])}) against MHA's 2·n_h·d_h·l = "
        f"{r['mha_elements_per_token']:,}: {num(r['reduction'])}× smaller, like GQA with "
        f"{num(r['gqa_groups_equivalent'])} groups."
    )


def register(registry: Registry) -> None:
    optional_model = Param(
        "model", ParamKind.STR, "a built-in model", choices=model_names(), default=None
    )
    kv_dtype = Param("kv_dtype", ParamKind.STR, "KV-cache dtype", choices=KV_DTYPES, default="fp16")
    block = count_param(
        "block_size", f"tokens per KV block (vLLM: {BLOCK_SIZE})", 4096, default=BLOCK_SIZE
    )
    kv_per_token = Param(
        "kv_bytes_per_token",
        ParamKind.BYTES,
        "KV bytes per token (instead of a model)",
        minimum=1,
        maximum=2**30,
        default=None,
    )
    registry.add_function(
        "serving.paged_kv",
        guard(paged_kv),
        params=[
            count_param("tokens", "tokens in the sequence", MAX_CONTEXT),
            block,
            optional_model,
            kv_dtype,
            kv_per_token,
            count_param("sequences", "sequences", 1e6, default=1),
            count_param(
                "max_len",
                "tokens reserved per sequence without paging",
                MAX_CONTEXT,
                minimum=0,
                default=0,
            ),
        ],
        fields=[
            Field("blocks", C, "blocks per sequence"),
            Field("allocated_tokens", C, "token slots allocated per sequence"),
            Field("waste_tokens", C, "unused slots in the last block"),
            Field("waste_bytes", B, "unused KV bytes, all sequences"),
            Field("waste_fraction", R, "unused share of the allocation"),
            Field("reserved_waste_bytes", B, "waste of reserving max_len instead"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
        ],
        explain=_explain_paged,
    )
    registry.add_function(
        "serving.prefix_cache",
        guard(prefix_cache),
        params=[
            count_param("prefix_tokens", "tokens of the shared prefix", MAX_CONTEXT),
            count_param("sequences", "sequences sharing it", 1e6),
            block,
            optional_model,
            kv_dtype,
            kv_per_token,
        ],
        fields=[
            Field("shared_tokens", C, "prefix tokens in full blocks"),
            Field("bytes_without_sharing", B, "prefix KV of all sequences, unshared"),
            Field("bytes_with_sharing", B, "with the full blocks shared"),
            Field("saved_bytes", B, "KV memory saved"),
            Field("prefill_tokens_saved", C, "prefill tokens not recomputed"),
            Field("kv_bytes_per_token", B, "KV bytes per token"),
        ],
        explain=_explain_prefix,
    )
    registry.add_function(
        "serving.speculative",
        guard(speculative),
        params=[
            Param("alpha", ParamKind.FLOAT, "acceptance rate α", minimum=0, maximum=1),
            count_param("gamma", "draft tokens γ per iteration", 16),
            Param(
                "cost_ratio",
                ParamKind.FLOAT,
                "draft cost c in target passes",
                minimum=0,
                maximum=1,
                default=0.0,
            ),
        ],
        fields=[
            Field("expected_tokens", R, "tokens per target pass"),
            Field("accepted_draft_tokens", R, "draft tokens accepted per pass"),
            Field("speedup", R, "walltime improvement"),
            Field("best_gamma", C, "γ with the largest speedup (up to 16)"),
            Field("best_speedup", R, "speedup at the best γ"),
        ],
        explain=_explain_speculative,
    )
    registry.add_function(
        "serving.mla_kv",
        guard(mla_kv),
        params=[
            count_param("layers", "layers l", 1000, default=60),
            count_param("latent_dim", "KV latent d_c", 65536, default=512),
            count_param("rope_dim", "decoupled RoPE key d_R", 65536, minimum=0, default=64),
            count_param("heads", "attention heads n_h (for MHA)", 4096, default=128),
            count_param("head_dim", "head size d_h", 4096, default=128),
            Param("dtype", ParamKind.STR, "cache dtype", choices=COMPUTE_DTYPES, default="bf16"),
        ],
        fields=[
            Field("mla_elements_per_token", C, "(d_c + d_R)·l"),
            Field("mha_elements_per_token", C, "2·n_h·d_h·l"),
            Field("mla_bytes_per_token", B, "MLA cache bytes per token"),
            Field("mha_bytes_per_token", B, "MHA cache bytes per token"),
            Field("reduction", R, "MHA / MLA"),
            Field("gqa_groups_equivalent", R, "(d_c + d_R)/(2·d_h)"),
        ],
        explain=_explain_mla,
    )
