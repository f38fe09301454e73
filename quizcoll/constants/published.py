"""Published figures behind the third edition's corrections and new topics, each with its
source and the words it is quoted from.

These are figures no calculator derives: a schedule comparison table, a bus width read from
the driver, an NVLink domain size, a recipe default. Cards show them with ``{=name}`` or use
them in ``expect`` formulas, so a card that contradicts its source fails ``check``.
"""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

_ZB = (
    "sail-sg/zero-bubble-pipeline-parallelism README.md, 'Comparision of Schedules' table "
    "(Qi et al., arXiv 2401.10241): 'Activation Memory (Compared to 1F1B) | 1x | 1x | 2x | "
    "1x' and 'Pipeline Communication Volume (Compared to 1F1B) | 1x | 1x | 1x | 2x' for "
    "1F1B, ZB1P, ZB2P, ZBV"
)
_ZB_MEMORY = (
    "| Activation Memory <br> (Compared to 1F1B)             | 1x       | 1x        | 2x    "
    "| 1x   |"
)
_ZB_COMM = (
    "| Pipeline Communication Volume <br> (Compared to 1F1B) | 1x       | 1x        | 1x    "
    "| 2x   |"
)
_AO4002 = (
    "pytorch/ao PR #4002 (update b200 peak memory bandwidth, 2026-03): driver query "
    "'Memory Bus Width: 7680 bits', nvidia-smi 'clocks.max.memory 3996 MHz', "
    "'(7680bits/8bits per byte)*(3996 MHz memory clock) * 2 DDR / 1e12 = 7.672 TB/s'"
)

_QLORA_PAGED = (
    "Dettmers et al. 2023 (QLoRA), §4: 'we do not provide hard measurements for Paged "
    "Optimizers since the paging only occurs when processing mini-batches with long sequence "
    "lengths, which is rare. We do, however, perform an analysis of the runtime of paged "
    "optimizers for 65B models on 48GB GPUs and find that with a batch size of 16, paged "
    "optimizers provide the same training speed as regular optimizers'"
)

CONSTANTS: tuple[Constant, ...] = (
    Constant(
        "fp4_bytes",
        0.5,
        Dim.BYTES,
        "OCP Microscaling Formats (MX) v1.0 §5.3: FP4 (E2M1) elements are 4 bits; the shared "
        "scales (8 bits per 32 values in MXFP4, per 16 in NVFP4) come on top",
        "B",
    ),
    Constant(
        "dualpipe_param_copies",
        2.0,
        Dim.RATIO,
        "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, Table 2: DualPipe's parameter memory "
        "'2×' against 1F1B's and ZB1P's '1×' (activation PP + 1 against PP)",
    ),
    Constant(
        "h100_sxm_sms",
        132.0,
        Dim.COUNT,
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper: the H100 SXM5 has 132 SMs",
    ),
    Constant(
        "mxfp8_block",
        32.0,
        Dim.COUNT,
        "OCP Microscaling Formats (MX) v1.0, §5: MXFP8 is 32 FP8 elements (E4M3 or E5M2) "
        "sharing one E8M0 scale; Transformer Engine MXFP8BlockScaling (Blackwell)",
    ),
    Constant("qlora_paged_case_params", 65e9, Dim.COUNT, _QLORA_PAGED),
    Constant("qlora_paged_case_gpu_memory", 48e9, Dim.BYTES, _QLORA_PAGED, "GB"),
    Constant("qlora_paged_case_batch", 16.0, Dim.COUNT, _QLORA_PAGED),
    # The README's table rows, verbatim (sail-sg/zero-bubble-pipeline-parallelism@3a91d0c):
    # the columns are 1F1B, ZB1P, ZB2P, ZBV.
    Constant("zb1p_activation_vs_1f1b", 1.0, Dim.RATIO, _ZB, quote=_ZB_MEMORY),
    Constant("zb2p_activation_vs_1f1b", 2.0, Dim.RATIO, _ZB, quote=_ZB_MEMORY),
    Constant("zbv_activation_vs_1f1b", 1.0, Dim.RATIO, _ZB, quote=_ZB_MEMORY),
    Constant("zb2p_pp_comm_vs_1f1b", 1.0, Dim.RATIO, _ZB, quote=_ZB_COMM),
    Constant("zbv_pp_comm_vs_1f1b", 2.0, Dim.RATIO, _ZB, quote=_ZB_COMM),
    Constant("b200_hbm_bus_bits", 7680.0, Dim.COUNT, _AO4002),
    Constant("b200_hbm_clock_mhz", 3996.0, Dim.COUNT, _AO4002),
    Constant(
        "b200_launch_hbm_bandwidth",
        8e12,
        Dim.RATE,
        "NVIDIA Blackwell launch figures (GTC 2024, B200 with 192 GB HBM3e: '8TB/s'); "
        "ai-dynamo/aiconfigurator PR #1246 corrects B200 SXM from 8 TB/s to the datasheet's "
        "7.7 TB/s",
        "TB/s",
    ),
)
