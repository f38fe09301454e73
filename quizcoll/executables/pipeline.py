"""Pipeline-parallel schedules as executables (``pipeline.*``): the simulated bubble and
in-flight activations of GPipe, 1F1B, interleaved 1F1B and ZB-H1, and the micro-batch count
a bubble target needs. Every figure comes from an op-by-op simulation
(:mod:`quizcoll.systems.pipeline`); the papers' closed forms are what cards check it against.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables.common import C, R, guard, num
from quizcoll.systems import pipeline as pp

_FORMS = {
    "gpipe": "(p − 1)/(m + p − 1)",
    "1f1b": "(p − 1)/(m + p − 1)",
    "interleaved": "(p − 1)/(v·m + p − 1)",
    "zb-h1": "(p − 1)(t_f + t_b − t_w) / makespan",
}


def schedule(
    schedule: str,
    stages: int,
    micro_batches: int,
    virtual_stages: int = 1,
    t_forward: float = 1.0,
    t_backward: float = 2.0,
    t_weight: float = 0.0,
) -> dict[str, Any]:
    """Simulate one iteration of a pipeline schedule: bubble, makespan, in-flight activations."""
    run = pp.simulate(
        pp.Schedule(schedule),
        stages,
        micro_batches,
        virtual_stages,
        t_forward,
        t_backward,
        t_weight,
    )
    return {
        "bubble_over_total": run.bubble_over_total,
        "bubble_over_ideal": run.bubble_over_ideal,
        "efficiency": 1 - run.bubble_over_total,
        "bubble_time": run.bubble_time,
        "makespan": run.makespan,
        "busy_time": run.busy_time,
        "first_stage_in_flight": run.peak_in_flight[0],
        "last_stage_in_flight": run.peak_in_flight[-1],
        "first_stage_activation_units": run.first_stage_activation_units,
        "boundary_crossings": run.boundary_crossings,
    }


def _explain_schedule(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    p, m, v = args["stages"], args["micro_batches"], args["virtual_stages"]
    return (
        f"{args['schedule']} on p = {p} stages, m = {m} micro-batches"
        + (f", v = {v} chunks per GPU" if v > 1 else "")
        + f": simulated makespan {num(r['makespan'])} against {num(r['busy_time'])} of work per "
        f"GPU, so the bubble is {num(r['bubble_time'])} = **{num(r['bubble_over_total'])}** of "
        f"the iteration ({_FORMS[args['schedule']]}) and {num(r['bubble_over_ideal'])} of the "
        f"ideal time; the first stage holds {r['first_stage_in_flight']} "
        f"{'chunk-' if v > 1 else ''}micro-batches of activations at its peak."
    )


def micro_batches(stages: int, target: float, virtual_stages: int = 1) -> dict[str, Any]:
    """Fewest micro-batches that bring the bubble down to ``target`` of the iteration."""
    choice = pp.micro_batches_for_bubble(stages, target, virtual_stages)
    return {
        "micro_batches": choice.micro_batches,
        "bubble_over_total": choice.bubble_over_total,
        "micro_batches_per_stage": choice.micro_batches / stages,
    }


def _explain_micro_batches(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    p, v, f = args["stages"], args["virtual_stages"], args["target"]
    text = f"(p − 1)/(v·m + p − 1) ≤ {num(f)} ⇔ m ≥ (p − 1)(1 − f)/(v·f) with p = {p}, v = {v}"
    if v > 1:
        text += ", rounded up to a multiple of p (the interleaved schedule needs it)"
    return (
        f"{text}: **m = {r['micro_batches']}**; simulated bubble at that m: "
        f"{num(r['bubble_over_total'])}."
    )


def register(registry: Registry) -> None:
    U = Dimension.RATIO  # a time in the durations' own unit
    stages = Param(
        "stages", ParamKind.INT, "pipeline stages p (GPUs)", minimum=1, maximum=pp.MAX_STAGES
    )
    virtual = Param(
        "virtual_stages",
        ParamKind.INT,
        "model chunks per GPU v (interleaved only)",
        minimum=1,
        maximum=pp.MAX_VIRTUAL_STAGES,
        default=1,
    )

    def duration(name: str, help: str, default: float, minimum: float) -> Param:
        return Param(name, ParamKind.FLOAT, help, minimum=minimum, maximum=1000, default=default)

    registry.add_function(
        "pipeline.schedule",
        guard(schedule),
        params=[
            Param("schedule", ParamKind.STR, "pipeline schedule", choices=pp.SCHEDULES),
            stages,
            Param(
                "micro_batches",
                ParamKind.INT,
                "micro-batches m per iteration",
                minimum=1,
                maximum=pp.MAX_MICRO_BATCHES,
            ),
            virtual,
            duration("t_forward", "forward time of one micro-batch on one stage", 1.0, 0.001),
            duration("t_backward", "backward time (input gradients)", 2.0, 0.001),
            duration("t_weight", "weight-gradient time (apart only in zb-h1)", 0.0, 0.0),
        ],
        fields=[
            Field("bubble_over_total", R, "idle share of the iteration"),
            Field("bubble_over_ideal", R, "bubble time over the ideal (busy) time"),
            Field("efficiency", R, "1 − bubble share"),
            Field("bubble_time", U, "idle time per GPU, in the durations' unit"),
            Field("makespan", U, "iteration time, in the durations' unit"),
            Field("busy_time", U, "work per GPU: m(t_f + t_b + t_w)"),
            Field("first_stage_in_flight", C, "peak (chunk-)micro-batches held by stage 0"),
            Field("last_stage_in_flight", C, "peak (chunk-)micro-batches held by the last stage"),
            Field(
                "first_stage_activation_units", R, "stage 0's peak in micro-batches of its layers"
            ),
            Field("boundary_crossings", C, "stage-to-stage sends per micro-batch (v·p − 1)"),
        ],
        explain=_explain_schedule,
    )
    registry.add_function(
        "pipeline.micro_batches",
        guard(micro_batches),
        params=[
            stages,
            Param(
                "target",
                ParamKind.FLOAT,
                "largest acceptable bubble share of the iteration",
                minimum=0.001,
                maximum=0.999,
            ),
            virtual,
        ],
        fields=[
            Field("micro_batches", C, "fewest micro-batches meeting the target"),
            Field("bubble_over_total", R, "simulated bubble share at that m"),
            Field("micro_batches_per_stage", R, "m / p"),
        ],
        explain=_explain_micro_batches,
    )
