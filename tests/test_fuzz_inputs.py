"""Fuzz campaigns (issue 26) for the other files and texts the app reads: Hugging Face
``config.json`` files, the settings file (its theme and the settings screen's save), the
proof cache of ``check``, and typed answers to every card of the collection.

Contracts: a ``config.json`` gives a model or one :class:`MemoryInputError` line, and a
model it gives can be counted and estimated; a settings file never makes ``read_theme``
raise, and a save either refuses in one line or leaves a file that loads; a proof cache of
any bytes opens (as empty when it is not a cache) and saves a file that opens to the same
entries; a typed answer, however hostile, gets a verdict and never raises.
``QUIZCOLL_FUZZ_SCALE=20`` runs a deep campaign; CI runs scale 1 (counts below).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from deck.answers.checking import check_answer
from deck.cards.instances import draw
from deck.cards.model import CardType
from deck.proving.proofcache import MAX_ENTRIES, ProofCache, Proven
from deck.review.scheduler import ConfigError, load_config
from quizcoll.collection import load
from quizcoll.config_file import ConfigWriteError
from quizcoll.memory.architecture import MAX_CONFIG_VALUES, SUPPORTED_MODEL_TYPES, parse_config
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import parse_format
from quizcoll.memory.inference import estimate
from quizcoll.memory.params import count_parameters
from quizcoll.settings import THEMES, Change, SettingsError, read_theme, save_settings

SCALE = max(1, int(os.environ.get("QUIZCOLL_FUZZ_SCALE", "1")))
HF_CONFIG_EXAMPLES = 400 * SCALE
HF_FILE_EXAMPLES = 100 * SCALE
SETTINGS_EXAMPLES = 200 * SCALE
PROOF_CACHE_EXAMPLES = 300 * SCALE
ANSWER_EXAMPLES = 400 * SCALE
FUZZ_EXAMPLES = (
    HF_CONFIG_EXAMPLES
    + HF_FILE_EXAMPLES
    + SETTINGS_EXAMPLES
    + PROOF_CACHE_EXAMPLES
    + ANSWER_EXAMPLES
)


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# -- config.json -------------------------------------------------------------------------

KEYS = [*MAX_CONFIG_VALUES, "model_type", "rms_norm_eps", "tie_word_embeddings", "rope_theta",
        "attention_bias", "mlp_bias", "torch_dtype", "_name_or_path", "layer_types",
        "use_sliding_window", "architectures", "num_experts"]  # fmt: skip
SANE = {"vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
        "max_position_embeddings": 8192, "n_embd": 768, "n_layer": 12, "n_head": 12,
        "n_positions": 1024}  # fmt: skip
_junk = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([2**17 + 1, 2**31, 10**40, -(10**6), 0, 7, 64, 128, 4096]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.lists(st.integers(-2, 5) | st.text(max_size=3), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def hf_configs(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = dict(SANE)
    data["model_type"] = draw(st.sampled_from([*SUPPORTED_MODEL_TYPES, "bert", "", 7]))
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(KEYS))
        if draw(st.integers(0, 4)) == 0:
            data.pop(key, None)
        else:
            data[key] = draw(_junk)
    return data


@_settings(HF_CONFIG_EXAMPLES)
@given(hf_configs())
def test_hf_configs_give_a_model_or_one_line(data: dict[str, Any]) -> None:
    try:
        cfg = parse_config(data, "config.json")
    except MemoryInputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("config.json"), str(exc)
        event("refused")
        return
    event(f"model {cfg.model_type}")
    total = count_parameters(cfg).total
    assert type(total) is int and total > 0
    context = min(4096, cfg.max_position_embeddings or 4096)
    est = estimate(cfg, parse_format("bf16"), context=context)
    assert est.total_bytes > 0


@_settings(HF_FILE_EXAMPLES)
@given(st.binary(max_size=64) | hf_configs().map(lambda d: json.dumps(d).encode()))
def test_hf_config_files_of_any_bytes(data: bytes) -> None:
    from quizcoll.memory.architecture import load_config as load_hf

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        path.write_bytes(data)
        try:
            load_hf(path)
        except MemoryInputError as exc:
            assert "\n" not in str(exc)


# -- config.toml -------------------------------------------------------------------------

_toml_lines = st.lists(
    st.sampled_from(
        ["[app]", "[review]", "[deck.x]", "[[app]]", 'theme = "textual-light"', "theme = 1",
         'theme = "x"', "theme = [", "new_per_day = 5", "new_per_day = -1", "desired_retention = 2",
         'learning_steps = ["1m"]', "learning_steps = 3", "a = " + "[" * 300, "x.y.z = 1", "=",
         '"\\u0000" = 1', "# comment", "", "\x00", "new_per_day = 99999999999999999999"]
    ) | st.text(max_size=10),
    max_size=8,
).map("\n".join)  # fmt: skip


@_settings(SETTINGS_EXAMPLES)
@given(_toml_lines, st.sampled_from([None, *THEMES]), st.integers(-5, 10**6))
def test_settings_files_never_break_the_theme_or_a_save(
    text: str, theme: str | None, n: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert read_theme(path) in (None, *THEMES)
        try:
            save_settings(path, [Change("new_per_day", n)], theme=theme)
        except (ConfigWriteError, ConfigError, SettingsError) as exc:
            assert "\n" not in str(exc)
            assert path.read_bytes() == text.encode("utf-8", "surrogatepass")  # left as it was
            event("save refused")
            return
        event("saved")
        assert load_config(path).default.new_per_day == n
        assert theme is None or read_theme(path) == theme


# -- the proof cache ---------------------------------------------------------------------

CODE = "0" * 64
_key = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_counts = st.lists(
    st.one_of(st.integers(-2, 10**10), st.floats(), st.booleans(), st.none(), st.text(max_size=2)),
    min_size=2,
    max_size=4,
)


@st.composite
def cache_bytes(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["valid", "valid", "junk", "bytes", "bomb"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    if kind == "bomb":
        return b'{"format": 1, "proofs": ' + b"[" * 100_000 + b"}"
    proofs = draw(st.dictionaries(_key | st.text(max_size=5), _counts, max_size=6))
    body: dict[str, Any] = {"format": draw(st.sampled_from([1, 1, 2, "1", True])), "proofs": proofs}
    if kind == "junk":
        body["proofs"] = draw(st.sampled_from([[], None, "x", 5]))
    return json.dumps(body).encode()


@_settings(PROOF_CACHE_EXAMPLES)
@given(cache_bytes(), st.lists(st.tuples(_key, st.integers(0, 10**9)), max_size=3))
def test_proof_caches_of_any_bytes_open_and_round_trip(
    data: bytes, puts: list[tuple[str, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "proofs.json"
        path.write_bytes(data)
        cache = ProofCache.open(path, CODE)
        assert 0 <= len(cache) <= MAX_ENTRIES
        event(f"opened with {min(len(cache), 2)}+ entries")
        for key, n in puts:
            cache.put(key, Proven(n, n, n))
        assert cache.save() is None
        again = ProofCache.open(path, CODE)
        for key, n in dict(puts).items():
            assert again.get(key) == Proven(n, n, n)


# -- typed answers -----------------------------------------------------------------------

COLLECTION, REGISTRY = load()
GRADED = [c for c in COLLECTION.cards if c.type is not CardType.BASIC]
_answer_parts = st.sampled_from(
    ["1e308", "*", "1e308*1e308", "10^308", "^", "10**400", "9" * 400, "1e-400", "0", "-", "/",
     "(", ")", "N", "S", "n", "size", "log2(", "sqrt(", "exp(1000)", "min(", ",", "inf", "nan",
     " ", "MiB", "GB/s", "ms", "%", "a", "b, c", "½", "²", "\u202e", "\x00", "e", "E", "_",
     "1_000", "0x10", "1:30", "3.", ".5", "1e", "×", "−", "·", "GiB/s", "tokens"]
) | st.text(max_size=4)  # fmt: skip
_answers = st.lists(_answer_parts, max_size=10).map("".join)


@_settings(ANSWER_EXAMPLES)
@given(st.sampled_from(GRADED), st.integers(0, 5), _answers)
def test_typed_answers_always_get_a_verdict(card: Any, seed: int, answer: str) -> None:
    verdict = check_answer(card, draw(card, seed, REGISTRY), answer, REGISTRY)
    event("invalid" if verdict.invalid else "correct" if verdict.correct else "wrong")
    assert verdict.invalid or verdict.suggested is not None
    assert isinstance(verdict.feedback, str) and len(verdict.feedback) < 2000
