"""The subject's classic mistakes, registered with the engine as detectors.

The engine (:mod:`deck.answers.mistakes`) knows unit slips; this module knows distributed training and
GPU memory: the all-reduce volume given for a reduce-scatter or all-gather, the ring's (N−1)/N
factor dropped, a bidirectional bandwidth used as one direction's, K and V counted once,
grouped-query attention ignored, and the fp32 master copy or the optimizer states forgotten in
training memory. Each decides where it applies from the card's executable and field (numeric
cards) or its tags and formula (formula cards), so it is never offered where it cannot be.
:data:`DETECTORS` lists them; :func:`register` adds them to a registry.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from deck.answers.mistakes import Attempt, Detector, FactorDetector, TransformDetector
from deck.cards.model import CardType
from deck.cards.registry import Registry
from deck.formula import BinOp, Expr, Num, Var, parse
from deck.units import Dim

_BYTE_FIELDS = frozenset(
    {"max_bytes_sent", "max_bytes_received", "bytes_per_gpu", "total_bytes", "traffic_factor"}
)
_KV_FIELDS = frozenset({"kv_bytes_per_token", "kv_cache_bytes"})
_KV_RUNS = frozenset({"memory.kv_cache", "memory.inference"})


def _run(attempt: Attempt) -> str:
    answer = attempt.card.answer
    return answer.computation.run if answer and answer.computation else ""


def _field(attempt: Attempt) -> str:
    answer = attempt.card.answer
    return answer.computation.field if answer and answer.computation else ""


def _args(attempt: Attempt) -> dict[str, Any]:
    return dict(attempt.solution.args or {})


def _collective(attempt: Attempt) -> str:
    """The collective a numeric card runs (``reduce_scatter``), or ``""``."""
    run = _run(attempt)
    if not run.startswith("collectives."):
        return ""
    name = run.removeprefix("collectives.")
    return str(_args(attempt).get("collective", "")) if name == "cost" else name


def _formula_tagged(attempt: Attempt, *tags: str) -> bool:
    return attempt.card.type is CardType.FORMULA and bool(set(tags) & set(attempt.card.tags))


# ----------------------------------------------------------------------------- collectives


def _half_of_all_reduce(attempt: Attempt) -> bool:
    if _formula_tagged(attempt, "reduce-scatter", "all-gather"):
        return "all-reduce" not in attempt.card.tags
    return _collective(attempt) in ("reduce_scatter", "all_gather") and (
        _field(attempt) in _BYTE_FIELDS
    )


def _all_reduce_message(attempt: Attempt) -> str:
    gather = _collective(attempt) == "all_gather" or "all-gather" in attempt.card.tags
    if gather and "reduce-scatter" not in attempt.card.tags:
        return (
            "That is the all-reduce volume: an all-gather is half of it — each rank receives "
            "the N−1 shards it lacks, (N−1)/N of the gathered buffer."
        )
    return (
        "That is the all-reduce volume (a common slip): a ring reduce-scatter is half "
        "of it, (N−1)/N·S — N−1 steps of one S/N chunk; 2(N−1)/N·S is reduce-scatter plus "
        "all-gather."
    )


ALL_REDUCE_VOLUME = FactorDetector(
    "all-reduce-volume",
    _all_reduce_message,
    (Fraction(2),),
    _half_of_all_reduce,
    tag="seed-mistake",
)


def _rank_variable(expr: Expr) -> str | None:
    """The variable N of a (N−1)/N factor in ``expr``: ``N - 1`` appears and N divides."""
    minus_one = {
        node.left.name
        for node in expr._walk()
        if isinstance(node, BinOp)
        and node.op == "-"
        and isinstance(node.left, Var)
        and node.right == Num(1.0)
    }
    for node in expr._walk():
        if isinstance(node, BinOp) and node.op == "/":
            divisors = {n.name for n in node.right._walk() if isinstance(n, Var)}
            found = sorted(minus_one & divisors)
            if found:
                return found[0]
    return None


def _without_n_minus_one_over_n(attempt: Attempt) -> float | Expr | None:
    card = attempt.card
    if card.type is CardType.FORMULA:
        if not ({"traffic", "busbw"} & set(card.tags)) or card.answer is None:
            return None
        expected = parse(card.answer.formula or "")
        n = _rank_variable(expected)
        if n is None:
            return None
        return BinOp("/", BinOp("*", expected, Var(n)), BinOp("-", Var(n), Num(1.0)))
    args = _args(attempt)
    ranks = args.get("ranks")
    ring = args.get("algorithm") == "ring" or "ring" in card.tags
    fields = _BYTE_FIELDS | {"busbw"}
    if not ring or not isinstance(ranks, int) or ranks < 2 or _field(attempt) not in fields:
        return None
    if attempt.solution.value is None or not _collective(attempt):
        return None
    return attempt.solution.value * ranks / (ranks - 1)


N_MINUS_ONE_OVER_N = TransformDetector(
    "n-minus-one-over-n-dropped",
    "The (N−1)/N factor is missing: in a ring each rank already holds its own 1/N share and "
    "sends only the other N−1 chunks — the difference is 2× at N = 2.",
    _without_n_minus_one_over_n,
)


def _one_direction(attempt: Attempt) -> float | None:
    """What a bidirectional link figure used as one direction's bandwidth gives."""
    value = attempt.solution.value
    if value is None or attempt.card.type is not CardType.NUMERIC or not _collective(attempt):
        return None
    if attempt.dim is Dim.RATE:
        return value * 2
    if attempt.dim is Dim.SECONDS and any(k in _args(attempt) for k in ("bandwidth", "link")):
        return value / 2
    return None


