"""The one error type of the simulator: bad requests are a ``CollectiveError``.

It subclasses ``ValueError`` so plain Python callers can catch the usual type; the CLI
and the executables turn it into their own one-line error reports.
"""

from __future__ import annotations


class CollectiveError(ValueError):
    """A request the simulator refuses: unknown name, bad sizes, over the memory budget."""
