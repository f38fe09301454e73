"""Unit conversions as executables: the GB-versus-GiB arithmetic cards ask about."""

from __future__ import annotations

from deck.cards.registry import Dimension, Field, Param, ParamKind, Registry


def convert_bytes(bytes: int) -> dict[str, float]:
    """One byte amount in decimal and binary units."""
    return {
        "bytes": bytes,
        "gb": bytes / 1e9,
        "gib": bytes / 2**30,
        "mb": bytes / 1e6,
        "mib": bytes / 2**20,
        "gib_over_gb": (bytes / 2**30) / (bytes / 1e9) if bytes else 0.0,
    }


def register(registry: Registry) -> None:
    registry.add_function(
        "units.convert_bytes",
        convert_bytes,
        params=[Param("bytes", ParamKind.BYTES, "an amount of bytes", minimum=0, maximum=2**60)],
        fields=[
            Field("bytes", Dimension.BYTES, "the amount in bytes"),
            Field("gb", Dimension.RATIO, "the amount in GB (10^9 bytes)"),
            Field("gib", Dimension.RATIO, "the amount in GiB (2^30 bytes)"),
            Field("mb", Dimension.RATIO, "the amount in MB (10^6 bytes)"),
            Field("mib", Dimension.RATIO, "the amount in MiB (2^20 bytes)"),
            Field("gib_over_gb", Dimension.RATIO, "GiB figure over GB figure (0.931)"),
        ],
    )
