"""Key points: matching a typed explanation against what an interviewer listens for, and the
loader's validation of ``key_points`` / ``bonus_points`` (terms must occur in the back)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deck.answers.keypoints import Judgement, coverage_verdict, match_points, overruled
from deck.base.typed import MAX_ANSWER_CHARS, AnswerTooLong
from deck.cards.loader import load_text
from deck.cards.model import KeyPoint
from deck.cards.terms import index_text, stem

# Real English inflections, written out by hand (not produced by the stemmer under test).
INFLECTIONS = {
    "rank": ["ranks", "Ranks", "ranking"],
    "reduce": ["reduces", "reduced", "reducing"],
    "gradient": ["gradients"],
    "cache": ["caches", "cached", "caching"],
    "copy": ["copies", "copied", "copying"],
    "split": ["splits", "splitting"],
    "stop": ["stops", "stopped", "stopping"],
    "loss": ["losses"],
    "shard": ["shards", "sharded", "sharding"],
    "route": ["routes", "routed", "routing"],
    "message": ["messages"],
    "overlap": ["overlaps", "overlapped", "overlapping"],
    "bus": ["buses"],
    "process": ["processes", "processed"],
    "byte": ["bytes"],
    "quick": ["quickly"],
}
# Words that contain a term without being it: the term must never match them.
CONTAINED = [
    ("all", "allreduce"),
    ("all", "all-reduce"),
    ("all", "AllGather"),
    ("scatter", "reduce-scatter"),
    ("scatter", "reducescatter"),
    ("gather", "allgather"),
    ("rank", "frank"),
    ("rank", "cranky"),
    ("ring", "string"),
    ("ring", "during"),
    ("tree", "street"),
    ("node", "nodejs"),
    ("reduce", "allreduce"),
]
# One term, written the ways people write it.
SPELLINGS = {
    "reduce-scatter": [
        "reduce scatter",
        "reducescatter",
        "Reduce-Scatter",
        "reduce_scatter",
        "ReduceScatter",
        "reduce\u2010scatter",
        "REDUCE  SCATTER",
        "reduce-scatters",
    ],
    "all reduce": ["all-reduce", "allreduce", "AllReduce", "All Reduce"],
    "every rank": ["every ranks", "Every rank", "every-rank", "every, rank"],
    "KV cache": ["kv-cache", "KVCache", "kv caches", "ＫＶ ｃａｃｈｅ"],
}

filler = st.lists(
    st.sampled_from(["the", "a", "then", "so", "GPU", "we", "sum", "data", "is", "and", "of"]),
    max_size=6,
).map(" ".join)
separators = st.sampled_from([" ", ", ", "; ", " (", ") ", ". ", "\n", " — "])


def point(name: str, *terms: str) -> KeyPoint:
    return KeyPoint(name, tuple(terms))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(st.sampled_from(sorted(INFLECTIONS)), st.data(), filler, filler, separators, separators)
def test_inflections_match(
    term: str, data: st.DataObject, before: str, after: str, s1: str, s2: str
) -> None:
    form = data.draw(st.sampled_from(INFLECTIONS[term]))
    text = f"{before}{s1}{form}{s2}{after}"
    assert index_text(text).contains(term), text
    assert index_text(term).contains(form)  # both ways


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(st.sampled_from(CONTAINED), filler, filler, separators, separators)
def test_no_match_inside_another_word(
    pair: tuple[str, str], before: str, after: str, s1: str, s2: str
) -> None:
    term, word = pair
    text = f"{before}{s1}{word}{s2}{after}"
    assert not index_text(text).contains(term), text


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(
    st.sampled_from(sorted(INFLECTIONS)),
    st.text(alphabet="bcdfghjkmnpqrtvwxz", min_size=1, max_size=4),
    filler,
)
def test_a_prefix_makes_another_word(term: str, prefix: str, after: str) -> None:
    assert not index_text(f"{prefix}{term} {after}").contains(term)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(st.sampled_from(sorted(SPELLINGS)), st.data(), filler, filler, separators)
def test_spacing_hyphens_and_case_do_not_matter(
    term: str, data: st.DataObject, before: str, after: str, sep: str
) -> None:
    form = data.draw(st.sampled_from(SPELLINGS[term]))
    assert index_text(f"{before}{sep}{form}{sep}{after}").contains(term)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(st.sampled_from(sorted(INFLECTIONS)), st.data())
def test_case_does_not_matter(term: str, data: st.DataObject) -> None:
    flips = data.draw(st.lists(st.booleans(), min_size=len(term), max_size=len(term)))
    cased = "".join(c.upper() if f else c for c, f in zip(term, flips, strict=True))
    assert index_text(f"we {cased} it").contains(term)
    assert index_text(f"we {term} it").contains(cased)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(
    st.text(alphabet="abcdefghijklmnopqrtuvwxyz", min_size=3, max_size=10).filter(
        lambda w: w[-1] not in "esiy" and w[-1] != w[-2]
    )
)
def test_plural_stems_like_the_word(word: str) -> None:
    assert stem(word + "s") == stem(word)


def test_cjk_terms_are_substrings() -> None:
    text = index_text("AllReduce 把结果发给所有的 GPU，每个设备都得到完整结果")
    assert text.contains("所有")
    assert text.contains("每个设备")
    assert text.contains("完整 结果")  # spaces and punctuation ignored
    assert not text.contains("广播")
    assert text.contains("allreduce") and text.contains("gpu")


@pytest.mark.parametrize(
    ("covered", "total", "verdict"),
    [
        (0, 3, "wrong"),
        (1, 3, "wrong"),
        (2, 3, "partial"),
        (3, 3, "right"),
        (1, 2, "partial"),
        (2, 4, "partial"),
        (1, 4, "wrong"),
        (1, 1, "right"),
        (0, 0, "wrong"),
    ],
)
def test_verdict_follows_coverage(covered: int, total: int, verdict: str) -> None:
    assert coverage_verdict(covered, total).value == verdict


def test_match_points_reports_each_point() -> None:
    key = (
        point("result on every rank", "every rank", "all ranks", "所有"),
        point("sums the gradients", "sum", "average"),
        point("ring: reduce-scatter then all-gather", "reduce-scatter"),
    )
    bonus = (point("bandwidth optimal", "bandwidth optimal", "bandwidth-optimal"),)
    cov = match_points("It sums the gradients and every rank gets them.", key, bonus)
    assert [m.covered for m in cov.key] == [True, True, False]
    assert cov.key[0].found == ("every rank",) and cov.key[1].found == ("sum",)
    assert cov.judgement is Judgement.PARTIAL and cov.summary() == "2/3 key point(s), 0/1 bonus"
    full = match_points("Sum over all ranks via reducescatter, bandwidth-optimal", key, bonus)
    assert full.judgement is Judgement.RIGHT and full.bonus_covered == 1
    assert int(full.suggested) == 4  # right with a bonus point: Easy
    assert match_points("", key).judgement is Judgement.WRONG
    assert overruled(Judgement.PARTIAL, "r") is Judgement.RIGHT
    assert overruled(Judgement.PARTIAL, " ") is Judgement.PARTIAL


def test_answers_are_length_capped() -> None:
    with pytest.raises(AnswerTooLong):
        match_points("rank " * MAX_ANSWER_CHARS, (point("p", "rank"),))


# -- loader ------------------------------------------------------------------------------

GOOD = """\
cards:
  - id: allreduce-basic
    type: basic
    front: What does AllReduce do?
    back: Every rank ends with the sum; a ring runs reduce-scatter then all-gather.
    key_points:
      - point: The result lands on every rank
        terms: [every rank, all ranks, 所有]
    bonus_points:
      - point: Ring = reduce-scatter + all-gather
        terms: [reduce scatter]
