"""Published nccl-tests measurements, and the NCCL model's figures beside them.

The two Markdown tables in docs/collectives.md ("Model against measurement") are printed
by this module (``python -m quizcoll.collectives.nccl.measurements``) from the rows below;
``tests/test_nccl_measurements.py`` checks that the docs hold exactly that text and that
the model stays within :data:`TOLERANCE` of every measurement and picks what NCCL was
seen to pick. Each row names the system, the size at which the figure was read, and
where it was published.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quizcoll.collectives.nccl.choose import Choice, algorithm, choose
from quizcoll.collectives.nccl.topology import Topology, topology

TOLERANCE = 0.25  # the model may be off by at most 25% from any measurement
GIB, MIB = 2**30, 2**20


@dataclass(frozen=True)
class Measurement:
    """A published busbw (GB/s; per NIC when ``per_nic``) for an all-reduce."""

    system: str
    gpu: str
    nodes: int
    size: int  # bytes S at which the figure was read
    low: float  # GB/s
    high: float  # GB/s (= low for a single figure)
    quote: str  # what the source says
    url: str
    forced: str | None = None  # NCCL_ALGO the run used, if any
    per_nic: bool = False
    options: dict[str, object] = field(default_factory=dict)  # topology() keywords

    def topology(self) -> Topology:
        return topology(self.gpu, self.nodes, **self.options)  # type: ignore[arg-type]

    def choice(self) -> Choice:
        return choose("all_reduce", self.size, self.topology(), algo=algorithm(self.forced))

    def model(self) -> float:
        """The model's busbw (GB/s), per NIC when the measurement is."""
        c = self.choice()
        busbw = c.busbw / 1e9
        return busbw / c.topology.nics_per_node if self.per_nic else busbw

    @property
    def measured(self) -> float:
        return (self.low + self.high) / 2

    def error(self) -> float:
        """model ÷ measured − 1 (against the middle of a measured range)."""
        return self.model() / self.measured - 1


_NCCL_TESTS = "https://github.com/NVIDIA/nccl-tests/issues/"
_NCCL = "https://github.com/NVIDIA/nccl/issues/"

MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement(
        "1 × 8 H100, NCCL_ALGO=Ring",
        "h100",
        1,
        8 * GIB,
        365.0,
        370.0,
        'sjeaugey: "450GB/s is the line rate. With the protocol overhead (~20%) NCCL can '
        'get an effective NVLink bandwidth of 370GB/s … with NCCL_ALGO=RING"',
        _NCCL_TESTS + "212",
        forced="Ring",
    ),
    Measurement(
        "1 × 8 H100, NCCL's choice",
        "h100",
        1,
        8 * GIB,
        480.0,
        480.0,
        'sjeaugey: "On 8 GPUs, you should reach a peak busBw of ~480GB/s (algbw ~275GB/s)"',
        _NCCL_TESTS + "212",
    ),
    Measurement(
        "2 × 8 H100, 8 × 400G per node, NCCL's choice",
        "h100",
        2,
        4 * GIB,
        430.0,
        430.0,
        "8 × H100 nodes with 8 × 400 Gb/s RoCE NICs, NCCL 2.19.3, 4–8 GiB: 330 GB/s with "
        "NVLS off, 430 GB/s with NVLS on, on 1 or 2 nodes; 320 GB/s either way on 4 nodes",
        _NCCL + "1221",
    ),
    Measurement(
        "2 × 8 H100, 8 × 400G per node, NVLS off",
        "h100",
        2,
        4 * GIB,
        330.0,
        330.0,
        "8 × H100 nodes with 8 × 400 Gb/s RoCE NICs, NCCL 2.19.3, 4–8 GiB: 330 GB/s with "
        "NVLS off, 430 GB/s with NVLS on, on 1 or 2 nodes; 320 GB/s either way on 4 nodes",
        _NCCL + "1221",
        options={"nvls": False},
    ),
    Measurement(
        "4 × 8 H100, 8 × 400G per node, NCCL's choice",
        "h100",
        4,
        4 * GIB,
        320.0,
        320.0,
        "8 × H100 nodes with 8 × 400 Gb/s RoCE NICs, NCCL 2.19.3, 4–8 GiB: 330 GB/s with "
        "NVLS off, 430 GB/s with NVLS on, on 1 or 2 nodes; 320 GB/s either way on 4 nodes",
        _NCCL + "1221",
    ),
    Measurement(
        "2 × 8 H100, NDR, NCCL_ALGO=Ring, per NIC",
        "h100",
        2,
        8 * GIB,
        46.0,
        48.0,
        'AddyLaddy: "For NDR @ 400Gbps you should see 46-48GB/s per NIC"',
        _NCCL_TESTS + "290",
        forced="Ring",
        per_nic=True,
    ),
    Measurement(
        "1 × 8 A100 SXM",
        "a100",
        1,
        4 * GIB,
        232.5,
        232.5,
        "8 × A100 in one node, all_reduce_perf up to 4 GiB: 232.54 GB/s",
        _NCCL_TESTS + "175",
    ),
    Measurement(
        "3 × 8 A100 SXM, 4 × HDR per node",
        "a100",
        3,
        128 * MIB,
        96.4,
        96.4,
        "3 servers of 8 × A100 SXM4 with 4 × HDR and Intel Xeon 8358: 96.4 GB/s at 128 MiB; "
        'sjeaugey: "24GB/s is the peak performance per 200G NIC … 96GB/s is the target"',
        _NCCL_TESTS + "119",
        options={"nics_per_node": 4, "cpu": "intel"},
    ),
    Measurement(
        "1 × 8 B300 (b200 preset), NVLS off",
        "b200",
        1,
        8 * GIB,
        695.0,
        695.0,
        "NCCL 2.30.4: 8 × H100 370 → 480 GB/s and 8 × B300 695 → 845 GB/s busbw with "
        "NVLS off → on (B300 is sm_100-family Blackwell with NVLink5: the b200 preset)",
        _NCCL + "2140",
        forced="Ring",
    ),
    Measurement(
        "1 × 8 B300 (b200 preset), NCCL's choice",
        "b200",
        1,
        8 * GIB,
        845.0,
        845.0,
        "NCCL 2.30.4: 8 × H100 370 → 480 GB/s and 8 × B300 695 → 845 GB/s busbw with "
        "NVLS off → on (B300 is sm_100-family Blackwell with NVLink5: the b200 preset)",
        _NCCL + "2140",
    ),
)


