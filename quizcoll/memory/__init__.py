"""GPU-memory calculators: exact parameter counts from real model configs, weights in every
dtype and quantization format, inference VRAM (KV cache, activations, overhead), training
memory with ZeRO, and the GPUs they have to fit on.

Modules, one job each:

- :mod:`.errors` — the one error type for bad configs, names and values.
- :mod:`.architecture` — read and validate a Hugging Face ``config.json``.
- :mod:`.params` — the model's tensors and exact parameter counts by component.
- :mod:`.catalog` — built-in real model configs shipped as package data.
- :mod:`.formats` — dtypes and quantization formats, and weight bytes from tensor layouts.
- :mod:`.inference` — KV cache, forward-pass activations, overhead, totals, GPU fit.
- :mod:`.training` — ZeRO model states (and DeepSpeed's estimate of them), Korthikanti et al.
  activations (the paper's GPT figure).
- :mod:`.activations` — the bytes PyTorch saves for backward in a catalogue model's layer.
- :mod:`.vllm` — one GPU's memory as vLLM 0.33.0 splits it (chunked prefill, KV blocks).
- :mod:`.gpus` — GPUs with the memory they really report.

Everything here is pure: plain functions and frozen dataclasses, no numpy.
"""
