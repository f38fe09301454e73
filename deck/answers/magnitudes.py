"""How far off an answer is, in words a reader takes in at a glance: ``12.5% too high``,
``8× too low``, ``1.7×10^27 times too high`` (never a 28-digit figure)."""

from __future__ import annotations

import math


def relative(given: float, exact: float) -> str:
    """``given`` next to ``exact``: a percentage below 2×, a factor above."""
    if exact == 0:
        return "off"
    ratio = given / exact
    if 0 < ratio < 1:
        return f"{(1 - ratio) * 100:.3g}% too low" if ratio > 0.5 else f"{times(1 / ratio)} too low"
    if ratio > 1:
        return f"{(ratio - 1) * 100:.3g}% too high" if ratio < 2 else f"{times(ratio)} too high"
    return "of the wrong sign"


def times(ratio: float) -> str:
    """A factor: ``2×``, ``4.13×``, ``1,000×``, ``1.7×10^27 times`` (never ``1e+03×``, nor
    a 28-digit figure nobody reads)."""
    if ratio >= 1e5:
        exponent = math.floor(math.log10(ratio))
        mantissa = ratio / 10**exponent
        if mantissa >= 9.95:  # 9.96 rounds up to 10: carry it into the exponent
            mantissa, exponent = mantissa / 10, exponent + 1
        return f"{mantissa:.2g}×10^{exponent} times"
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.3g}×"
