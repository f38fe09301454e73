"""Every schedule stays the same transfer for transfer.

For each collective × algorithm (and root, for the rooted ones) and N in ``SIZES``, the
schedule is reduced to a canonical form: its rows ``(step, src, dst, src_block,
dst_block, reduce)`` sorted, plus its messages ``(step, src, dst, rows)`` — the runs of
adjacent rows with one source and destination, which the cost model prices one α each.
Row order inside a round is free; what moves in which round, and how it is grouped into
messages, is not. The digests below were taken from the per-rank Python loops before
schedule construction was vectorised. Regenerate (only for an intended change of a
schedule) with ``python tests/test_collectives_schedule_snapshot.py``. Also here: the
bounded schedule cache hands out the same read-only schedule for every size.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from quizcoll.collectives import plan
from quizcoll.collectives.schedule import Schedule
from quizcoll.collectives.schedules import (
    ALGORITHMS,
    CACHE_MAX_RANKS,
    build,
    build_hierarchical,
    build_schedule,
    schedule_for,
)
from quizcoll.collectives.semantics import Collective

SIZES = (*range(1, 21), 31, 32, 33, 64)
ROOTED = (Collective.BROADCAST, Collective.SCATTER, Collective.GATHER, Collective.REDUCE)
HIERARCHICAL = ((1, 1), (1, 4), (4, 1), (2, 3), (3, 2), (4, 4), (2, 8), (5, 3))


def _root(variant: str, ranks: int) -> int:
    return 0 if variant == "root0" else (2 * ranks) // 3


def canonical_digest(schedule: Schedule) -> str:
    """An 8-hex digest of the schedule's sorted rows and sorted messages."""
    s = schedule
    step = s.step_of_row()
    rows = np.stack(
        [step, s.src, s.dst, s.src_block, s.dst_block, s.reduce.astype(np.int64)], axis=1
    ).astype(np.int64)
    rows = rows[np.lexsort(rows.T[::-1])] if len(rows) else rows.reshape(0, 6)
    key = np.stack([step, s.src, s.dst], axis=1).astype(np.int64)
    starts = np.ones(len(key), dtype=bool)
    starts[1:] = (key[1:] != key[:-1]).any(axis=1)
    first = np.flatnonzero(starts)
    lengths = np.diff(np.append(first, len(key)))
    messages = np.concatenate([key[first], lengths[:, None]], axis=1).astype(np.int64)
    messages = messages[np.lexsort(messages.T[::-1])] if len(messages) else messages
    h = hashlib.sha256()
    h.update(f"{s.ranks} {s.nblocks} {s.steps};".encode())
    h.update(np.ascontiguousarray(rows).tobytes())
    h.update(b";")
    h.update(np.ascontiguousarray(messages).tobytes())
    return h.hexdigest()[:8]


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for collective, names in ALGORITHMS.items():
        variants = ("root0", "rootx") if collective in ROOTED else ("root0",)
        for algorithm in names:
            for variant in variants:
                cases.append((collective.value, algorithm, variant))
    return cases


def digests(collective: str, algorithm: str, variant: str) -> str:
    """The space-separated digests of one case for every N in ``SIZES``."""
    out = []
    for n in SIZES:
        c = Collective(collective)
        count = n * 3  # a multiple of N: every collective accepts it
        schedule, _ = build(c, algorithm, n, count, root=_root(variant, n))
        out.append(canonical_digest(schedule))
    return " ".join(out)


def hierarchical_digests() -> str:
    return " ".join(
        canonical_digest(build_hierarchical(nodes, gpus, 7)[0]) for nodes, gpus in HIERARCHICAL
    )


