"""ZeRO-Offload's host transfers stepped on a clock, bucket by bucket, over several steps.

Provides :func:`offload_steps`: each training step the GPU copies every bucket of gradients
to the CPU (``grad_bytes`` per value); once the CPU has updated a bucket, its parameters
(``param_bytes`` per value) are copied back. With ``duplex`` the two directions have their
own copy engine and run at once (the parameters of one step return while the next step's
gradients go out, ZeRO-Offload's one-step delayed update); without it one engine does both,
one copy after the other. The clock advances copy by copy; the time of a step is measured
between the ends of the last two steps, so the pipeline's start-up is not counted. The CPU's
update is taken as instant: only the link is timed.
"""

from __future__ import annotations

from dataclasses import dataclass

STEPS = 4


@dataclass(frozen=True)
class OffloadStep:
    to_cpu_bytes: float
    to_gpu_bytes: float
    step_time_s: float

    @property
    def total_bytes(self) -> float:
        return self.to_cpu_bytes + self.to_gpu_bytes


def offload_steps(
    params: int,
    bandwidth: float,
    *,
    duplex: bool,
    grad_bytes: float = 2,
    param_bytes: float = 2,
    buckets: int = 64,
) -> OffloadStep:
    """One steady-state step's bytes each way and its time (see the module docstring)."""
    if isinstance(params, bool) or not isinstance(params, int) or params < 1:
        raise ValueError(f"params: expected a positive whole number, got {params!r}")
    if not bandwidth > 0:
        raise ValueError(f"bandwidth: expected a positive rate, got {bandwidth!r}")
    base, extra = divmod(params, buckets)
    sizes = [base + (1 if i < extra else 0) for i in range(buckets)]
    sizes = [s for s in sizes if s]
    out_free = back_free = 0.0  # when each copy engine is next free
    returned: list[float] = []  # when each step's last parameters were back
    sent_out = sent_back = 0.0
    for _step in range(STEPS):
        sent_out = sent_back = 0.0
        updated: list[float] = []
        for size in sizes:
            start = out_free if duplex else max(out_free, back_free)
            done = start + size * grad_bytes / bandwidth
            out_free = done
            if not duplex:
                back_free = done
            sent_out += size * grad_bytes
            updated.append(done)  # the CPU's update of this bucket is instant
        for size, ready in zip(sizes, updated, strict=True):
            start = max(back_free if duplex else max(out_free, back_free), ready)
            done = start + size * param_bytes / bandwidth
            back_free = done
            if not duplex:
                out_free = done
            sent_back += size * param_bytes
        returned.append(back_free)
    return OffloadStep(sent_out, sent_back, returned[-1] - returned[-2])
