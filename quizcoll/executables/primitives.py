"""What each collective primitive does, observed on the simulator (``collectives.semantics``)
and the reverse look-up (``collectives.identify``: which primitives have these traits?).

They let the cards about the primitives prove their words — "many-to-one", "no arithmetic",
"a different piece on each rank", "N times its input" — by running the schedules, the way
the cost cards prove their bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deck.cards.registry import ArgumentError, Dimension, Field, Param, ParamKind, Registry
from quizcoll.executables import refusals_as_argument_errors
from quizcoll.executables.collectives import COLLECTIVES

DIRECTIONS = ("any", "one-to-many", "many-to-one", "many-to-many")
RESULTS = ("any", "the root only", "the same on every rank", "a different piece on each rank")
YES_NO_ANY = ("any", "yes", "no")


def _collective_error() -> type[Exception]:
    from quizcoll.collectives import CollectiveError  # numpy: only once a card runs

    return CollectiveError


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def semantics(collective: str, ranks: int = 4) -> dict[str, Any]:
    """A collective's data direction, arithmetic and result, probed on the simulator."""
    from quizcoll.collectives.anatomy import anatomy

    a = anatomy(collective, ranks)
    return {
        "name": a.name,
        "direction": a.direction.value,
        "sources": a.sources,
        "result_ranks": a.result_ranks,
        "arithmetic": _yes(a.arithmetic),
        "result": a.result.value,
        "output_ratio": a.output_ratio,
    }


def _explain_semantics(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    return (
        f"{r['name']} over {args['ranks']} ranks: **{r['direction']}** ({r['sources']} rank(s) "
        f"feed it, {r['result_ranks']} end with a result: {r['result']}); arithmetic: "
        f"{r['arithmetic']}; output {r['output_ratio']:g}× the input per rank."
    )


def identify(
    direction: str = "any", result: str = "any", arithmetic: str = "any", ranks: int = 4
) -> dict[str, Any]:
    """Which primitives have the given direction, result and arithmetic (probed)."""
    from quizcoll.collectives.anatomy import DISPLAY_NAMES, Direction, Result
    from quizcoll.collectives.anatomy import identify as find

    if direction == result == arithmetic == "any":
        raise ArgumentError("give at least one trait: direction, result or arithmetic")
    found = find(
        direction=None if direction == "any" else Direction(direction),
        result=None if result == "any" else Result(result),
        arithmetic=None if arithmetic == "any" else arithmetic == "yes",
        ranks=ranks,
    )
    return {
        "names": ", ".join(DISPLAY_NAMES[c] for c in found) or "none",
        "count": len(found),
    }


def _explain_identify(args: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    traits = ", ".join(
        f"{k} {args[k]}" for k in ("direction", "result", "arithmetic") if args[k] != "any"
    )
    return f"Primitives with {traits}: **{r['names']}**."


def register(registry: Registry) -> None:
    guarded = refusals_as_argument_errors
    ranks = Param("ranks", ParamKind.INT, "ranks probed", minimum=2, maximum=48, default=4)
    registry.add_function(
        "collectives.semantics",
        guarded(semantics, _collective_error),
        params=[
            Param("collective", ParamKind.STR, "the collective", choices=COLLECTIVES),
            ranks,
        ],
        fields=[
            Field("name", Dimension.TEXT, "its name as the cards write it (AllReduce)"),
            Field("direction", Dimension.TEXT, "one-to-many, many-to-one or many-to-many"),
            Field("sources", Dimension.COUNT, "ranks whose input reaches an output"),
            Field("result_ranks", Dimension.COUNT, "ranks left with a defined output"),
            Field("arithmetic", Dimension.TEXT, "yes if outputs combine several inputs"),
            Field("result", Dimension.TEXT, "the root only, the same or a different piece"),
            Field("output_ratio", Dimension.RATIO, "output ÷ input elements per rank"),
        ],
        explain=_explain_semantics,
    )
    registry.add_function(
        "collectives.identify",
        guarded(identify, _collective_error),
        params=[
            Param("direction", ParamKind.STR, "data direction", choices=DIRECTIONS, default="any"),
            Param("result", ParamKind.STR, "who ends with what", choices=RESULTS, default="any"),
            Param(
                "arithmetic", ParamKind.STR, "outputs computed", choices=YES_NO_ANY, default="any"
            ),
            ranks,
        ],
        fields=[
            Field("names", Dimension.TEXT, "the matching primitives, comma-separated"),
            Field("count", Dimension.COUNT, "how many match"),
        ],
        explain=_explain_identify,
    )
