"""What each primitive does, probed on the simulator: collectives.semantics and .identify."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.cards.registry import ArgumentError
from quizcoll.collectives.anatomy import Direction, Result, anatomy, identify
from quizcoll.collectives.errors import CollectiveError
from quizcoll.collectives.semantics import Collective
from quizcoll.executables import build_registry

# collective: (direction, arithmetic, result, output ratio at N ranks as a function of N)
TABLE = {
    "broadcast": ("one-to-many", "no", "the same on every rank", lambda n: 1),
    "scatter": ("one-to-many", "no", "a different piece on each rank", lambda n: 1 / n),
    "gather": ("many-to-one", "no", "the root only", lambda n: n),
    "reduce": ("many-to-one", "yes", "the root only", lambda n: 1),
    "all_reduce": ("many-to-many", "yes", "the same on every rank", lambda n: 1),
    "all_gather": ("many-to-many", "no", "the same on every rank", lambda n: n),
    "reduce_scatter": ("many-to-many", "yes", "a different piece on each rank", lambda n: 1 / n),
    "all_to_all": ("many-to-many", "no", "a different piece on each rank", lambda n: 1),
}


@pytest.fixture(scope="module")
def registry():
    return build_registry()


@pytest.mark.parametrize("collective", sorted(TABLE))
def test_semantics_table(registry, collective: str) -> None:
    direction, arithmetic, result, ratio = TABLE[collective]
    r = registry.call("collectives.semantics", {"collective": collective})
    assert (r["direction"], r["arithmetic"], r["result"]) == (direction, arithmetic, result)
    assert r["output_ratio"] == pytest.approx(ratio(4))
    assert r["result_ranks"] == (1 if result == "the root only" else 4)
    assert r["sources"] == (1 if direction == "one-to-many" else 4)
    ex = registry.get("collectives.semantics")
    assert r["name"] in ex.explain(ex.bind({"collective": collective}), r)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(sorted(TABLE)), st.integers(2, 48))
def test_traits_do_not_depend_on_the_rank_count(collective: str, n: int) -> None:
    direction, arithmetic, result, ratio = TABLE[collective]
    a = anatomy(collective, n)
    assert (a.direction.value, "yes" if a.arithmetic else "no", a.result.value) == (
        direction,
        arithmetic,
        result,
    )
    assert a.output_ratio == pytest.approx(ratio(n))


@pytest.mark.parametrize(
    ("traits", "names"),
    [
        ({"direction": "many-to-one"}, "Gather, Reduce"),
        ({"direction": "one-to-many"}, "Broadcast, Scatter"),
        ({"direction": "one-to-many", "result": "a different piece on each rank"}, "Scatter"),
        ({"arithmetic": "yes", "result": "the same on every rank"}, "AllReduce"),
        ({"arithmetic": "yes"}, "Reduce, AllReduce, ReduceScatter"),
        ({"direction": "many-to-many", "arithmetic": "no"}, "AllGather, AllToAll"),
        ({"direction": "one-to-many", "arithmetic": "yes"}, "none"),
    ],
)
def test_identify(registry, traits: dict, names: str) -> None:
    r = registry.call("collectives.identify", traits)
    assert r["names"] == names
    assert r["count"] == (0 if names == "none" else names.count(",") + 1)
    ex = registry.get("collectives.identify")
    assert names in ex.explain(ex.bind(traits), r)


def test_identify_python_api() -> None:
    assert identify(direction=Direction.MANY_TO_ONE, arithmetic=True) == (Collective.REDUCE,)
    assert identify(result=Result.ROOT_ONLY) == (Collective.GATHER, Collective.REDUCE)


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("collectives.identify", {}, "at least one trait"),
        ("collectives.identify", {"direction": "sideways"}, "direction"),
        ("collectives.semantics", {"collective": "all_reduce", "ranks": 49}, "ranks"),
        ("collectives.semantics", {"collective": "allreduce2"}, "collective"),
    ],
)
def test_bad_arguments(registry, name: str, args: dict, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        registry.call(name, args)


def test_probe_refuses_bad_rank_counts() -> None:
    with pytest.raises(CollectiveError, match="ranks"):
        anatomy("gather", 1)
