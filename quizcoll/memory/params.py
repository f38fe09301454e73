"""The tensors of a model and its exact parameter count, by component.

:func:`tensors` lists every parameter tensor the Hugging Face implementation creates
(shapes as ``(out_features, in_features)`` for linear layers), each with how many copies
exist (layers × experts) and how many of those a token uses (MoE: the top-k experts).
Counting is a sum over this list, and the quantization formats size the same list,
so counts and weight bytes always agree.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass

from quizcoll.memory.architecture import MlpKind, ModelConfig, NormKind


class Component(enum.Enum):
    """Where a tensor belongs in the breakdown."""

    EMBEDDINGS = "embeddings"  # token and learned position embeddings
    ATTENTION = "attention"
    MLP = "mlp"  # the dense MLP, or the experts of an MoE layer
    ROUTER = "router"
    NORMS = "norms"
    HEAD = "head"  # the untied output projection (lm_head)


class Role(enum.Enum):
    """What kind of tensor it is; decides what a quantization format does with it."""

    LINEAR = "linear"  # a weight matrix inside a transformer block
    EMBEDDING = "embedding"
    HEAD = "head"
    ROUTER = "router"
    VECTOR = "vector"  # norm weights and biases


@dataclass(frozen=True)
class Tensor:
    """One parameter tensor, present ``copies`` times; ``active_copies`` are used per token."""

    name: str
    shape: tuple[int, ...]
    component: Component
    role: Role
    copies: int = 1
    active_copies: int = 1

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def parameters(self) -> int:
        return self.numel * self.copies

    @property
    def active_parameters(self) -> int:
        return self.numel * self.active_copies


@dataclass(frozen=True)
class ParameterCount:
    """Total and per-token-active parameters, with the per-component split."""

    total: int
    active: int
    by_component: tuple[tuple[Component, int], ...]
    active_by_component: tuple[tuple[Component, int], ...]

    def component(self, component: Component) -> int:
        return dict(self.by_component).get(component, 0)

    def as_dict(self) -> dict[str, int]:
        return {c.value: n for c, n in self.by_component}


@functools.lru_cache(maxsize=64)  # pure in a frozen config; every sizing asks again
def tensors(cfg: ModelConfig) -> tuple[Tensor, ...]:
    """Every parameter tensor of ``cfg`` as its ``*ForCausalLM`` class builds it."""
    h, layers = cfg.hidden_size, cfg.num_layers
    q_out = cfg.num_heads * cfg.head_dim
    kv_out = cfg.num_kv_heads * cfg.head_dim
    inter = cfg.intermediate_size
    out: list[Tensor] = [
        Tensor("embed_tokens", (cfg.vocab_size, h), Component.EMBEDDINGS, Role.EMBEDDING)
    ]
    if cfg.learned_positions:
        assert cfg.max_position_embeddings is not None  # gpt2 configs require n_positions
        out.append(
            Tensor(
                "embed_positions",
                (cfg.max_position_embeddings, h),
                Component.EMBEDDINGS,
                Role.EMBEDDING,
            )
        )

    def per_layer(name: str, shape: tuple[int, ...], component: Component, role: Role) -> None:
        out.append(Tensor(name, shape, component, role, copies=layers, active_copies=layers))

    for proj, rows, bias in (
        ("q_proj", q_out, cfg.qkv_bias),
        ("k_proj", kv_out, cfg.qkv_bias),
        ("v_proj", kv_out, cfg.qkv_bias),
    ):
        per_layer(f"attn.{proj}.weight", (rows, h), Component.ATTENTION, Role.LINEAR)
        if bias:
            per_layer(f"attn.{proj}.bias", (rows,), Component.ATTENTION, Role.VECTOR)
    per_layer("attn.o_proj.weight", (h, q_out), Component.ATTENTION, Role.LINEAR)
    if cfg.o_bias:
        per_layer("attn.o_proj.bias", (h,), Component.ATTENTION, Role.VECTOR)

    mlp: list[tuple[str, tuple[int, int], int]] = (
        [("gate_proj", (inter, h), inter), ("up_proj", (inter, h), inter)]
        if cfg.mlp_kind is MlpKind.GATED
        else [("fc_in", (inter, h), inter)]
    )
    mlp.append(("down_proj", (h, inter), h))
    if cfg.is_moe:
        per_layer("moe.router.weight", (cfg.num_experts, h), Component.ROUTER, Role.ROUTER)
        for proj, shape, _ in mlp:
            out.append(
                Tensor(
                    f"moe.experts.{proj}.weight",
                    shape,
                    Component.MLP,
                    Role.LINEAR,
                    copies=layers * cfg.num_experts,
                    active_copies=layers * cfg.experts_per_token,
                )
            )
    else:
        for proj, shape, rows in mlp:
            per_layer(f"mlp.{proj}.weight", shape, Component.MLP, Role.LINEAR)
            if cfg.mlp_bias:
                per_layer(f"mlp.{proj}.bias", (rows,), Component.MLP, Role.VECTOR)

    norm_tensors = ("weight", "bias") if cfg.norm_kind is NormKind.LAYERNORM else ("weight",)
    for norm in ("input_norm", "post_attention_norm"):
        for part in norm_tensors:
            per_layer(f"{norm}.{part}", (h,), Component.NORMS, Role.VECTOR)
    for part in norm_tensors:
        out.append(Tensor(f"final_norm.{part}", (h,), Component.NORMS, Role.VECTOR))
    if not cfg.tie_embeddings:
        out.append(Tensor("lm_head.weight", (cfg.vocab_size, h), Component.HEAD, Role.HEAD))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def count_parameters(cfg: ModelConfig) -> ParameterCount:
    """Exact parameter count of ``cfg``: total, active per token, by component."""
    ts = tensors(cfg)
    total: dict[Component, int] = dict.fromkeys(Component, 0)
    active: dict[Component, int] = dict.fromkeys(Component, 0)
    for t in ts:
        total[t.component] += t.parameters
        active[t.component] += t.active_parameters
    return ParameterCount(
        total=sum(total.values()),
        active=sum(active.values()),
        by_component=tuple((c, n) for c, n in total.items() if n),
        active_by_component=tuple((c, n) for c, n in active.items() if n),
    )


def llama_layer(hidden: int, kv_width: int, intermediate: int) -> dict[Component, int]:
    """Parameters of one Llama decoder layer by component: q and o ``hidden × hidden``, k and
    v ``hidden × kv_width`` (kv_heads × head_dim), gate/up/down with ``intermediate``, two
    RMSNorm weights, no biases — counted from the same tensor list as a whole model."""
    from quizcoll.memory.errors import MemoryInputError

    for label, value in (
        ("hidden", hidden),
        ("kv_width", kv_width),
        ("intermediate", intermediate),
    ):
        if value < 1:
            raise MemoryInputError(f"{label} must be at least 1, got {value}")
    # One head dimension of 1: q has `hidden` outputs and k, v have `kv_width`, whatever the
    # real split into heads (which does not change the count).
    cfg = ModelConfig(
        model_type="llama",
        name="one decoder layer",
        vocab_size=1,
        hidden_size=hidden,
        num_layers=1,
        num_heads=hidden,
        num_kv_heads=kv_width,
        head_dim=1,
        intermediate_size=intermediate,
        tie_embeddings=True,
        max_position_embeddings=None,
        learned_positions=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        mlp_kind=MlpKind.GATED,
        norm_kind=NormKind.RMSNORM,
        num_experts=0,
        experts_per_token=0,
        sliding_windows=(None,),
    )
    out: dict[Component, int] = dict.fromkeys(
        (Component.ATTENTION, Component.MLP, Component.NORMS), 0
    )
    for t in tensors(cfg):
        if t.component in out and not t.name.startswith("final_norm"):
            out[t.component] += t.parameters
    return out


def largest_module_params(cfg: ModelConfig) -> int:
    """Parameters of the largest single module, as transformers 5 lays a model out.

    What DeepSpeed's ZeRO-3 estimator calls the largest layer (the module whose parameters
    are gathered whole): an embedding or the output head, one projection with its bias, or,
    in an MoE model, the module that holds all experts' gate, up and down weights of a layer.
    """
    module: dict[str, int] = {}
    for t in tensors(cfg):
        prefix = t.name.rsplit(".", 1)[0] if "." in t.name else t.name
        if t.name.startswith("moe.experts."):
            prefix = "moe.experts"
        per_copy = t.numel * (cfg.num_experts if prefix == "moe.experts" else 1)
        module[prefix] = module.get(prefix, 0) + per_copy
    return max(module.values())
