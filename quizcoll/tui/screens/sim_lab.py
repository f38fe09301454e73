"""Simulation lab: choose a collective, algorithm, ranks, size and op; step through it.

The nodes field is enabled for the hierarchical all-reduce: the ranks are spread over
that many nodes (NVLink inside a node, InfiniBand between nodes).

A review opens the lab with a ``preset`` (its card's collective, algorithm, ranks and
size); the preset's dtype and root, which have no control here, stay with every run. The
link control offers the presets (NVLink, InfiniBand), the card's own α and B when it has
them, and every calibrated profile ("your cluster NAME", :mod:`quizcoll.profiles`): its
measured latency per ring step and bus bandwidth. ``quizcoll --cluster NAME`` opens the
lab on that profile.

The run happens in a worker. The step view shows every rank's blocks and the transfers
of the step; below it, the bytes on the wire, busbw and algbw, and the modelled time of
every algorithm against message size with the ring crossover marked. ``g`` runs the same
collective for real on torch.distributed (gloo, one local process per rank, the
simulation's inputs) and shows the measured time and bandwidths beside the model's, and
whether the outputs equal the simulator's.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Label, Select, Static

from deck import units
from quizcoll import profiles
from quizcoll.collectives import CollectiveError, algorithms, get_collective
from quizcoll.collectives.cost import PRESETS
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.lab import (
    COLLECTIVES,
    HIERARCHICAL,
    MAX_LAB_RANKS,
    OPS,
    LabRequest,
    LabRun,
    real_run,
    simulate,
)
from quizcoll.tui.widgets.plot import render_loglog
from quizcoll.tui.widgets.step_view import StepView


def _seconds(s: float) -> str:
    return units.format_seconds(s, 2)


CARD_LINK = "card"  # the link control's value for the card's own α and B
CLUSTER = "cluster:"  # … and the prefix of a calibrated profile's


def link_choices(preset: LabRequest, cluster: str | None) -> tuple[list[tuple[str, str]], str]:
    """The link control's (label, value) options and the one selected: the presets, the
    card's α and B if it has them (selected), and the profiles on disk (``cluster``
    selected when the card brings no link of its own)."""
    options = [(name, name) for name in PRESETS]
    own = preset.latency is not None or preset.bandwidth is not None
    if own:
        options.insert(0, ("card's α, B", CARD_LINK))
    names = list(profiles.names())
    if cluster is not None and cluster not in names:
        names.insert(0, cluster)
    options += [(f"{n} (yours)", CLUSTER + n) for n in names]  # the name first: it fits
    if own:
        return options, CARD_LINK
    if cluster is not None:
        return options, CLUSTER + cluster
    return options, preset.link if preset.link in PRESETS else options[0][1]


def size_text(n: int) -> str:
    """``n`` bytes as the size box shows it, exactly ("1MiB", "96KiB", "1000B")."""
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{unit}"
    return f"{n}B"


def _field(label: str, widget: Select | Input, name: str) -> Vertical:
    return Vertical(Label(label), widget, classes=f"field field-{name}")


class SimLabScreen(QuizScreen):
    """Step through a simulated collective."""

    HELP_NAME = "Simulation lab"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+r", "run", "Run"),
        Binding("g", "real_run", "Real run"),
        Binding("f6", "focus_steps", "Steps", show=False),
    ]

    def __init__(self, *, seed: int = 0, preset: LabRequest | None = None) -> None:
        super().__init__()
        self.seed = seed
        self.preset = preset or LabRequest()
        self.lab: LabRun | None = None

    def compose(self) -> ComposeResult:
        default = self.preset
        hierarchical = default.algorithm == HIERARCHICAL
        with Horizontal(classes="controls"):
            yield _field(
                "collective",
                Select(
                    [(c, c) for c in COLLECTIVES],
                    value=default.collective,
                    allow_blank=False,
                    compact=True,
                    id="lab-collective",
                ),
                "wide",
            )
            yield _field(
                "algorithm",
                Select(
                    [(a, a) for a in algorithms(default.collective, topology=True)],
                    value=default.algorithm,
                    allow_blank=False,
                    compact=True,
                    id="lab-algorithm",
                ),
                "wide",
            )
            yield _field(
                "ranks",
                Input(str(default.ranks), id="lab-ranks", type="integer", compact=True),
                "narrow",
            )
            yield _field(
                "nodes",
                Input(
                    str(default.nodes) if hierarchical else "2",
                    id="lab-nodes",
                    type="integer",
                    compact=True,
                    disabled=not hierarchical,
                ),
                "narrow",
            )
            yield _field(
                "size/rank",
                Input(size_text(default.size_bytes), id="lab-size", compact=True),
                "mid",
            )
            yield _field(
                "op",
                Select(
                    [(o, o) for o in OPS],
                    value=default.op,
                    allow_blank=False,
                    compact=True,
                    id="lab-op",
                    disabled=not get_collective(default.collective).reduces,
                ),
                "narrow",
            )
            options, chosen = link_choices(self.preset, self.quiz.env.cluster)
            yield _field(
                "link",
                Select(options, value=chosen, allow_blank=False, compact=True, id="lab-link"),
                "narrow",
            )
            yield Button("Run", id="lab-run", variant="primary", compact=True)
        yield Static("", id="lab-status")
        yield Static("", id="lab-real")
        with VerticalScroll(classes="lab-body", id="lab-body"):
            yield StepView(id="lab-steps")
            yield Static("", id="lab-plot", classes="panel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#lab-steps").add_class("panel")
        self.query_one("#lab-plot").border_title = "modelled time vs size per rank"
        self.action_run()

    # -- inputs ---------------------------------------------------------------------------

    @on(Select.Changed, "#lab-collective")
    def _collective_changed(self, event: Select.Changed) -> None:
        names = algorithms(str(event.value), topology=True)
        algo = self.query_one("#lab-algorithm", Select)
        current = algo.value
        algo.set_options([(a, a) for a in names])
        algo.value = current if current in names else names[0]
        self.query_one("#lab-op", Select).disabled = not get_collective(str(event.value)).reduces

    @on(Select.Changed, "#lab-algorithm")
    def _algorithm_changed(self, event: Select.Changed) -> None:
        self.query_one("#lab-nodes", Input).disabled = event.value != HIERARCHICAL

    @on(Select.Changed)
    def _rerun(self) -> None:
        """A new choice in a dropdown runs again at once, as the memory lab does (typed
        fields wait for Enter)."""
        if self.is_mounted and self.lab is not None:
            self.action_run()

    def request(self) -> LabRequest:
        """The request the controls describe; raises ValueError with a readable message."""
        ranks_text = self.query_one("#lab-ranks", Input).value.strip()
        try:
            ranks = int(ranks_text)
        except ValueError:
            raise ValueError(f"ranks: expected a whole number, got {ranks_text!r}") from None
        if not 1 <= ranks <= MAX_LAB_RANKS:
            raise ValueError(f"ranks: the lab shows 1 to {MAX_LAB_RANKS} ranks, got {ranks}")
        size_text = self.query_one("#lab-size", Input).value.strip()
        try:  # bounded like `sim --size`: 1 byte to 1 TiB
            size = int(
                units.parse_number(
                    size_text, "size", dim=units.Dim.BYTES, low=1, high=2**40, integer=True
                )
            )
        except units.UnitError as exc:
            raise ValueError(str(exc)) from None
        algorithm = str(self.query_one("#lab-algorithm", Select).value)
        nodes = 1
        if algorithm == HIERARCHICAL:
            nodes_text = self.query_one("#lab-nodes", Input).value.strip()
            try:
                nodes = int(nodes_text)
            except ValueError:
                raise ValueError(f"nodes: expected a whole number, got {nodes_text!r}") from None
            if nodes < 1 or ranks % nodes:
                raise ValueError(
                    f"nodes: {nodes} does not divide the {ranks} ranks "
                    "(ranks = nodes × GPUs per node)"
                )
        root = self.preset.root if self.preset.root < ranks else 0
        return replace(
            self._link(),
            collective=str(self.query_one("#lab-collective", Select).value),
            algorithm=algorithm,
            ranks=ranks,
            size_bytes=size,
            op=str(self.query_one("#lab-op", Select).value),
            nodes=nodes,
            root=root,
        )

    def _link(self) -> LabRequest:
        """The preset with the link the control names (raises ValueError for a profile
        that cannot be read)."""
        value = str(self.query_one("#lab-link", Select).value)
        if value == CARD_LINK:
            return self.preset
        if value.startswith(CLUSTER):
            try:
                measured = profiles.link(profiles.require(value.removeprefix(CLUSTER), "link"))
            except profiles.ProfileError as exc:
                raise ValueError(str(exc)) from None
            return replace(
                self.preset,
                latency=measured.latency_s,
                bandwidth=measured.bandwidth,
                link_note=measured.label,
            )
        return replace(self.preset, link=value, latency=None, bandwidth=None, link_note=None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    @on(Button.Pressed, "#lab-run")
    def _run_pressed(self) -> None:
        self.action_run()

    # -- running --------------------------------------------------------------------------

    def action_run(self) -> None:
        try:
            req = self.request()
        except ValueError as exc:
            self._error(str(exc))
            return
        self.simulate(req)

    def _error(self, message: str) -> None:
        """A refused run: said in the status line (which stays) and in a toast."""
        self.query_one("#lab-status", Static).update(Text(message, style="bold red"))
        self.notify(message, title="Simulation lab", severity="error", markup=False)

    @work(exclusive=True, group="lab")
    async def simulate(self, req: LabRequest) -> None:
        status = self.query_one("#lab-status", Static)
        status.update(Text(f"Simulating {req.collective} ({req.algorithm})…", style="italic"))
        rng = np.random.default_rng(self.seed)
        try:
            lab = await asyncio.to_thread(simulate, req, rng)
        except CollectiveError as exc:
            self._error(str(exc))
            return
        self.lab = lab
        self.query_one("#lab-real", Static).update("")  # a real run of the last simulation
        self.query_one("#lab-steps", StepView).load(lab)
        self._show_summary(lab)
        self._show_plot(lab)
        self.query_one("#lab-steps", StepView).focus()

    def _show_summary(self, lab: LabRun) -> None:
        req = lab.request
        text = Text()
        shape = f" ({req.nodes} nodes)" if req.algorithm == HIERARCHICAL else ""
        text.append(
            f"{req.collective} · {req.algorithm} · {req.ranks} ranks{shape} · ", style="bold"
        )
        text.append(f"{units.format_bytes(lab.plan.input_bytes)}/rank · {lab.steps} steps")
        if req.dtype != LabRequest.dtype:
            text.append(f" · {req.dtype}")
        if req.root and lab.collective.rooted:
            text.append(f" · root {req.root}")
        if lab.verified is True:
            text.append("  ✔ verified", style="bold green")
        elif lab.verified is False:
            text.append("  ✘ outputs differ from the definition", style="bold red")
        else:
            text.append("  (counted without data)", style="dim")
        sent = lab.sent_so_far[-1]
        text.append(f"\nmax sent/rank {units.format_bytes(float(sent.max()))}")
        text.append(f" · total {units.format_bytes(float(sent.sum()))}")
        links = req.link_label()
        if req.algorithm == HIERARCHICAL:
            links = f"{links}/{req.inter_link}"
        text.append(f" · time {_seconds(lab.time_s)} ({links})")
        if lab.algbw is not None and lab.busbw is not None:
            text.append(f" · algbw {units.format_rate(lab.algbw)}")
            text.append(f" · busbw {units.format_rate(lab.busbw)}")
        self.query_one("#lab-status", Static).update(text)

    def action_real_run(self) -> None:
        if self.lab is None:
            self._error("run the simulation first (ctrl+r)")
            return
        self.run_for_real(self.lab)

    @work(exclusive=True, group="real-run")
    async def run_for_real(self, lab: LabRun) -> None:
        from quizcoll.collectives.backends import BackendError

        box = self.query_one("#lab-real", Static)
        box.update(
            Text(f"Running on gloo: {lab.ranks} local processes, warm-up and timed iterations…")
        )
        try:
            m = await asyncio.to_thread(real_run, lab, "gloo", seed=self.seed)
        except BackendError as exc:
            box.update(Text(str(exc), style="bold red"))
            return
        if self.lab is not lab:
            return  # the controls changed meanwhile: this run is not about what is shown
        text = Text("measured on gloo ", style="bold")
        text.append(f"({m.ranks} {m.launch}, {m.device}, torch {m.torch_version}): ")
        text.append(f"time {_seconds(m.time_s)} (model {_seconds(lab.time_s)})")
        if m.algbw is not None and m.busbw is not None:
            text.append(
                f" · algbw {units.format_rate(m.algbw)} · busbw {units.format_rate(m.busbw)}"
            )
        if m.matches is True:
            text.append("  ✔ outputs equal the simulation's", style="bold green")
        elif m.matches is False:
            text.append("  ✘ outputs differ from the simulation's", style="bold red")
        box.update(text)

    def _show_plot(self, lab: LabRun) -> None:
        marks: list[tuple[float, str]] = [(float(lab.plan.input_bytes), "this size")]
        caption = Text()
        if lab.crossover is not None:
            c = lab.crossover
            marks.append((float(c.size_bytes), "crossover"))
            caption.append(
                f"\nring overtakes {c.other} from {units.format_bytes(c.size_bytes)} per rank "
                f"on {c.ranks} ranks ({_seconds(c.ring_time_s)} vs {_seconds(c.other_time_s)})"
            )
        elif lab.crossover_note:
            caption.append("\n" + lab.crossover_note, style="dim")
        width = max(40, self.query_one("#lab-plot").size.width - 4)
        plot = render_loglog(
            lab.sweep,
            width,
            12,
            x_label="bytes per rank",
            y_label="time",
            x_format=lambda v: units.format_bytes(v, digits=0),
            y_format=_seconds,
            marks=marks,
        )
        plot.append_text(caption)
        self.query_one("#lab-plot", Static).update(plot)

    def on_resize(self) -> None:
        if self.lab is not None:
            self._show_plot(self.lab)

    def on_step_view_moved(self, event: StepView.Moved) -> None:
        self.query_one("#lab-body", VerticalScroll).scroll_home(animate=False)

    def action_focus_steps(self) -> None:
        self.query_one("#lab-steps", StepView).focus()

    def action_back(self) -> None:
        self.query_one("#lab-steps", StepView).stop()
        self.app.pop_screen()