SNAPSHOT: dict[str, str] = {
    "broadcast/binomial/root0": "105b7bef cbbba180 229ac72d 92fab605 bad0743f 0cbf9941 ef0abded 5d71f421 162ef597 68c16c40 67ea53c8 a644d814 b27ef4eb c00ea956 700d9cbf 986306fa c4dcf1b4 a18e2ac5 04b578fb 12ba2b57 0b64e333 b66593de 7275362d 5b399639",
    "broadcast/binomial/rootx": "105b7bef 3753f033 e60d959d 6e83847e 489ce04d 58d2648d 86465828 c2574b30 6bbf3c9c a634f4ff 247c321d bbb0c494 da7723bf 20dc2199 d5fdce50 d18ccf40 3922d7e2 ffb1a2c2 82702680 8197d0a4 35f65c2c 60b9a8aa f70bf1f2 144eee81",
    "broadcast/direct/root0": "105b7bef cbbba180 dbde80a8 1d32a910 2a52ec93 77b4ec2f 2daf5730 ddfff567 9818c92f 92fde36f 0839140e f9c5d01d a6020c2d f6488947 e07b7e74 4904aa2d 3827699f 3227cd00 40982415 c915abeb 7dd5f097 fee15288 42722abf 76dd0829",
    "broadcast/direct/rootx": "105b7bef 3753f033 ef6c2c49 624aed17 172d4c2e a591cc5a 3e227f4a 382e3046 57e3892e ba699a9c 661114b6 e2267717 62a456db a2550e56 c18191d1 137244f5 d8d98b02 671d6461 84c2faf7 809cdfe2 99b3451b b83133b4 b49978de ab42c21a",
    "broadcast/scatter_allgather/root0": "105b7bef dc19f1b1 10d82fd5 a9727fda 471766fc 90192d3d 39d1990a 72562b7b 179d0e21 2b8b62f4 acffb2b0 cab73a7b aa9ad68f 0258abb5 659a8045 7dce1e0e b5b19e19 89fb382c b5276764 1be0576a 5e9e8e45 6a669d46 273a5315 31969d7d",
    "broadcast/scatter_allgather/rootx": "105b7bef c4c7cabe 65632e83 b5414956 ef4be658 c50a1e68 9546871c cfedd1b4 e7725477 93053841 a8a4096d 0915ca06 1e35c57f 9042b306 b1ccb72e a72cfd83 f2969b3b 78e5fa2e b6ef6659 855c1eba d4f49d6f 863e37dd 538e304d a531b0dd",
    "scatter/binomial/root0": "105b7bef 19d3b0dc ce32194e dacca008 da2d6570 e4711e79 62e2fc6a e7717c63 ab7966d6 e8f62ec6 ad399d0d e6fa02e0 7e2ffb70 ac14fadf 4bcd591b ecb4cfca 7e4490a8 477dfb2a aae32307 f974335b f4cb14ed 128b5d32 cfac411c fa5e9ceb",
    "scatter/binomial/rootx": "105b7bef dcf93c1b 58553303 5aab396c 9e5b8eef e2e0bab1 a37ba3dd 64928b1e 20850516 9d91df6c 3e4d8181 e91bee01 a5210f4e 07c5a495 67f0f8c2 b132ef95 f72d478b 90cabc8b 6a7b5b78 e736b9ea 42427d2d e58bd6d8 87fba67b da7415a6",
    "scatter/direct/root0": "105b7bef 19d3b0dc efaf0ca1 d43f54be 8e9ba8eb e52595b5 d6ff65a9 8543d848 92f39b6c abd38030 28da85df 1c5c845d 598e22ad 70f18f29 421a2c4b ae03061f 3eb671b2 9fb08bdb 2839b08f 20f41cec 896e318b cbe79b3f 2a37e9fd 5c4605b5",
    "scatter/direct/rootx": "105b7bef dcf93c1b 51230ea4 a5593423 d78e55bc bd3236c9 5f2db185 7408cf0f b506617a 259e4ba5 ed2cb6ba 5dd7a0b7 c98e73f2 54fe8988 c2526cb1 73e43cf7 6c24429d 575658ef 4fac9ec4 fef3b685 19f8cbb6 d827656a 3b7d7f61 3a6c1c47",
    "gather/binomial/root0": "105b7bef 9d7c5782 93294514 3200d3c5 f5c62c34 a762521a 704f4e21 192d447a 2a8eb983 d556c7c2 34263ccf d247ab52 350d7ed4 3333e880 27d26ea1 585c2a63 0f26e906 d7cb1743 2b3e62c2 806cf81f 873ab8b0 4e3e1145 8f177ca9 ea287fc2",
    "gather/binomial/rootx": "105b7bef 30d0a0c6 f091d258 e0ff7aae 848327db b6a71b7e b57163a4 9e81553c f89fb923 32044b71 9850c2fe 669a78c0 04c58653 7167c8b0 e5aca5cc 0b03bcf2 0fba897a 1ff71ac2 f69ebed3 0a2524b3 b9778086 3992f6fd 1100f21e 4ad8385a",
    "gather/direct/root0": "105b7bef 9d7c5782 f5ba129e d2cb841b 0222481c 0580e8a8 b824be65 5cafab47 9d910a70 3b5234a6 4729fdad f0533a9b 81de8de6 6a8cd122 4570b97f ab22f300 38fb882a acc8cfc9 c146ce8d 029bbeaf 53d488c5 56b2eda6 7661d249 d143270e",
    "gather/direct/rootx": "105b7bef 30d0a0c6 08dcab5e 915b5223 b0da63eb dd061215 ae770cdc 434048da d4770047 ef0b6656 444a0456 ce7313ae 04fe7ae6 c42fd5f2 73113d6d da45bd41 f784cdf3 efdd48bf 59d0657b 0cac37a7 45fc8dca 11390c80 5f4bfce1 82bd17c0",
    "reduce/binomial/root0": "105b7bef 0de069e5 9866e58d 89358770 d34d0e55 b0073c15 07cc7371 db331b11 de11d655 c815c150 78a0f657 3c98fa0b b93c7f1f 36b319e9 0af12bb0 2279c5b0 373c1022 ec0875e7 2d98569b dd4116a2 53c7d4f5 cdc4cac6 f97baff5 70815ecd",
    "reduce/binomial/rootx": "105b7bef 83e75ac7 ed750044 cb159ac0 a1181a4e 1c89a135 d7500ba9 b7986926 214e4c8d 07892ca5 847b5092 b5bd76ca 0291eb51 d0ad43e0 b6cf61ef f8c4ed51 d139f7ff 168ebd4a e9ee23f5 9b0fc861 09a7fd78 7142bd18 6a1263bd 38d0948c",
    "reduce/direct/root0": "105b7bef 0de069e5 703270fc 7992b255 032a6ecc 5b460e37 52bf54c7 3d7424bd 87539730 b74ef621 4cfdcf23 17b37ef2 e164a951 a504cd3d b153aab5 9b78c636 8093bb18 4feb02bc 23a604f6 7c0b934b 54f6e129 1adee920 da38dc1e 0d886ab2",
    "reduce/direct/rootx": "105b7bef 83e75ac7 eff01fcf 901e7116 6e5c77f6 f3f2f9c4 7a57f0a7 1e2c687b a1bde89a 7abaa108 8990a72b a1ebfc92 f0699e76 df5f924c b5a16d49 40d0e75f f407d550 efc505e5 1d65c174 6ccff1d6 6b1210b0 6f0e382c 5970d9f7 c2af644f",
    "reduce/reduce_scatter_gather/root0": "105b7bef 336d5d9d cff25d6b 31e7159d 3f314019 f3e82872 3fd785a5 74033b9c 7dcad90f cefca6d6 97b7c757 1c60b43e 20b3a504 d4a32abf 72d9871c 82bc4eb7 90420e3b 58b25d1c 843dd723 f87be9dd fbc7a520 fbc848ea c321d30a 95652c34",
    "reduce/reduce_scatter_gather/rootx": "105b7bef 2dcca4fa 404a3440 2e2a9545 ea34e5f8 e6e968a7 7483ae1f ccfb7aa1 e86444dd c81fba53 758a84ac 95aaed2d f4ce3620 1cb6f9fb a35ff1c1 e59352d4 0397635b 1f236aef 9d616719 fed93a01 0f4bf231 2c2d849b f5008a2e 4dd89b29",
    "all_reduce/ring/root0": "105b7bef 5699e674 92874a0b 90b2f981 fec5e7d5 d3cc5071 5cacd075 a2cfc24d 45d4090f 9b5bcd55 1ec18711 a67b92fc 29e0af1b 08f906d8 6efff353 bdeb3f7f bbf5e8ea 14a6023b 1adc3e0e 7e053c75 a36c2158 75bb9318 2aba2caa 2a32ba92",
    "all_reduce/naive/root0": "105b7bef 6570e09e 7652755d 753359cf b966cb79 63ae71aa 2789e936 58625254 5686f6ee bdfcdf03 b890ed20 a6b22111 a475df67 4ea81b6f ccf99449 81a3a5e4 17a869e4 06cf5348 28488de3 e38cdf20 37bf2138 48075a17 2d84ceaa f6405f4c",
    "all_reduce/recursive_doubling/root0": "105b7bef 017136a6 3806e231 0f0818b5 8a910373 f8139735 190ce6f9 5fb58c7c 40f1ffb1 d66807a6 0c93e128 355e6311 0402cf17 0664de8f 96199f28 0c40d81b 3e8cc90d d814bb52 c16a4222 4af0c128 bf040538 a694f355 3dffb796 a027530f",
    "all_reduce/rabenseifner/root0": "105b7bef 5699e674 098c56eb bf3b8a5e a6793b59 2a36f388 01ee70df 608b4364 3ca49a75 fb9fd763 e2435dac ed160a9c 62ece923 984a6973 f0bc16df 9f4cc14a 62658fd5 a2476af2 d528e7d5 7ed2afda fd7862b7 8b7a58aa bb6cdaaa 8530f8eb",
    "all_reduce/double_binary_tree/root0": "31308fe4 5699e674 e9866b27 ab5ff526 6f055876 fb20c103 60878833 22f72374 9d01ce43 b5465279 496973fe 1f9a3b1c 7498aace 1efecf87 07e77009 efdadb7d 2e5bca70 642126a0 d97bc4eb 4b9caf2e 81448c7c b0293cef e988fcda 5df7d9d1",
    "all_gather/ring/root0": "105b7bef 21affd6f 1a78233b d2ba7dbe 9d296cf3 53d55cfe 73c018e8 bc1d2b7d 0fa11a3c f6eb467d 42f1cd87 288895ef afe5ad09 d7ea4023 7f187b31 29b8c910 85130fb7 c3b6abf3 137d1a5d fb277468 db4bbd61 b4b1750c e75f3e69 13b4aa3d",
    "all_gather/recursive_doubling/root0": "105b7bef 21affd6f e5cda150 954ca9cc f662f38d 3dc23aa1 849e3bf2 eb8c0f8c 98de8a98 178a6880 1e41a28e 73aeda39 59192d1b a2b44e79 b9ccb8ba 521f1ae8 0fb2cbc2 68416a7b a357d560 9aca009f 4701310a f76357e4 435d1b45 6bf24067",
    "reduce_scatter/ring/root0": "105b7bef 62b04349 7b197a1a 18215327 b10e6da1 3ad6c069 67db4fe5 2b0f21b3 c2dc596e 87196803 2e6c7a10 2cb1401d 69a9c4cf a049c01a f5aa480d 8933721f ca322df3 243b2671 b189173f 26cbcd2e 93336cb7 513eaf1b 06b964be 47c8fa1c",
    "reduce_scatter/recursive_halving/root0": "105b7bef 62b04349 c6469ef3 c6f1aecd 574a86c0 670643d0 21e7eb30 6228beec 170d29bd dedac49b e8adb996 596b2c05 88b4ea25 dfbafcc4 b7e20f1c 17470a7d 0ca458b0 43de8d65 83ddd1c2 966fe8fd 193fee34 ac8206d2 1d3ccc5d 984578da",
    "all_to_all/pairwise/root0": "31308fe4 d94a8a0b fd541a01 d64613f9 da949f95 d4c760d7 a4f399df 1b820f36 d41aaeca 8604197d 01ac3102 062218c7 783687b6 0a392881 fc1f999e cc092475 8dc507d0 d7f2e505 f080aca8 c1d55450 4d598941 8023d3b1 be00747d ac9317c2",
}
HIERARCHICAL_SNAPSHOT = "105b7bef 90b2f981 90b2f981 95c4661c c8b99e60 899e4832 d15514a8 00f9eb36"


