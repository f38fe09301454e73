"""A catalog model as transformers builds it from the bundled config, on the meta device.

The oracles count what a real library instantiates: ``AutoConfig.for_model`` over the
config's own keys, ``AutoModelForCausalLM.from_config`` under ``torch.device("meta")`` (no
memory, no weights). Shared by the parameter-count and shape oracles so the call exists once.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import torch
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig

# Keys of a config.json that are not constructor arguments of its config class.
_NOT_FIELDS = frozenset({"architectures", "model_type"})


def bundled_config(name: str) -> dict[str, object]:
    """The bundled ``quizcoll/memory/models/<name>.json`` as JSON."""
    text = resources.files("quizcoll.memory").joinpath("models", f"{name}.json").read_text()
    return json.loads(text)


@functools.cache  # one build per process: meta tensors hold no memory, the oracles only read
def meta_model(name: str) -> tuple[PretrainedConfig, torch.nn.Module]:
    """transformers' config and causal-LM model of catalog model ``name``, on meta."""
    data = bundled_config(name)
    fields = {k: v for k, v in data.items() if not k.startswith("_") and k not in _NOT_FIELDS}
    cfg = AutoConfig.for_model(data["model_type"], **fields)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    return cfg, model