"""


def test_loader_reads_points() -> None:
    cards, problems = load_text(GOOD, "t.yaml")
    assert problems == []
    (card,) = cards
    assert card.key_points[0].terms == ("every rank", "all ranks", "所有")
    assert card.key_points[0].location is not None and card.key_points[0].location.line == 7
    assert card.bonus_points[0].point == "Ring = reduce-scatter + all-gather"


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        (
            "terms: [every rank, all ranks, 所有]",
            "t.yaml:8:16: card 'allreduce-basic': key_points[0].terms: none of the terms",
            "terms: [everyone, 每个]",
        ),
        (
            "terms: [every rank, all ranks, 所有]",
            "t.yaml:8:16: card 'allreduce-basic': key_points[0].terms: expected a non-empty list",
            "terms: []",
        ),
        (
            "terms: [every rank, all ranks, 所有]",
            "t.yaml:8:29: card 'allreduce-basic': key_points[0].terms[1]: '--' has no letters",
            "terms: [every rank, '--']",
        ),
        (
            "      - point: The result lands on every rank\n",
            "t.yaml:7:9: card 'allreduce-basic': key_points[0].point: missing",
            "      - pint: x\n",
        ),
        (
            "    bonus_points:\n",
            "t.yaml:9:5: card 'allreduce-basic': bonus_point: unknown key (did you mean 'bonus_points'?)",
            "    bonus_point:\n",
        ),
    ],
)
def test_loader_problems_have_file_line_col(edit: str, where: str, message: str) -> None:
    cards, problems = load_text(GOOD.replace(edit, message), "t.yaml")
    assert cards == []
    assert any(p.format().startswith(where) for p in problems), [p.format() for p in problems]


def test_empty_key_points_list_is_a_problem() -> None:
    text = GOOD.split("    key_points:")[0] + "    key_points: []\n"
    _, problems = load_text(text, "t.yaml")
    assert [p.format() for p in problems] == [
        "t.yaml:6:17: card 'allreduce-basic': key_points: expected a non-empty list of "
        "{point, terms}, found an empty list"
    ]


VOCAB = sorted({w for forms in INFLECTIONS.values() for w in forms} | set(INFLECTIONS))
VOCAB += ["reduce-scatter", "all", "allreduce", "all-gather", "every", "kv", "cache", "所有", "的"]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # machine speed is no test
@given(
    st.lists(st.sampled_from(VOCAB), max_size=30),
    st.lists(
        st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3).map(" ".join),
        min_size=1,
        max_size=6,
    ),
    separators,
)
def test_an_index_for_some_terms_finds_what_the_full_index_finds(
    words: list[str], terms: list[str], sep: str
) -> None:
    text = sep.join(words)
    assert index_text(text, terms).found(terms) == index_text(text).found(terms)
