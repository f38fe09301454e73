"""Constants of the parallelism systems cards (pipeline, sharding, overlap, context, MoE,
layouts): published figures no calculator holds, each with its source."""

from __future__ import annotations

from deck.cards.registry import Constant
from deck.units import Dim

MIB = 2**20

CONSTANTS: tuple[Constant, ...] = (
    # Communication kernels take SMs away from compute (DeepSeek-V3 technical report).
    Constant(
        "h800_sms",
        132,
        Dim.COUNT,
        "DeepSeek-AI, DeepSeek-V3 Technical Report (2024), §5.1: communication kernels "
        "'occupy 20 out of the 132 SMs available in the H800 GPU' (like the H100 SXM5's 132 "
        "SMs, NVIDIA H100 Tensor Core GPU Architecture whitepaper)",
    ),
    Constant(
        "deepseek_v3_comm_sms",
        20,
        Dim.COUNT,
        "DeepSeek-V3 Technical Report, §3.2.2: 'only 20 SMs are sufficient to fully utilize "
        "the bandwidths of IB and NVLink'; the 20 SMs are partitioned into 10 channels",
    ),
    Constant(
        "deepseek_v3_nvlink_bandwidth",
        160e9,
        Dim.RATE,
        "DeepSeek-V3 Technical Report, §3.2.2: 'NVLink offers a bandwidth of 160 GB/s, "
        "roughly 3.2 times that of IB (50 GB/s)' (H800 nodes)",
        "GB/s",
    ),
    Constant(
        "deepseek_v3_ib_bandwidth",
        50e9,
        Dim.RATE,
        "DeepSeek-V3 Technical Report, §3.2.2: IB at 50 GB/s per GPU",
        "GB/s",
    ),
    Constant(
        "deepseek_v3_max_nodes_per_token",
        4,
        Dim.COUNT,
        "DeepSeek-V3 Technical Report, §2.1.2 and §3.2.2: node-limited routing sends each "
        "token to at most M = 4 nodes",
    ),
    Constant(
        "deepseek_v3_routed_experts_per_token",
        8,
        Dim.COUNT,
        "DeepSeek-V3 Technical Report, §4.2: 256 routed experts per MoE layer, 8 activated "
        "per token",
    ),
    # Mixture of experts.
    Constant(
        "switch_balance_alpha",
        0.01,
        Dim.RATIO,
        "Fedus, Zoph & Shazeer, Switch Transformers (JMLR 2022), §2.2: the auxiliary "
        "load-balancing loss coefficient α = 10^-2",
    ),
    # Defaults of the frameworks.
    Constant(
        "ddp_bucket_cap_default",
        25 * MIB,
        Dim.BYTES,
        "PyTorch DistributedDataParallel: bucket_cap_mb defaults to 25 (MiB); Li et al., "
        "PyTorch Distributed, VLDB 2020, §3.2.3",
        "MiB",
    ),
    Constant(
        "hgx_gpus_per_node",
        8,
        Dim.COUNT,
        "NVIDIA DGX/HGX A100 and H100: 8 GPUs per node on NVLink through NVSwitch, the "
        "NVLink domain tensor parallelism stays inside (Narayanan et al., SC 2021, "
        "Takeaway #1: 'tensor model parallelism should generally be used up to degree g "
        "when using g-GPU servers')",
    ),
)
