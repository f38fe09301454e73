"""Training and serving systems calculators: the numbers interviews ask about beyond memory.

Modules, one job each (all pure: plain functions and frozen dataclasses, no numpy):

- :mod:`.errors` — the one refusal type and the checks every calculator uses on its inputs.
- :mod:`.pipeline` — pipeline schedules (GPipe, 1F1B, interleaved 1F1B, zero-bubble ZB-H1)
  simulated op by op: bubble, in-flight activations, choosing the micro-batch count.
- :mod:`.sharding` — FSDP/HSDP/ZeRO in practice: peak memory with prefetch, per-dimension
  traffic, ZeRO-3's 1.5× and ZeRO++.
- :mod:`.flops` — training and inference FLOPs, MFU/HFU, training time, Chinchilla.
- :mod:`.serving` — decode and prefill speed limits, the roofline, PagedAttention blocks,
  prefix caching, speculative decoding, MLA latent KV.
- :mod:`.context` — context parallelism: Ulysses all-to-all and ring attention KV exchange.
- :mod:`.moe` — expert capacity, dropped tokens, all-to-all volume, the Switch balancing loss.
- :mod:`.precision` — floating-point formats from their bit layout, loss scaling, FP8 scales,
  gradient accumulation.
- :mod:`.finetune` — LoRA and QLoRA sizes, offload transfer times.
- :mod:`.allocator` — PyTorch's CUDA caching allocator: block rounding and segment sizes.
- :mod:`.layout` — TP × PP × DP × CP × EP layouts: validity rules and per-dimension traffic.
"""