@pytest.mark.parametrize("case", _cases(), ids=lambda c: "/".join(c))
def test_schedule_matches_snapshot(case: tuple[str, str, str]) -> None:
    got = digests(*case).split()
    want = SNAPSHOT["/".join(case)].split()
    changed = [n for n, a, b in zip(SIZES, got, want, strict=True) if a != b]
    assert not changed, f"{'/'.join(case)}: schedule changed for N = {changed}"


def test_hierarchical_matches_snapshot() -> None:
    got = hierarchical_digests().split()
    want = HIERARCHICAL_SNAPSHOT.split()
    changed = [shape for shape, a, b in zip(HIERARCHICAL, got, want, strict=True) if a != b]
    assert not changed, f"hierarchical schedule changed for (nodes, gpus) = {changed}"


def test_snapshot_covers_every_algorithm() -> None:
    assert sorted(SNAPSHOT) == sorted("/".join(c) for c in _cases())


def test_small_schedules_are_cached_and_read_only() -> None:
    first = schedule_for(Collective.ALL_REDUCE, "rabenseifner", 48, root=0)
    assert schedule_for(Collective.ALL_REDUCE, "rabenseifner", 48, root=0) is first
    assert schedule_for(Collective.ALL_REDUCE, "rabenseifner", 48, root=1) is not first
    for column in (first.offsets, first.src, first.dst, first.src_block, first.dst_block):
        assert not column.flags.writeable
    assert not first.messages_per_step.flags.writeable
    fresh = build_schedule(Collective.ALL_REDUCE, "rabenseifner", 48, 0)
    assert fresh is not first and canonical_digest(fresh) == canonical_digest(first)


def test_large_schedules_are_not_kept() -> None:
    n = CACHE_MAX_RANKS + 1
    one = schedule_for(Collective.ALL_REDUCE, "recursive_doubling", n)
    assert schedule_for(Collective.ALL_REDUCE, "recursive_doubling", n) is not one


def test_plans_of_different_sizes_share_one_schedule() -> None:
    small, large = plan("all_reduce", 40, 40), plan("all_reduce", 40, 40 * 2**20)
    assert small.schedule is large.schedule
    assert (large.bytes_sent == small.bytes_sent * 2**20).all()


if __name__ == "__main__":
    for case in _cases():
        print(f'    "{"/".join(case)}": "{digests(*case)}",')
    print(f'HIERARCHICAL_SNAPSHOT = "{hierarchical_digests()}"')
