"""The built-in model catalog: real Hugging Face ``config.json`` files shipped as package data.

Each file in ``quizcoll/memory/models/`` is a model's published config, named by its
catalog key (``llama-3-8b.json``). Parameter counts are always computed from the config,
never stored. Names are matched case-insensitively, also against the Hugging Face repo id
(``meta-llama/Meta-Llama-3-8B``) and its last part.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from quizcoll.memory.architecture import ModelConfig, parse_config
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.numbers import suggest

_PACKAGE, _FOLDER = "quizcoll.memory", "models"


@functools.cache
def model_names() -> tuple[str, ...]:
    """Catalog keys, sorted (from the file names; cheap, nothing is parsed)."""
    root = resources.files(_PACKAGE).joinpath(_FOLDER)
    return tuple(
        sorted(p.name[: -len(".json")] for p in root.iterdir() if p.name.endswith(".json"))
    )


@functools.cache
def _raw(name: str) -> dict[str, object]:
    text = resources.files(_PACKAGE).joinpath(_FOLDER, f"{name}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return data


@functools.cache
def _aliases() -> dict[str, str]:
    """Lower-cased alias -> catalog key: the key, the HF repo id and its last part."""
    table: dict[str, str] = {}
    for key in model_names():
        table[key] = key
        repo = str(_raw(key).get("_name_or_path", "")).lower()
        if repo:
            table[repo] = key
            table[repo.rsplit("/", 1)[-1]] = key
    return table


def resolve_name(name: str) -> str:
    """The catalog key for ``name``, or a :class:`MemoryInputError` with a suggestion."""
    wanted = name.strip().lower()
    if wanted in model_names():
        return wanted
    aliases = _aliases()
    if wanted in aliases:
        return aliases[wanted]
    hint = suggest(wanted, aliases) or suggest(wanted, model_names())
    raise MemoryInputError(
        f"unknown model {name!r}{hint}; known: {', '.join(model_names())}; "
        "or give --config PATH or --params N"
    )


@functools.cache
def load_model(name: str) -> ModelConfig:
    """The parsed config of the catalog model ``name`` (any accepted spelling)."""
    key = resolve_name(name)
    return parse_config(_raw(key), source=f"models/{key}.json")


def raw_config(name: str) -> dict[str, object]:
    """A copy of the catalog model's ``config.json`` as published."""
    return dict(_raw(resolve_name(name)))
