"""Training figures that are derived, not published.

The training runs as their papers and model cards report them (PaLM, Chinchilla, Llama 2
and 3, QLoRA) are ``quizcoll/data/runs.yaml``; PyTorch's and Transformer Engine's defaults
and the measured CUDA context ``pytorch.yaml`` and ``recipes.yaml``; the caching
allocator's sizes and Chinchilla's tokens per parameter ``training.yaml``; each catalog
model's parameter count ``parameter-counts.yaml``.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

CONSTANTS: tuple[Constant, ...] = (
    Constant(
        "pr86509_tensor_elements",
        20 * 16 * 50 * 100,
        Dim.COUNT,
        "the product of the printed shape: the elements of the tensor pytorch/pytorch PR #86509 allocates, "
        "torch.randn(20, 16, 50, 100): 20·16·50·100",
    ),
)
