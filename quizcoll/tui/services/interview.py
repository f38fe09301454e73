"""What the interview screen shows, as Rich text: the question with its transition, the
verdict with the key points covered, and the scorecard with a bar per topic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.markdown import Markdown
from rich.text import Text

from deck.answers.keypoints import Judgement
from deck.cards.instances import Instance, draw, render_front, render_options
from deck.cards.model import CardType
from deck.cards.registry import Registry
from deck.interview.engine import Prompt
from deck.interview.judge import Answered
from quizcoll.tui.widgets.bars import Bar, render_bars

STYLE = {
    Judgement.RIGHT: "bold green",
    Judgement.PARTIAL: "bold yellow",
    Judgement.WRONG: "bold red",
}


@dataclass(frozen=True)
class InterviewTexts:
    """One question as shown: its drawn instance, the transition and the question."""

    instance: Instance
    why: Text
    question: Group


def ask_texts(prompt: Prompt, registry: Registry | None) -> InterviewTexts:
    card = prompt.card
    instance = draw(card, prompt.seed, registry)
    why = Text(f"→ {prompt.why}", style="italic cyan") if prompt.why else Text("")
    header = Text()
    header.append(f"[{prompt.number}] ", style="bold")
    header.append(card.id, style="bold")
    header.append(f" · seed {prompt.seed} · {card.deck} · {card.type.value}", style="dim")
    parts: list[Any] = [header, Markdown(render_front(card, instance).strip())]
    if card.type is CardType.CHOICE:
        options = Text()
        for i, option in enumerate(render_options(card, instance)):
            options.append(f"\n  {chr(ord('a') + i)}) {option}")
        parts.append(options)
    return InterviewTexts(instance, why, Group(*parts))


def verdict_text(answered: Answered, verdict: Judgement) -> Text:
    """The verdict, the key points (covered ones ticked), the mistake and the model answer."""
    out = Text()
    out.append(verdict.value.upper(), style=STYLE[verdict])
    if answered.judgement is not None and verdict is not answered.judgement:
        out.append(f" (corrected; judged {answered.judgement.value})", style="dim")
    out.append(f"  {answered.message}")
    if answered.mistake:
        out.append(f"\nmistake: {answered.mistake}", style="yellow")
    if answered.coverage is not None:
        for m in answered.coverage.key:
            out.append(f"\n  {'✓' if m.covered else '✗'} ", style="green" if m.covered else "red")
            out.append(m.point.point)
            if m.found:
                out.append(f"  (said: {', '.join(m.found)})", style="dim")
        for m in answered.coverage.bonus:
            out.append(f"\n  {'+' if m.covered else '·'} bonus: ", style="cyan")
            out.append(m.point.point, style="" if m.covered else "dim")
    if answered.solution.strip():
        out.append("\n\nModel answer:\n" if not answered.exact else "\n\nAnswer:\n", style="bold")
        out.append(answered.solution.strip())
    return out


def judge_prompt(answered: Answered, verdict: Judgement) -> str:
    if answered.exact:
        return "Enter: next question"
    return f"Enter accepts {verdict.value} · r right · p partial · w wrong"


def scorecard_text(card: dict[str, Any], width: int) -> Group:
    """The scorecard: score, a bar per topic (deck) and the weak cards."""
    head = Text()
    head.append(f"Scorecard: {card['score']:g}%", style="bold")
    head.append(
        f" over {len(card['questions'])} question(s) · ended: {card['ended']} · "
        f"{card['seconds']:.0f} s of {card['minutes']:g} min"
    )
    bars = [
        Bar(
            deck,
            t["score"],
            f"{t['score']:g}% ({t['questions']})",
            "green" if t["score"] >= 50 else "red",
        )
        for deck, t in card["topics"].items()
    ]
    chart = render_bars(bars, width, scale=100.0) if bars else Text("No question was answered.")
    lines = Text()
    for q in card["questions"]:
        lines.append(f"\n  {q['verdict']:<8}", style=STYLE[Judgement(q["verdict"])])
        lines.append(f" {q['card']}  ({q['seconds']:.0f} s)")
    weak = Text(f"\nWeak cards: {', '.join(card['weak_cards']) or 'none'}")
    if card["weak_cards"]:
        weak.append("  ·  t: send them to review now", style="dim")
    return Group(head, Text(""), chart, lines, weak)
