"""Memory lab: a catalog model or a config.json, dtype (with the GPTQ/AWQ group size),
KV dtype, context, batch and GPUs; the breakdown as bars, whether it fits, how many GPUs it needs, the longest context.

A review opens it with a ``preset``: its card's model and settings."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from deck import units
from quizcoll.memory.catalog import model_names
from quizcoll.memory.errors import MemoryInputError
from quizcoll.memory.formats import KV_DTYPES, known_formats
from quizcoll.memory.gpus import GPUS
from quizcoll.tui.screens.base import QuizScreen
from quizcoll.tui.services.memory_lab import (
    AUTO,
    MAX_GROUP_SIZE,
    MIN_GROUP_SIZE,
    MemoryRequest,
    MemoryResult,
    compute,
    takes_group_size,
)
from quizcoll.tui.widgets.bars import Bar, render_bars


def _field(label: str, widget: Select | Input, kind: str = "") -> Vertical:
    return Vertical(Label(label), widget, classes=f"field field-{kind}" if kind else "field")


def _flash_label(on: bool) -> str:
    return "FlashAttn on" if on else "FlashAttn off"


def _both(n: float) -> str:
    return units.format_bytes_both(n)


def breakdown(result: MemoryResult, width: int) -> Text:
    """Per-GPU bars: each shard of weights, KV cache and activations, plus the overhead."""
    est, n = result.estimate, result.gpus
    parts = [
        ("weights", est.weights_bytes / n, "magenta"),
        ("KV cache", (est.kv_cache_bytes or 0) / n, "cyan"),
        ("activations", (est.activation_bytes or 0) / n, "yellow"),
        ("overhead", est.overhead_bytes, "bright_black"),
    ]
    bars = [Bar(label, value, _both(value), style) for label, value, style in parts]
    total = result.per_gpu_bytes
    bars.append(Bar("total", total, _both(total), "bold green" if result.fits else "bold red"))
    return render_bars(bars, width, limit=result.usable_bytes)


def verdict(result: MemoryResult) -> Text:
    est, gpu, n = result.estimate, result.gpu, result.gpus
    text = Text()
    where = f"{n} × {gpu.name}" if n > 1 else gpu.name
    if result.fits:
        text.append("✔ fits ", style="bold green")
    else:
        text.append("✘ does not fit ", style="bold red")
    text.append(f"on {where}: {_both(result.per_gpu_bytes)} per GPU of ")
    text.append(f"{_both(result.usable_bytes)} usable (90% of {_both(gpu.memory_bytes)})\n")
    text.append(f"needs {result.gpus_needed} × {gpu.name}", style="bold")
    text.append(" · longest context that fits: ")  # fits where the first line says
    if result.max_context:
        text.append(f"{result.max_context:,} tokens", style="bold")
        if result.context_beyond_model:
            text.append(f" (the model itself stops at {result.model_max_context:,})")
    else:
        text.append("none (the weights alone do not fit)", style="bold red")
    text.append(f"\n{result.label}: {est.parameters:,} parameters")
    if est.active_parameters != est.parameters:
        text.append(f" ({est.active_parameters:,} active per token)")
    text.append(f" · {est.bytes_per_parameter:.3g} B/param")
    if takes_group_size(result.request.dtype):
        text.append(f" (group size {result.request.group_size})")
    if est.kv_bytes_per_token:
        text.append(f" · KV {units.format_bytes(est.kv_bytes_per_token)}/token")
    text.append(f" · context {est.context:,} × batch {est.batch}")
    if 0 < result.model_max_context < est.context:
        text.append(
            f"\n⚠ context {est.context:,} is beyond the {result.model_max_context:,} tokens "
            "the model was trained for (the memory is computed all the same)",
            style="bold yellow",
        )
    if not est.flash_attention:
        text.append(" · no FlashAttention: the T² score matrix is materialised", style="yellow")
    return text


FROM_CONFIG = "from config.json"  # what the model dropdown shows while a path is given


class MemoryLabScreen(QuizScreen):
    """Size a deployment: does this model fit?"""

    HELP_NAME = "Memory lab"  # its section of the help screen

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+r", "compute", "Compute"),
    ]

    def __init__(self, preset: MemoryRequest | None = None) -> None:
        super().__init__()
        self.preset = preset or MemoryRequest()
        self.result: MemoryResult | None = None
        self.catalog_model = self.preset.model  # the model chosen before a config.json path

    def compose(self) -> ComposeResult:
        d = self.preset
        with Horizontal(classes="controls"):
            yield _field(
                "model",
                Select(
                    [(m, m) for m in model_names()],
                    value=d.model,
                    allow_blank=False,
                    compact=True,
                    id="mem-model",
                ),
                "wide",
            )
            yield _field(
                "or config.json path",
                Input(placeholder="path/to/config.json", compact=True, id="mem-config"),
                "wide",
            )
            yield _field(
                "GPU",
                Select(
                    [(g.key, g.key) for g in GPUS],
                    value=d.gpu,
                    allow_blank=False,
                    compact=True,
                    id="mem-gpu",
                ),
                "wide",
            )
            yield _field("GPUs", Input(str(d.gpus), type="integer", compact=True, id="mem-gpus"))
        with Horizontal(classes="controls"):
            yield _field(
                "weights",
                Select(
                    [(f, f) for f in known_formats()],
                    value=d.dtype,
                    allow_blank=False,
                    compact=True,
                    id="mem-dtype",
                ),
                "mid",
            )
            yield _field(
                "group",
                Input(
                    str(d.group_size),
                    type="integer",
                    compact=True,
                    disabled=not takes_group_size(d.dtype),
                    tooltip=f"GPTQ/AWQ group size, {MIN_GROUP_SIZE}–{MAX_GROUP_SIZE}",
                    id="mem-group",
                ),
                "narrow",
            )
            yield _field(
                "KV cache",
                Select(
                    [(AUTO, AUTO)] + [(k, k) for k in KV_DTYPES],
                    value=d.kv_dtype,
                    allow_blank=False,
                    compact=True,
                    id="mem-kv",
                ),
                "mid",
            )
            yield _field("context", Input(d.context, compact=True, id="mem-context"), "mid")
            yield _field("batch", Input(str(d.batch), type="integer", compact=True, id="mem-batch"))
            yield Checkbox(
                _flash_label(d.flash_attention),
                value=d.flash_attention,
                compact=True,
                id="mem-flash",
            )
            yield Button("Compute", id="mem-run", variant="primary", compact=True)
        yield Static("", id="mem-status")
        with VerticalScroll(classes="lab-body"):
            yield Static("", id="mem-bars", classes="panel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#mem-bars").border_title = "memory per GPU"
        self.action_compute()

    def request(self) -> MemoryRequest:
        def number(selector: str, name: str) -> int:
            text = self.query_one(selector, Input).value.strip()
            try:  # bounded like the CLI's flags: at most 2^20 (GPUs, batch, group size)
                return int(units.parse_number(text, name, low=1, high=2**20, integer=True))
            except units.RangeError as exc:
                raise MemoryInputError(str(exc)) from None
            except units.UnitError:
                raise MemoryInputError(f"{name}: expected a whole number, got {text!r}") from None

        dtype = str(self.query_one("#mem-dtype", Select).value)
        grouped = takes_group_size(dtype)
        model = self.query_one("#mem-model", Select)
        return MemoryRequest(
            model=self.catalog_model if model.disabled else str(model.value),
            config_path=self.query_one("#mem-config", Input).value,
            dtype=dtype,
            # a disabled field is not read: what it holds does not matter to other formats
            group_size=number("#mem-group", "group size") if grouped else self.preset.group_size,
            kv_dtype=str(self.query_one("#mem-kv", Select).value),
            context=self.query_one("#mem-context", Input).value,
            batch=number("#mem-batch", "batch"),
            gpu=str(self.query_one("#mem-gpu", Select).value),
            gpus=number("#mem-gpus", "GPUs"),
            flash_attention=self.query_one("#mem-flash", Checkbox).value,
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_compute()

    @on(Checkbox.Changed, "#mem-flash")
    def _flash_changed(self, event: Checkbox.Changed) -> None:
        event.checkbox.label = _flash_label(event.value)  # said in words, not only by colour

    @on(Input.Changed, "#mem-config")
    def _config_changed(self, event: Input.Changed) -> None:
        # A config.json path replaces the catalog model: the dropdown says so, in words (a dim
        # "llama-3-8b" beside a Mistral config read as if Llama were computed), and goes dim.
        select = self.query_one("#mem-model", Select)
        path = bool(event.value.strip())
        if path == select.disabled:
            return
        with select.prevent(Select.Changed):
            if path:
                self.catalog_model = str(select.value)
                select.set_options([(FROM_CONFIG, FROM_CONFIG)])
            else:
                select.set_options([(m, m) for m in model_names()])
                select.value = self.catalog_model
        select.disabled = path

    @on(Select.Changed, "#mem-dtype")
    def _dtype_changed(self, event: Select.Changed) -> None:
        self.query_one("#mem-group", Input).disabled = not takes_group_size(str(event.value))

    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _changed(self) -> None:
        if self.is_mounted and self.result is not None:
            self.action_compute()

    @on(Button.Pressed, "#mem-run")
    def _pressed(self) -> None:
        self.action_compute()

    def action_compute(self) -> None:
        try:
            req = self.request()
        except MemoryInputError as exc:
            self.notify(str(exc), title="Memory lab", severity="error")
            return
        self.run_compute(req)

    @work(exclusive=True, group="memory")
    async def run_compute(self, req: MemoryRequest) -> None:
        try:
            result = await asyncio.to_thread(compute, req)
        except (MemoryInputError, OSError) as exc:
            self.query_one("#mem-status", Static).update(Text(str(exc), style="bold red"))
            self.notify(str(exc), title="Memory lab", severity="error")
            return
        self.result = result
        self._show(result)

    def _show(self, result: MemoryResult) -> None:
        self.query_one("#mem-status", Static).update(verdict(result))
        width = max(40, self.query_one("#mem-bars").size.width - 4)
        self.query_one("#mem-bars", Static).update(Group(breakdown(result, width)))

    def on_resize(self) -> None:
        if self.result is not None:
            self._show(self.result)

    def action_back(self) -> None:
        self.app.pop_screen()