@dataclass(frozen=True)
class ObservedChoice:
    """What NCCL was seen to pick over a range of all-reduce sizes (powers of two)."""

    system: str
    gpu: str
    nodes: int
    low: int  # bytes
    high: int  # bytes
    picks: tuple[str, ...]  # "Algorithm/Protocol" NCCL was seen to pick in that range
    quote: str
    url: str

    def sizes(self) -> list[int]:
        out, s = [], self.low
        while s <= self.high:
            out.append(s)
            s *= 2
        return out

    def model_picks(self) -> list[str]:
        topo = topology(self.gpu, self.nodes)
        return [choose("all_reduce", s, topo).best_name for s in self.sizes()]


OBSERVED: tuple[ObservedChoice, ...] = (
    ObservedChoice(
        "1 × 8 H100-class (8 GPU–NIC pairs, NVLS)",
        "h100",
        1,
        8,
        MIB,
        ("Ring/LL",),
        '"8B~1MB: uses Algo RING proto LL channel"',
        _NCCL_TESTS + "309",
    ),
    ObservedChoice(
        "1 × 8 H100-class (8 GPU–NIC pairs, NVLS)",
        "h100",
        1,
        2 * MIB,
        16 * GIB,
        ("NVLS/Simple",),
        '"2MB~16GB uses Algo NVLS proto SIMPLE channel"',
        _NCCL_TESTS + "309",
    ),
    ObservedChoice(
        "2 × 8 H100",
        "h100",
        2,
        8,
        16 * GIB,
        ("Tree/LL", "Tree/LL128", "Tree/Simple", "NVLSTree/Simple"),
        'sjeaugey: "On two nodes, NCCL uses the tree (or nvlstree) algorithm"',
        _NCCL_TESTS + "196",
    ),
)


def cite(url: str) -> str:
    """``nccl-tests #212`` for an issue URL of NVIDIA/nccl or NVIDIA/nccl-tests."""
    repo, number = url.rstrip("/").split("/")[-3], url.rstrip("/").split("/")[-1]
    return f"{repo} #{number}"


def _gbs(x: float) -> str:
    return f"{x:,.1f}"


def _size(n: int) -> str:
    if n >= GIB:
        return f"{n // GIB} GiB"
    if n >= MIB:
        return f"{n // MIB} MiB"
    return f"{n:,} B"


def busbw_table() -> str:
    """Markdown: system, size, the model's pick and busbw, the measured busbw, the error
    and the source; then what each source says."""
    lines = [
        "| system | S | model picks | model busbw | measured busbw | error | source |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in MEASUREMENTS:
        c = m.choice()
        unit = " per NIC" if m.per_nic else ""
        measured = _gbs(m.low) if m.low == m.high else f"{_gbs(m.low)}–{_gbs(m.high)}"
        lines.append(
            f"| {m.system} | {_size(m.size)} | {c.best_name} | {_gbs(m.model())} GB/s{unit} "
            f"| {measured} GB/s{unit} | {m.error():+.1%} | [{cite(m.url)}]({m.url}) |"
        )
    lines.append("")
    for url in dict.fromkeys(m.url for m in MEASUREMENTS):
        quotes = "; ".join(dict.fromkeys(m.quote for m in MEASUREMENTS if m.url == url))
        lines.append(f"- [{cite(url)}]({url}): {quotes}")
    return "\n".join(lines)


def choice_table() -> str:
    """Markdown: where NCCL's observed pick and the model's agree."""
    lines = [
        "| system | sizes | NCCL was seen to pick | the model picks | source |",
        "|---|---|---|---|---|",
    ]
    for o in OBSERVED:
        picks = o.model_picks()
        shown = " → ".join(dict.fromkeys(picks))  # in size order, each once
        lines.append(
            f"| {o.system} | {_size(o.low)} – {_size(o.high)} | {' or '.join(o.picks)} "
            f"| {shown} | [{cite(o.url)}]({o.url}): {o.quote} |"
        )
    return "\n".join(lines)


def tables() -> str:
    """Both tables, as docs/collectives.md holds them."""
    return f"{busbw_table()}\n\n{choice_table()}\n"


if __name__ == "__main__":
    print(tables(), end="")
