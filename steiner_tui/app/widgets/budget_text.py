"""The context panel's figures in words: the per-source table and the notes under it.

Pure functions of a ``BudgetView`` (and of a tool output's cut), kept apart from the panel
widget so the words can be read and tested without mounting it: the table of sources, the
over-the-window line, the last cut, the estimate and cache notes, what decides compaction and
what the requests cost.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from steiner_tui.app.budget_view import BudgetView, MoneyFigures, SourceRow, sources_label
from steiner_tui.app.widgets.context_charts import source_colour
from steiner_tui.engine.cache_causes import minutes
from steiner_tui.engine.events import OutputCut
from steiner_tui.units import byte_count, cache_summary, cost_parts, count, dollars, token_count

__all__ = [
    "LABEL_WIDTH",
    "NUMBER_WIDTH",
    "cut_note",
    "format_rows",
    "money_lines",
    "notes",
    "over_window",
    "trigger_line",
]

LABEL_WIDTH = 19
NUMBER_WIDTH = 8


def format_rows(
    rows: tuple[SourceRow, ...], *, swatches: Sequence[str] = (), label_width: int = LABEL_WIDTH
) -> Content:
    """The per-source table: label, bytes, tokens, share, truncated mark (``swatches``: the
    stacked bar's colours, ``source_colours``; each row is then led by the colour of its
    segment). A label longer than its column
    (``label_width``) is never cut: it takes its own line and the figures go on the next.
    A figure wider than ``NUMBER_WIDTH`` widens its column by what the label column gives up,
    so figures never run together and a line stays as wide; the other way, when every label
    fits in what the figures do not need, the label column takes it."""
    bytes_least = max([len(" bytes"), *(len(count(row.bytes)) + 1 for row in rows)])
    tokens_least = max([len(" tok"), *(len(count(row.tokens)) + 1 for row in rows)])
    bytes_width, tokens_width = max(NUMBER_WIDTH, bytes_least), max(NUMBER_WIDTH, tokens_least)
    lead = "  " if swatches else ""
    width = label_width - len(lead) - (bytes_width - NUMBER_WIDTH) - (tokens_width - NUMBER_WIDTH)
    longest = max((len(row.label) for row in rows), default=0)
    if longest > width:  # the figures give a label the columns they do not need, if that fits
        spare = bytes_width - bytes_least + tokens_width - tokens_least
        if longest - width <= spare:
            given = min(longest - width, bytes_width - bytes_least)
            bytes_width -= given
            tokens_width -= longest - width - given
            width = longest
    head = f"{lead}{'source':<{width}}{'bytes':>{bytes_width}}{'tok':>{tokens_width}}{'%':>5}"
    lines: list[Content] = [Content.styled(head, "bold $text-muted")]
    for position, row in enumerate(rows):
        figures = (
            f"{count(row.bytes):>{bytes_width}}{count(row.tokens):>{tokens_width}}"
            f"{row.share * 100:>4.0f}%"
        )
        swatch = Content.styled("■ ", source_colour(position, swatches)) if swatches else Content()
        if len(row.label) <= width:
            line = swatch + Content(f"{row.label:<{width}}{figures}")
        else:
            lines.append(swatch + Content(row.label))
            line = Content(f"{lead}{'':<{width}}{figures}")
        if row.truncated:
            line += Content.styled(" ✂", "$text-error")
        lines.append(line)
    if any(row.truncated for row in rows):
        lines.append(Content.styled("✂ truncated by its byte budget", "$text-muted"))
    return Content("\n").join(lines)


def over_window(view: BudgetView) -> Content:
    """The over-the-window line (empty when the request fits)."""
    if view.fits:
        return Content("")
    return Content.styled(
        f"over the window by {token_count(view.overflow_tokens)}: this request cannot be "
        "sent · /compact makes room, /clear starts over",
        "bold $text-error",
    )


def cut_note(name: str, cut: OutputCut) -> Content:
    """What a bounded tool result left out, and where the whole output is."""
    text = (
        f"last cut: {name} kept {byte_count(cut.shown_bytes)} of {byte_count(cut.total_bytes)}"
        f" · {count(cut.shown_lines)} of {count(cut.total_lines)} lines"
    )
    if cut.saved_at:
        text += f" · whole output: {cut.saved_at}"
    return Content.styled(text, "$text-warning")


STRATEGY_LABELS = {
    "tiktoken": "tokenizer count",
    "ctok": "Claude tokenizer count",
    "heuristic": "character heuristic",
    "provider_usage": "calibrated on reported usage",
}
"""How the estimate's strategy reads (the engine's names are identifiers)."""


def strategy_label(strategy: str) -> str:
    """The estimate's ``strategy`` as it reads on every screen (``STRATEGY_LABELS``)."""
    return STRATEGY_LABELS.get(strategy, strategy.replace("_", " "))


