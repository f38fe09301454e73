"""Second methods for the ``left`` cards (``witness.left_*``): DeepSeek-V3's DualPipe schedule
run op by op on a clock (:mod:`quizcoll.witnesses.left_dualpipe`). Op times come in as
arguments from the card; nothing here reads the bubble table it checks."""

from __future__ import annotations

from typing import Any

from deck.cards.registry import Derivation, Field, Param, ParamKind, Registry
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.executables.common import R
from quizcoll.witnesses import left_dualpipe


def dualpipe(
    stages: int,
    micro_batches: int,
    t_forward: float,
    t_backward: float,
    t_weight: float,
    t_overlapped: float,
    split_middle: bool = False,
) -> dict[str, Any]:
    run = left_dualpipe.simulate(
        stages, micro_batches, t_forward, t_backward, t_weight, t_overlapped, split_middle
    )
    return {
        "bubble": run.bubble,
        "least_idle": min(run.idle),
        "makespan": run.makespan,
    }


def _time(name: str, help: str, minimum: float = 0) -> Param:
    return Param(name, ParamKind.FLOAT, help, minimum=minimum, maximum=1e9)


# Times are in the card's own unit: a plain number, like the bubble table's (RATIO).


def register(registry: Registry) -> None:
    registry.add_function(
        "witness.left_dualpipe",
        refusals_as_argument_errors(dualpipe, lambda: ValueError),
        params=[
            Param(
                "stages",
                ParamKind.INT,
                "pipeline stages (devices), even",
                minimum=2,
                maximum=left_dualpipe.MAX_STAGES,
            ),
            Param(
                "micro_batches",
                ParamKind.INT,
                "micro-batches per step, both directions",
                minimum=4,
                maximum=left_dualpipe.MAX_MICRO_BATCHES,
            ),
            _time("t_forward", "time of a forward chunk F"),
            _time("t_backward", "time of a full backward chunk B"),
            _time("t_weight", "time of its weight-gradient part W"),
            _time("t_overlapped", "time of an overlapped forward-and-backward pair F&B"),
            Param(
                "split_middle",
                ParamKind.BOOL,
                "run the released code's unoverlapped first pair on the middle devices",
                default=False,
            ),
        ],
        fields=[
            Field("bubble", R, "idle time of the device that idles longest (time units)"),
            Field("least_idle", R, "idle time of the device that idles least (time units)"),
            Field("makespan", R, "time from the first op to the last (time units)"),
        ],
    )
    registry.declare_derivation(
        "witness.left_dualpipe",
        Derivation.SIMULATED,
        "steps every device's DualPipe op order on a clock, each op waiting for its device "
        "and its inputs (quizcoll.witnesses.left_dualpipe)",
    )
