"""Where a model comes from on the command line or in a card: a catalog name, a Hugging
Face repository id (``ORG/NAME``, read from the Hub), a ``config.json`` on disk, or a bare
parameter count; and how counts and contexts are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from quizcoll.memory.architecture import ModelConfig, load_config
from quizcoll.memory.catalog import load_model
from quizcoll.memory.errors import MemoryInputError


@dataclass(frozen=True)
class ModelSource:
    """A model with its architecture (``config``), or only a parameter count."""

    label: str
    config: ModelConfig | None
    parameters: int | None


def parse_parameter_count(text: str) -> int:
    """``7e9``, ``6.74B``, ``70 billion``, ``6,738,415,616`` → a positive whole number."""
    from quizcoll.memory.numbers import read_count

    return read_count(str(text), "parameter count", low=1, high=MAX_PARAMETERS)


_CONTEXT_RE = re.compile(r"^\s*(\d{1,12}(?:\.\d{1,12})?)\s*([kKmM]?)\s*$")
MAX_PARAMETERS = 10**15  # a parameter count: at most 10^15 (the largest models: ~2·10^12)
MAX_CONTEXT = 2**24  # a context: at most 16,777,216 tokens (16M)


def parse_context(text: str) -> int:
    """Tokens: ``4096``, or ``32k`` = 32,768 and ``1M`` = 1,048,576 as context sizes are named."""
    m = _CONTEXT_RE.match(str(text))
    if not m:
        raise MemoryInputError(
            f"context must be a positive whole number of tokens (or like 32k), got {text!r}"
        )
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]
    value = float(m.group(1)) * scale
    if not value.is_integer() or value < 1:
        raise MemoryInputError(f"context must be a positive whole number of tokens, got {text!r}")
    if value > MAX_CONTEXT:
        raise MemoryInputError(
            f"context must be at most {MAX_CONTEXT:,} tokens (16M), got {int(value):,}"
        )
    return int(value)


def resolve_source(
    model: str | None = None, config: str | Path | None = None, parameters: str | None = None
) -> ModelSource:
    """Exactly one of ``model`` (catalog name), ``config`` (path) or ``parameters`` (count)."""
    given = [x for x in (model, config, parameters) if x is not None]
    if len(given) != 1:
        raise MemoryInputError(
            "give exactly one of a model name, a config.json or a parameter count"
        )
    if model is not None:
        cfg = _catalog_or_hub(model)
        return ModelSource(cfg.name, cfg, None)
    if config is not None:
        cfg = load_config(config)
        return ModelSource(cfg.name, cfg, None)
    count = parse_parameter_count(str(parameters))
    return ModelSource(f"{short_count(count)}-parameter model", None, count)


def short_count(n: int) -> str:
    """A parameter count as people say it: ``7B``, ``7.5B``, ``125M``, ``1.2T``."""
    for suffix, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if n >= size:
            return f"{n / size:.4g}{suffix}"
    return str(n)


def _catalog_or_hub(name: str) -> ModelConfig:
    """The catalog model ``name``; a repository id the catalog does not ship comes from the
    Hugging Face Hub (the catalog's own repository ids stay offline: same published file)."""
    from quizcoll.memory.hub import is_repo_id, load_hub_config

    try:
        return load_model(name)
    except MemoryInputError:
        if not is_repo_id(name):
            raise
    return load_hub_config(name)


def resolve_model_or_config(text: str) -> ModelSource:
    """A field that takes either a ``config.json`` path or a Hub repository id (the memory
    lab's): an existing file is a config, ``ORG/NAME`` otherwise a Hub model."""
    from quizcoll.memory.hub import is_repo_id

    text = text.strip()
    if not Path(text).expanduser().is_file() and is_repo_id(text):
        return resolve_source(model=text)
    return resolve_source(config=Path(text).expanduser())