def _claude_tokenizer(view: BudgetView) -> str:
    """``ctok v4.8`` when a Claude model is counted with ctok, else empty (the strategy says
    which tokenizer the others use)."""
    return view.tokenizer.replace("-", " ", 1) if view.tokenizer.startswith("ctok-") else ""


def notes(view: BudgetView) -> Content:
    strategy = strategy_label(view.strategy)
    claude = _claude_tokenizer(view)
    if view.strategy == "ctok" and claude:
        strategy = f"Claude tokenizer count ({claude})"
    lines = [
        f"estimate {token_count(view.estimate_tokens)} · {strategy} · {view.confidence} confidence"
    ]
    doctor = view.window_doctor
    if doctor is not None:
        lines.append(doctor.line())
    elif view.window_origin:
        lines.append(
            f"window {token_count(view.window.context_size)} · source: {view.window_origin}"
        )
    if view.tools_ignored:
        lines.append("tools: the server ignores them · not sent, not counted")
    if view.calibration_samples:
        reports = "report" if view.calibration_samples == 1 else "reports"
        over = f" over {claude} counts" if claude else ""
        lines.append(
            f"calibration ×{view.calibration_factor:.2f} from {view.calibration_samples} "
            f"{reports}{over}"
        )
    drift = view.drift
    if drift is None:
        lines.append("drift: no provider usage yet")
    else:
        lines.append(
            f"drift {drift.percent:+.0f}%: est {count(drift.estimated)} vs reported "
            f"{count(drift.reported)} (request #{drift.request_index})"
        )
    prefix = view.prefix
    if prefix is None:
        lines.append(f"cache prefix: {'nothing sent yet' if view.preview else 'first request'}")
    elif prefix.first_broken is None:
        lines.append(f"cache prefix: all {prefix.matching} previous messages kept")
    else:
        lines.append(
            f"cache prefix: {prefix.matching}/{view.prefix_total} kept · broke at "
            f"#{prefix.first_broken} ({sources_label(prefix.broken_source)})"
        )
    health = view.health
    state = f"{health.severity} · {health.state}" if health is not None else "ok"
    lines.append(f"compactions {view.compactions} · health {state}")
    lines.append(trigger_line(view))
    if view.money is not None:
        lines.extend(money_lines(view.money))
    text = Content("\n".join(lines))
    if doctor is not None and doctor.problem:
        text += Content.styled("\n" + doctor.problem, "$text-warning")
    return text


def trigger_line(view: BudgetView) -> str:
    """What decides compaction: the soft trigger, or for a stateful provider its reported
    usage against the trigger (the floor's when armed) and the cap."""
    window = view.window
    if not window.known:
        trigger = "soft trigger unknown"
    elif window.stateful:
        usage = f"reported {count(window.used)}" if window.used else "no usage reported yet"
        floor = f" (floor {count(window.floor)} + 10%)" if window.floor else ""
        trigger = (
            f"{usage} of trigger {count(window.soft_threshold)}{floor} · cap {count(window.cap)}"
        )
    else:
        trigger = f"soft trigger {count(window.soft_threshold)}"
    return f"compaction {view.compaction_mode} · {trigger}"


def money_lines(money: MoneyFigures) -> list[str]:
    """What the requests cost (the latest, its parts, the session) and what the cache did
    with the latest and will do with the next one, and how long it lives on."""
    lines: list[str] = []
    usage = money.usage
    if not money.priced:
        lines.append(f'cost: price unknown for {money.model} ([models."…"] price sets one)')
    elif usage is not None and not money.free:
        lines.append(
            f"cost #{money.request_index} {dollars(usage.cost_usd)} · "
            f"session {dollars(usage.session_cost_usd)}"
        )
        lines.append(f"  {cost_parts(usage.cost)}")
    if usage is not None and usage.cache is not None:
        lines.append(f"cache #{money.request_index}: {cache_summary(usage.cache)}")
    if money.next_cache is not None:
        lines.append(f"next request: {cache_summary(money.next_cache)}")
    left, ttl = money.cache_left_seconds, money.ttl_seconds
    if left is not None and ttl is not None:
        if left >= 0:
            lines.append(f"cache expires in {minutes(left)} (TTL {minutes(ttl)})")
        else:
            lines.append(f"cache expired {minutes(-left)} ago (TTL {minutes(ttl)})")
    if money.actions and not (left is not None and left < 0):
        lines.append("before you act, what the cache would lose:")
        lines.extend(f"  {action}: {effect.text}" for action, effect in money.actions)
    return lines
