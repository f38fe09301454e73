"""How each executable computes its results, for ``check --coverage``'s independence report.

An executable that is not listed is a closed form (its body is the formula). The listed
ones reach their results another way, so a closed form in a card's ``expect`` shares no
formula with them: they move data through a schedule, step an event simulation, walk or
enumerate a structure, or search. Each entry says where that happens.
"""

from __future__ import annotations

from deck.cards.registry import Derivation, Registry

_SCHEDULE = (
    "runs the collective's schedule on the simulator: chunks moved rank to rank, bytes and "
    "rounds counted (quizcoll.collectives.plan)"
)
D = Derivation
DERIVATIONS: tuple[tuple[str, Derivation, str], ...] = (
    *(
        (f"collectives.{name}", D.SIMULATED, _SCHEDULE)
        for name in (
            "all_gather",
            "all_reduce",
            "all_to_all",
            "broadcast",
            "gather",
            "reduce",
            "reduce_scatter",
            "scatter",
            "cost",
            "hierarchical",
            "zero_volume",
        )
    ),
    ("collectives.bruck", D.SIMULATED, "counts the rounds of bruck_schedule, chunk by chunk"),
    ("collectives.best_algorithm", D.SIMULATED, "times every algorithm's simulated schedule"),
    ("collectives.crossover", D.SEARCHED, "searches the size where the simulated ring wins"),
    ("collectives.semantics", D.SIMULATED, "probes the collective on the simulator (anatomy)"),
    ("collectives.tree_depth", D.ENUMERATED, "walks NCCL's tree parent links rank by rank"),
    ("compression.powersgd", D.SIMULATED, f"ring bytes: {_SCHEDULE}"),
    ("compression.cast", D.SIMULATED, f"ring bytes: {_SCHEDULE}"),
    ("overlap.chunks", D.SIMULATED, "two-stream event simulation (quizcoll.systems.overlap)"),
    ("overlap.ddp_buckets", D.SIMULATED, "event simulation of buckets over a simulated ring"),
    ("pipeline.schedule", D.SIMULATED, "steps the pipeline schedule (quizcoll.systems.pipeline)"),
    ("memory.max_context", D.SEARCHED, "binary search over fits() (quizcoll.memory.inference)"),
    ("serving.decode_crossover", D.SEARCHED, "bisects the batch where compute overtakes memory"),
    ("memory.model_params", D.ENUMERATED, "counts the config's tensors one by one"),
    ("memory.model_weights", D.ENUMERATED, "sums the bytes of the config's tensors one by one"),
    ("serving.speculative", D.ENUMERATED, "sums the acceptance distribution term by term"),
    (
        "attention.traffic",
        D.ENUMERATED,
        "replays the kernel's loads and stores tile by tile into a ledger, skipping the tiles "
        "the causal mask removes (quizcoll.systems.attention_io.walk)",
    ),
    (
        "moe.experts_touched",
        D.SIMULATED,
        "steps the exact Markov chain of distinct experts touched, one token at a time "
        "(quizcoll.systems.moe_decode.touched_distribution)",
    ),
    (
        "occupancy.draws_for",
        D.SEARCHED,
        "steps the exact chain of bins reached one draw at a time until the expected reach "
        "gets there (quizcoll.systems.occupancy.draws_for)",
    ),
    (
        "quant.crossover",
        D.SEARCHED,
        "tries every batch in turn on the step model (quizcoll.systems.quant_roofline."
        "first_batch_where, first_compute_bound)",
    ),
)


def register(registry: Registry) -> None:
    for name, how, why in DERIVATIONS:
        registry.declare_derivation(name, how, why)
