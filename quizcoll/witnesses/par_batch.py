"""A global batch consumed micro-batch by micro-batch by the data-parallel replicas.

The sequences of one optimizer step are dealt to the replicas round-robin (as PyTorch's
``DistributedSampler`` does: sequence i to replica i mod d); each replica then takes
micro-batches of ``micro_batch`` sequences from its share, one forward/backward at a time,
until the share is used up. Counting those micro-batches gives the accumulation steps, and
adding each consumed sequence's tokens gives the tokens of the step. A share that leaves a
partial micro-batch, or replicas that end with different counts, is refused: the step
would not be a whole number of accumulation steps.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SEQUENCES = 1 << 22


@dataclass(frozen=True)
class Consumed:
    micro_batches_per_replica: int
    tokens: int
    sequences_per_replica: int


def consume(global_batch: int, micro_batch: int, data_parallel: int, seq_len: int) -> Consumed:
    """Deal ``global_batch`` sequences over ``data_parallel`` replicas and count what each
    consumes in micro-batches of ``micro_batch``."""
    for name, v in (
        ("global_batch", global_batch),
        ("micro_batch", micro_batch),
        ("data_parallel", data_parallel),
        ("seq_len", seq_len),
    ):
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")
    if global_batch > MAX_SEQUENCES:
        raise ValueError(f"global_batch must be at most {MAX_SEQUENCES}, got {global_batch}")
    shares: list[list[int]] = [[] for _ in range(data_parallel)]
    for sequence in range(global_batch):
        shares[sequence % data_parallel].append(sequence)
    counts, tokens = [], 0
    for share in shares:
        taken = 0
        while taken < len(share):
            batch = share[taken : taken + micro_batch]
            if len(batch) < micro_batch:
                raise ValueError(
                    f"a replica's {len(share)} sequences leave a partial micro-batch of "
                    f"{len(batch)}"
                )
            taken += len(batch)
            tokens += seq_len * len(batch)
        counts.append(taken // micro_batch)
    if len(set(counts)) != 1 or counts[0] == 0:
        raise ValueError("the replicas would run different numbers of micro-batches")
    return Consumed(counts[0], tokens, len(shares[0]))
