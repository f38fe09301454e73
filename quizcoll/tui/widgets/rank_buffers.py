"""Every rank's buffer at one step of a simulated collective, as a grid of blocks.

Row r is rank r; column c is its block c. A cell shows how many ranks' contributions
that block holds (reducing collectives) or whether it is present (data-moving ones):
``·`` empty, a number while partial, ``■`` complete. Blocks received in this step are
drawn reversed; blocks sent in this step are underlined. The right column is the bytes
each rank has sent so far.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from deck import units
from quizcoll.tui.services.lab import LabRun

MAX_RANKS = 16
MAX_CHUNKS = 16


def _cell(value: int, full: int, reduces: bool) -> tuple[str, str]:
    if value <= 0:
        return "·", "dim"
    if value >= full:
        return "■", "bold green"
    return (str(value) if value < 100 else "+"), "yellow" if reduces else "cyan"


def render_step(lab: LabRun, view: int) -> Table:
    """The buffers after round ``view − 1`` (``view`` 0: the start), with its transfers marked."""
    ranks = min(lab.ranks, MAX_RANKS)
    chunks = min(lab.chunks, MAX_CHUNKS)
    received: set[tuple[int, int]] = set()
    sent: set[tuple[int, int]] = set()
    if view > 0:
        st = lab.step(view - 1)
        received = {(int(d), int(c)) for d, c in zip(st.dst, st.dst_chunk, strict=True)}
        sent = {(int(s), int(c)) for s, c in zip(st.src, st.chunk, strict=True)}
    table = Table(box=None, padding=(0, 0), show_edge=False, pad_edge=False)
    table.add_column("rank", justify="right", style="bold", no_wrap=True)
    for c in range(chunks):
        table.add_column(f"{c:>2}", justify="center", no_wrap=True, min_width=3)
    table.add_column(" sent so far", justify="right", no_wrap=True)
    sent_so_far = lab.sent_so_far[view]
    for r in range(ranks):
        cells: list[Text | str] = [f"{r} "]
        for c in range(chunks):
            if lab.holdings is None:
                cells.append(Text(" ? ", style="dim"))
                continue
            glyph, style = _cell(int(lab.holdings[view, r, c]), lab.full, lab.collective.reduces)
            if (r, c) in received:
                style += " reverse"
            if (r, c) in sent:
                style += " underline"
            cells.append(Text(f" {glyph} ", style=style))
        cells.append(Text(" " + units.format_bytes(float(sent_so_far[r])), style="cyan"))
        table.add_row(*cells)
    return table


def shown_note(lab: LabRun) -> Text | None:
    """What the grid leaves out, said plainly (it draws at most 16 ranks × 16 blocks)."""
    parts = []
    if lab.ranks > MAX_RANKS:
        parts.append(f"ranks 0–{MAX_RANKS - 1} of {lab.ranks}")
    if lab.chunks > MAX_CHUNKS:
        parts.append(f"blocks 0–{MAX_CHUNKS - 1} of {lab.chunks}")
    if not parts:
        return None
    return Text(
        f"The grid shows {' and '.join(parts)}; the transfers, bytes and times count them all.",
        style="italic yellow",
    )


def render_transfers(lab: LabRun, view: int, limit: int = 16) -> Text:
    """The transfers of round ``view − 1``, compactly: ``0→1 b5 +128.00 KiB``."""
    out = Text()
    if view == 0:
        out.append("Start: every rank holds its own input. → steps, space plays.", style="dim")
        return out
    st = lab.step(view - 1)
    total = int(st.bytes.sum())
    reduces = bool(st.reduce.any())
    out.append(f"{len(st)} transfer(s), {units.format_bytes(total)} on the wire, ", style="bold")
    out.append("reduced into the receiver's block" if reduces else "stored by the receiver")
    out.append("\n")
    items = []
    for i in range(min(len(st), limit)):
        op = "+" if bool(st.reduce[i]) else "="
        items.append(
            f"{int(st.src[i])}→{int(st.dst[i])} b{int(st.chunk[i])}"
            f"{op}{units.format_bytes(float(st.bytes[i]), digits=0)}"
        )
    out.append("  ".join(items))
    if len(st) > limit:
        out.append(f"  … {len(st) - limit} more", style="dim")
    return out


def legend() -> Text:
    text = Text()
    text.append(" ■ ", style="bold green")
    text.append("complete  ")
    text.append(" 3 ", style="yellow")
    text.append("partial  ")
    text.append(" · ", style="dim")
    text.append("empty  ")
    text.append(" x ", style="reverse")
    text.append("received  ")
    text.append(" x ", style="underline")
    text.append("sent (this step)")
    return text
