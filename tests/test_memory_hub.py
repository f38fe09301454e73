"""``--model ORG/NAME`` reads config.json through huggingface_hub, from a cache folder the
tests fill themselves (``HF_HUB_CACHE``, ``HF_HUB_OFFLINE=1``): never the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizcoll.memory.hub import is_repo_id

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "quizcoll" / "memory" / "models"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
LLAMA_3_8B = 8_030_261_248  # the catalog's count for the same published config

pytest.importorskip("huggingface_hub")


def fill_cache(cache: Path, repo_id: str, config: str | bytes) -> None:
    """The Hub cache layout: models--ORG--NAME/refs/main → snapshots/COMMIT/config.json."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(COMMIT)
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True, exist_ok=True)
    data = config.encode() if isinstance(config, str) else config
    (snapshot / "config.json").write_bytes(data)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / "hub"
    fill_cache(folder, "acme/llama-copy", (MODELS / "llama-3-8b.json").read_text())
    fill_cache(folder, "acme/broken", "{not json")
    fill_cache(folder, "acme/huge", b"{" + b" " * (1024 * 1024 + 10) + b"}")
    fill_cache(folder, "acme/bert", json.dumps({"model_type": "bert"}))
    return folder


def run(cache: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_HUB_CACHE": str(cache),
        "HF_HOME": str(cache.parent / "hf-home"),
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    argv = ["-c", code] if code else ["-m", "quizcoll", *args]
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, env=env
    )


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("meta-llama/Meta-Llama-3-8B", True),
        ("Qwen/Qwen2.5-7B-Instruct", True),
        ("acme/model_v1.5", True),
        ("llama-3-8b", False),
        ("a/b/c", False),
        ("/etc/passwd", False),
        ("acme/", False),
        ("acme/--x", False),
        ("acme/a..b", False),
        ("-acme/x", False),
        ("acme/" + "x" * 100, False),
    ],
)
def test_repo_ids(name: str, ok: bool) -> None:
    assert is_repo_id(name) is ok


def test_vram_reads_the_config_from_the_hub_cache(cache: Path) -> None:
    out = run(cache, "vram", "--model", "acme/llama-copy", "--context", "8k", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["model"] == "acme/llama-copy" and doc["parameters"] == LLAMA_3_8B
    assert doc["kv_bytes_per_token"] == 131_072  # 2 × 32 layers × 8 KV heads × 128 × 2 B


def test_train_mem_reads_the_config_from_the_hub_cache(cache: Path) -> None:
    out = run(cache, "train-mem", "--model", "acme/llama-copy", "--zero", "3", "--gpus", "8")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"acme/llama-copy: {LLAMA_3_8B:,} parameters")


def test_memory_lab_takes_a_repo_id_in_its_config_field(cache: Path) -> None:
    code = (
        "from quizcoll.tui.services.memory_lab import MemoryRequest, compute\n"
        "r = compute(MemoryRequest(config_path='acme/llama-copy'))\n"
        "print(r.label, r.estimate.parameters)"
    )
    out = run(cache, code=code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["acme/llama-copy", str(LLAMA_3_8B)]


def test_catalog_names_and_repo_ids_stay_offline(tmp_path: Path) -> None:
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    for name in ("llama-3-8b", "meta-llama/Meta-Llama-3-8B"):
        out = run(empty, "vram", "--model", name, "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["parameters"] == LLAMA_3_8B


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("acme/missing", "acme/missing: config.json is not in the Hugging Face cache and HF_HUB_OFFLINE is set"),
        ("acme/broken", "acme/broken/config.json:1:2: not valid JSON"),
        ("acme/huge", "a model config is at most 1,048,576"),
        ("acme/bert", "unknown model_type 'bert'"),
        ("llama-3-9b", "unknown model 'llama-3-9b' (did you mean 'llama-3-8b'?)"),
    ],
)  # fmt: skip
def test_hub_errors_are_one_line(cache: Path, model: str, message: str) -> None:
    out = run(cache, "vram", "--model", model)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_without_huggingface_hub_the_message_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from quizcoll.cli.main import main

    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    assert main(["vram", "--model", "acme/anything"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'quizcoll[hub]'" in err and len(err.strip().splitlines()) == 1


def _unreachable(cache: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``quizcoll ARGS`` with HF_HUB_OFFLINE unset and a Hub endpoint that refuses at once
    (a closed local port): what a laptop without network sees, with no network needed."""
    import time

    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    env.update(
        HF_HUB_CACHE=str(cache),
        HF_HOME=str(cache.parent / "hf-home"),
        HF_ENDPOINT="http://127.0.0.1:9",
        HF_HUB_DISABLE_TELEMETRY="1",
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "quizcoll", *args], capture_output=True, text=True, cwd=ROOT, env=env
    )
    return done, time.monotonic() - start


def test_unreachable_hub_says_so_in_one_line_without_retrying(cache: Path) -> None:
    """N16: no network printed six "thrown while requesting" / "Retrying in 8s" lines from
    huggingface_hub over ~23 s before the one-line error."""
    done, seconds = _unreachable(cache, "vram", "--model", "acme/not-cached")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "quizcoll vram: error: acme/not-cached: could not reach the Hugging Face Hub and "
        "config.json is not in its cache"
    ]
    assert seconds < 10  # the five retries' backoff alone is 23 s


def test_unreachable_hub_still_reads_a_cached_config(cache: Path) -> None:
    done, _ = _unreachable(cache, "vram", "--model", "acme/llama-copy", "--context", "8k", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parameters"] == LLAMA_3_8B
    assert done.stderr == ""
