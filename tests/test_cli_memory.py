"""``quizcoll vram`` and ``quizcoll train-mem`` through the real dispatcher: JSON keys, text, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from quizcoll.cli import main as cli_main
from quizcoll.memory.catalog import raw_config

VRAM_KEYS = {
    "parameters",
    "active_parameters",
    "bytes_per_parameter",
    "weights_bytes",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "activation_bytes",
    "overhead_bytes",
    "total_bytes",
}


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert cli_main.main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert cli_main.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_vram_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["vram", "--model", "llama-2-7b", "--context", "4096", "--json"])
    assert doc.keys() >= VRAM_KEYS and "gpus_needed" not in doc
    assert doc["parameters"] == 6_738_415_616
    assert doc["kv_bytes_per_token"] == 524_288
    assert doc["kv_cache_bytes"] == 524_288 * 4096
    assert doc["weights_bytes"] == 2 * 6_738_415_616
    assert doc["total_bytes"] == sum(
        doc[k] for k in ("weights_bytes", "kv_cache_bytes", "activation_bytes", "overhead_bytes")
    )


def test_vram_with_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(
        capsys,
        [
            "vram",
            "--model",
            "llama-3-70b",
            "--dtype",
            "bf16",
            "--context",
            "32k",
            "--gpu",
            "2xH100",
            "--json",
        ],
    )
    assert doc["context"] == 32768
    assert doc["gpus_needed"] == 3
    assert doc["gpu"]["count"] == 2 and doc["gpu"]["fits"] is False
    assert 0 < doc["gpu"]["max_context"] < 32768


def test_vram_moe_active(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["vram", "--model", "mixtral-8x7b", "--dtype", "q4_k", "--json"])
    assert doc["active_parameters"] == 12_879_925_248 < doc["parameters"]
    assert doc["quantization"]["kept_dtype"] == "fp32"


def test_vram_params_only(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["vram", "--params", "7B", "--dtype", "int4", "--json"])
    assert doc["weights_bytes"] == 3_500_000_000
    assert doc["kv_cache_bytes"] is None and doc["activation_bytes"] is None


def test_vram_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw_config("gemma-7b")))
    doc = _json(capsys, ["vram", "--config", str(path), "--json"])
    assert doc["parameters"] == 8_537_680_896


def test_vram_text_shows_bytes_gb_gib_and_bars(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["vram", "--model", "llama-3-8b", "--gpu", "rtx-4090"]) == 0
    out = capsys.readouterr().out
    assert "GiB" in out and "GB" in out and "█" in out
    assert "16,060,522,496" in out  # the weights in bytes
    assert "Rule of thumb" in out and "longest context" in out
    assert not re.search(r"\d\s?G\b", out), "a bare G is ambiguous"


def test_train_mem_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["train-mem", "--params", "7.5B", "--zero", "2", "--gpus", "64", "--json"])
    assert doc["parameters"] == 7_500_000_000 and doc["zero_stage"] == 2 and doc["gpus"] == 64
    per = doc["per_gpu_bytes"]
    assert set(per) == {"weights", "gradients", "optimizer_states", "total"}
    assert per["total"] == pytest.approx(16.640625e9)
    assert doc["activation_bytes"] is None


def test_train_mem_model_activations(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, ["train-mem", "--model", "gpt2", "--seq-len", "1024", "--json"])
    s, h, a = 1024, 768, 12
    assert doc["activation_bytes"] == pytest.approx(12 * s * h * (34 + 5 * a * s / h))
    assert doc["per_gpu_bytes"]["total"] == 16 * 124_439_808


def test_train_mem_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["train-mem", "--model", "llama-2-7b", "--zero", "3", "--gpus", "8"]) == 0
    out = capsys.readouterr().out
    assert "ZeRO stage 3" in out and "GiB" in out and "Korthikanti" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["vram", "--model", "llama-3-8", "--json"], "did you mean"),
        (["vram", "--model", "llama-3-8b", "--dtype", "fp61"], "did you mean 'fp16'"),
        (["vram", "--model", "llama-3-8b", "--gpu", "h10"], "did you mean"),
        (["vram", "--model", "llama-3-8b", "--context", "-5"], "context"),
        (["vram", "--model", "llama-3-8b", "--kv-dtype", "q4_k"], "KV-cache dtype"),
        (["vram", "--model", "gpt2", "--context", "4096"], "learned position embeddings"),
        (["vram", "--params=-7B"], "parameter count"),
        (["vram", "--model", "gpt2", "--overhead", "1G"], "ambiguous"),
        (["vram", "--model", "gpt2", "--utilization", "1.5"], "utilization"),
        (["train-mem", "--params", "7B", "--gpus", "0"], "--gpus"),
        (["train-mem", "--model", "nope"], "unknown model"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    assert fragment in _error(capsys, argv)


def test_bad_config_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "config.json"
    broken.write_text("{not json")
    assert "not valid JSON" in _error(capsys, ["vram", "--config", str(broken)])
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    assert "missing key" in _error(capsys, ["train-mem", "--config", str(partial)])
    unknown = tmp_path / "falcon.json"
    unknown.write_text(json.dumps({"model_type": "falcon"}))
    assert "--params" in _error(capsys, ["vram", "--config", str(unknown)])


def test_command_modules_import_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import quizcoll.cli.cmd_vram, quizcoll.cli.cmd_train_mem; "
        "print(any(m in sys.modules for m in ('numpy', 'textual', 'quizcoll.memory.inference')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
