"""Second methods for the memory, fine-tuning, sharding and allocator cards (``witness.*``).

Each executable here wraps a witness of :mod:`quizcoll.witnesses` (``mem_*`` modules): the
model shapes, byte widths and allocator constants come in as arguments, which the cards fill
from cited constants (a ``config.json`` line, a source file's constant), never from the
catalogs the calculators read. Each declares how it obtains its result.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
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
from quizcoll.constants.models import model_constants, model_keys
from quizcoll.witnesses import mem_kv

MAX_COUNT = 2**40


def cited_shape(model: str) -> dict[str, float]:
    """A catalog model's figures as its ``config.json`` prints them (the cited constants of
    :mod:`quizcoll.constants.models`, each quote-checked; not the calculators' parser):
    ``{"layers": 32.0, "kv_heads": 8.0, …}``."""
    prefix = model.replace("-", "_").replace(".", "_") + "_"
    shape = {c.name[len(prefix) :]: c.value for c in model_constants() if c.name.startswith(prefix)}
    if "layers" not in shape:
        raise ArgumentError(f"model: no config.json figures for {model!r}")
    return shape


def _model_param() -> Param:
    return Param(
        "model",
        ParamKind.STR,
        "catalog model: its config.json figures",
        choices=model_keys(),
        default=None,
    )


def _refusing(function: Callable[..., Any]) -> Callable[..., Any]:
    """A witness's ValueError as the registry's one-line argument error."""

    @wraps(function)
    def run(**kwargs: Any) -> Any:
        try:
            return function(**kwargs)
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None

    return run


def _int(
    name: str, help: str, *, minimum: int = 1, maximum: float = MAX_COUNT, default: Any = None
) -> Param:
    if default is None:
        return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum)
    return Param(name, ParamKind.INT, help, minimum=minimum, maximum=maximum, default=default)


def _bytes_per_value(default: Any = None) -> Param:
    if default is None:
        return Param(
            "bytes_per_value",
            ParamKind.FLOAT,
            "bytes of one stored value",
            minimum=0.0625,
            maximum=64,
        )
    return Param(
        "bytes_per_value",
        ParamKind.FLOAT,
        "bytes of one stored value",
        minimum=0.0625,
        maximum=64,
        default=default,
    )


def kv_cache(
    model: str | None,
    layers: int,
    kv_heads: int,
    head_dim: int,
    tokens: int,
    bytes_per_value: float,
    batch: int = 1,
    window: int = 0,
) -> dict[str, float]:
    """The enumerated KV cache of explicit shapes, or of ``model``'s config.json figures
    (its sliding window where the config sets one)."""
    if model is not None:
        if layers or kv_heads or head_dim:
            raise ArgumentError("give model or layers/kv_heads/head_dim, not both")
        s = cited_shape(model)
        layers, kv_heads, head_dim = int(s["layers"]), int(s["kv_heads"]), int(s["head_dim"])
        if not window and s["attention_window"] < s["trained_context"]:
            window = int(s["attention_window"])
    elif not (layers and kv_heads and head_dim):
        raise ArgumentError("give model, or all of layers, kv_heads and head_dim")
    return mem_kv.kv_cache_bytes(layers, kv_heads, head_dim, tokens, bytes_per_value, batch, window)


def _register_kv(registry: Registry) -> None:
    registry.add_function(
        "witness.kv_cache",
        _refusing(kv_cache),
        params=[
            _model_param(),
            _int("layers", "decoder layers (or model's)", maximum=1024, default=0, minimum=0),
            _int("kv_heads", "key/value heads (or model's)", maximum=1024, default=0, minimum=0),
            _int("head_dim", "head dimension (or model's)", maximum=4096, default=0, minimum=0),
            _int("tokens", "tokens appended to each sequence", minimum=0, maximum=1 << 20),
            _bytes_per_value(),
            _int("batch", "sequences", maximum=4096, default=1),
            _int("window", "sliding window (0: none)", minimum=0, maximum=1 << 20, default=0),
        ],
        fields=[
            Field("bytes", Dimension.BYTES, "the cached tensors' elements × bytes per value"),
            Field("elements", Dimension.COUNT, "shape products of the cached tensors, summed"),
            Field("tensors", Dimension.COUNT, "cached tensors (a key and a value per layer)"),
            Field("tokens_kept", Dimension.COUNT, "tokens one sequence's cache holds"),
        ],
        summary="The KV cache enumerated tensor by tensor ([batch, tokens, kv_heads, head_dim])",
    )
    registry.declare_derivation(
        "witness.kv_cache",
        Derivation.ENUMERATED,
        "lists a key and a value tensor per layer, [batch, kept, kv_heads, head_dim], and sums "
        "their shape products; a sliding window steps a rolling buffer token by token "
        "(quizcoll.witnesses.mem_kv)",
    )


def register(registry: Registry) -> None:
    _register_kv(registry)
