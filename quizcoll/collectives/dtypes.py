"""Element types the simulator knows: their names, sizes and numpy types.

``bfloat16`` has no numpy type; it is accepted wherever only sizes matter (traffic,
cost) and refused where data would have to be simulated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quizcoll.collectives.errors import CollectiveError, did_you_mean


@dataclass(frozen=True)
class DType:
    """An element type: its name, bytes per element and numpy type (None: sizes only)."""

    name: str
    itemsize: int
    numpy: type[np.generic] | None

    @property
    def is_float(self) -> bool:
        return self.name.startswith(("float", "bfloat"))


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("float16", 2, np.float16),
        DType("bfloat16", 2, None),
        DType("float32", 4, np.float32),
        DType("float64", 8, np.float64),
        DType("int8", 1, np.int8),
        DType("uint8", 1, np.uint8),
        DType("int32", 4, np.int32),
        DType("int64", 8, np.int64),
    )
}

ALIASES: dict[str, str] = {
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "float": "float32",
    "fp64": "float64",
    "double": "float64",
    "int": "int32",
    "long": "int64",
}


def get_dtype(name: str) -> DType:
    """The :class:`DType` called ``name`` (or a common alias such as ``fp32``, ``bf16``)."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    try:
        return DTYPES[key]
    except KeyError:
        raise CollectiveError(
            f"unknown dtype {name!r}; choose one of {', '.join(DTYPES)}{did_you_mean(key, DTYPES)}"
        ) from None


def dtype_of_array(array: np.ndarray) -> DType:
    """The :class:`DType` of a numpy array, or a clear error for an unsupported one."""
    for d in DTYPES.values():
        if d.numpy is not None and array.dtype == np.dtype(d.numpy):
            return d
    names = ", ".join(d.name for d in DTYPES.values() if d.numpy is not None)
    raise CollectiveError(f"unsupported input dtype {array.dtype}; use one of {names}")
