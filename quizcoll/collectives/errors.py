"""The one error type of the simulator: bad requests are a ``CollectiveError``.

It subclasses ``ValueError`` so plain Python callers can catch the usual type; the CLI
and the executables turn it into their own one-line error reports. :func:`did_you_mean`
ends an "unknown name" message with the closest valid name, if one is close.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class CollectiveError(ValueError):
    """A request the simulator refuses: unknown name, bad sizes, over the memory budget."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the choice closest to ``word``, or ``""``."""
    key = str(word).strip().lower().replace("-", "_")
    close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
