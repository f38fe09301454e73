"""Pipeline bubbles as the papers tabulate them, for schedules the simulator does not run.

DeepSeek-AI, DeepSeek-V3 Technical Report (2024), Table 2, "Comparison of pipeline bubbles and
memory usage across different pipeline parallel methods": with F a forward chunk, B a full
backward chunk, W a backward-for-weights chunk and F&B two mutually overlapped forward and
backward chunks,

    1F1B      (PP − 1)(F + B)             parameters 1×   activations PP
    ZB1P      (PP − 1)(F + B − 2W)        parameters 1×   activations PP
    DualPipe  (PP/2 − 1)(F&B + B − 3W)    parameters 2×   activations PP + 1

The first two rows are what :mod:`quizcoll.systems.pipeline` simulates (1F1B and ZB-H1, with
its backward split into input and weight parts); the cards hold the simulator to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizcoll.systems.errors import SystemsInputError, at_least

ROWS: tuple[str, ...] = ("1f1b", "zb1p", "dualpipe")


@dataclass(frozen=True)
class Row:
    bubble: float
    parameter_copies: int
    activation_micro_batches: int


def row(method: str, pp: int, f: float, b: float, w: float, fb: float = 0.0) -> Row:
    """Table 2's entry for ``method`` at ``pp`` stages and chunk times f, b, w, fb."""
    at_least("pp", pp, 2)
    for name, v in (("f", f), ("b", b), ("w", w), ("fb", fb)):
        at_least(name, v, 0)
    if method == "1f1b":
        return Row((pp - 1) * (f + b), 1, pp)
    if method == "zb1p":
        return Row((pp - 1) * (f + b - 2 * w), 1, pp)
    if method == "dualpipe":
        if pp % 2:
            raise SystemsInputError(f"DualPipe needs an even number of stages, got {pp}")
        return Row((pp / 2 - 1) * (fb + b - 3 * w), 2, pp + 1)
    raise SystemsInputError(f"unknown method {method!r}; known: {', '.join(ROWS)}")
