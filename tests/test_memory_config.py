"""config.json reading: every malformed or partial config is one clear MemoryInputError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizcoll.memory.architecture import SUPPORTED_MODEL_TYPES, load_config, parse_config
from quizcoll.memory.catalog import load_model, raw_config
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.params import count_parameters


def _llama(**overrides: object) -> dict[str, object]:
    base = dict(raw_config("llama-2-7b"))
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not ...}


def test_unknown_model_type_names_supported_and_params() -> None:
    with pytest.raises(MemoryInputError) as err:
        parse_config(_llama(model_type="falcon"))
    message = str(err.value)
    assert "'falcon'" in message and "--params" in message
    assert all(t in message for t in SUPPORTED_MODEL_TYPES)


@pytest.mark.parametrize(
    "key",
    ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"],
)
def test_missing_key_is_named(key: str) -> None:
    with pytest.raises(MemoryInputError, match=f"missing key '{key}'"):
        parse_config(_llama(**{key: ...}))


def test_missing_model_type() -> None:
    with pytest.raises(MemoryInputError, match="model_type"):
        parse_config(_llama(model_type=...))


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"hidden_size": "4096"}, "hidden_size must be a positive integer"),
        ({"hidden_size": -1}, "hidden_size must be a positive integer"),
        ({"num_hidden_layers": True}, "num_hidden_layers must be a positive integer"),
        ({"num_key_value_heads": 5}, "not a multiple"),
        ({"hidden_size": 4095}, "not divisible"),
        ({"tie_word_embeddings": "no"}, "true or false"),
    ],
)
def test_bad_values(overrides: dict[str, object], fragment: str) -> None:
    with pytest.raises(MemoryInputError, match=fragment):
        parse_config(_llama(**overrides))


def test_mixtral_more_active_than_experts() -> None:
    cfg = dict(raw_config("mixtral-8x7b"), num_experts_per_tok=9)
    with pytest.raises(MemoryInputError, match="exceeds num_local_experts"):
        parse_config(cfg)


def test_gpt2_missing_positions() -> None:
    cfg = dict(raw_config("gpt2"))
    del cfg["n_positions"]
    with pytest.raises(MemoryInputError, match="'n_positions'"):
        parse_config(cfg)


def test_not_an_object() -> None:
    with pytest.raises(MemoryInputError, match="expected a JSON object"):
        parse_config([1, 2])


def test_load_config_file_errors(tmp_path: Path) -> None:
    with pytest.raises(MemoryInputError, match="no such file"):
        load_config(tmp_path / "nope.json")
    with pytest.raises(MemoryInputError, match="is a directory"):
        load_config(tmp_path)
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama",\n  "hidden_size": }')
    with pytest.raises(MemoryInputError, match=r"config.json:2:\d+: not valid JSON"):
        load_config(bad)


def test_load_config_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw_config("qwen2.5-7b")))
    cfg = load_config(path)
    assert cfg.qkv_bias and not cfg.o_bias and cfg.num_kv_heads == 4


def test_sliding_windows_per_model_type() -> None:
    assert load_model("mistral-7b").sliding_windows == (4096,) * 32
    assert load_model("mixtral-8x7b").sliding_windows == (None,) * 32
    # Qwen2.5 ships use_sliding_window: false
    assert set(load_model("qwen2.5-7b").sliding_windows) == {None}
    qwen = dict(
        raw_config("qwen2.5-7b"), use_sliding_window=True, sliding_window=4096, max_window_layers=20
    )
    windows = parse_config(qwen).sliding_windows
    assert windows[:20] == (None,) * 20 and windows[20:] == (4096,) * 8
    mistral = {k: v for k, v in raw_config("mistral-7b").items() if k != "sliding_window"}
    assert parse_config(mistral).sliding_windows[0] == 4096  # transformers' default
    layered = dict(
        raw_config("mistral-7b"), layer_types=["full_attention", "sliding_attention"] * 16
    )
    assert parse_config(layered).sliding_windows[:2] == (None, 4096)


@given(
    st.dictionaries(
        st.text(max_size=20), st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    )
)
def test_junk_configs_raise_only_memory_input_error(data: dict[str, object]) -> None:
    for model_type in (None, "llama", "gpt2", "mixtral", "qwen2"):
        junk = dict(data)
        if model_type:
            junk["model_type"] = model_type
        try:
            cfg = parse_config(junk)
        except MemoryInputError as exc:
            assert "\n" not in str(exc)
        else:
            assert count_parameters(cfg).total > 0