BOTH_DIRECTIONS = TransformDetector(
    "both-directions",
    "That counts the link in both directions at once: a figure like NVLink's 900 GB/s is the "
    "sum of both directions, and a ring sends one way on each link — use half.",
    _one_direction,
)


# ----------------------------------------------------------------------------- memory


def _kv(attempt: Attempt) -> bool:
    if _formula_tagged(attempt, "kv-cache"):
        return True
    return _run(attempt) in _KV_RUNS and _field(attempt) in _KV_FIELDS


KV_ONCE = FactorDetector(
    "kv-counted-once",
    "That counts only the keys (or only the values): the cache keeps both, hence the 2 in "
    "2·layers·kv_heads·head_dim·bytes per token.",
    (Fraction(1, 2),),
    _kv,
)


def _heads(attempt: Attempt) -> tuple[int, int] | None:
    """(attention heads, KV heads) of the catalog model a KV card asks about."""
    model = _args(attempt).get("model")
    if not isinstance(model, str) or not _kv(attempt) or attempt.card.type is CardType.FORMULA:
        return None
    from deck.base.errors import DeckError
    from quizcoll.memory.catalog import load_model

    try:
        config = load_model(model)
    except (DeckError, ValueError, KeyError):
        return None
    return config.num_heads, config.num_kv_heads


def _all_heads(attempt: Attempt) -> float | None:
    heads = _heads(attempt)
    if heads is None or heads[0] == heads[1] or attempt.solution.value is None:
        return None
    return attempt.solution.value * heads[0] / heads[1]


def _gqa_message(attempt: Attempt) -> str:
    heads = _heads(attempt)
    q, kv = heads if heads else (0, 0)
    return (
        f"That caches every attention head: with grouped-query attention the {q} query heads "
        f"share {kv} key/value heads, and only those are cached — {q // max(kv, 1)}× less."
    )


GQA_IGNORED = TransformDetector("gqa-ignored", _gqa_message, _all_heads)


def _training(attempt: Attempt) -> dict[str, Any] | None:
    result = attempt.solution.result
    if _run(attempt) != "memory.training" or _field(attempt) != "total" or result is None:
        return None
    if _args(attempt).get("k", 12) != 12:
        return None  # not mixed-precision Adam's 12 bytes of optimizer state per parameter
    return dict(result)


def _without_optimizer(attempt: Attempt) -> float | None:
    result = _training(attempt)
    return None if result is None else result["total"] - result["optimizer_states"]


def _without_master(attempt: Attempt) -> float | None:
    result = _training(attempt)
    return None if result is None else result["total"] - result["optimizer_states"] / 3


OPTIMIZER_FORGOTTEN = TransformDetector(
    "optimizer-states-forgotten",
    "That leaves out the optimizer states: mixed-precision Adam keeps an fp32 master copy and "
    "two fp32 moments, 12 bytes per parameter — three times the fp16 weights and gradients "
    "together.",
    _without_optimizer,
)
MASTER_FORGOTTEN = TransformDetector(
    "fp32-master-forgotten",
    "That leaves out the fp32 master copy of the weights: the optimizer updates a 4-byte copy, "
    "not the fp16 weights, so Adam holds 4 + 4 + 4 = 12 bytes per parameter, not 8.",
    _without_master,
)

DETECTORS: tuple[Detector, ...] = (
    ALL_REDUCE_VOLUME,
    N_MINUS_ONE_OVER_N,
    BOTH_DIRECTIONS,
    KV_ONCE,
    GQA_IGNORED,
    OPTIMIZER_FORGOTTEN,
    MASTER_FORGOTTEN,
)


def register(registry: Registry) -> None:
    """Add this subject's mistake detectors to ``registry``."""
    for detector in DETECTORS:
        registry.add_detector(detector)
