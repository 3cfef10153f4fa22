"""What the status line says an action would do to the prompt cache, before it is taken.

The context panel's figures already hold what each action would do if taken now
(``MoneyFigures.actions``: the controller's ``action_effects`` over the engine's
``cache_effect``). This picks the one the person is about to take, from what the prompt holds
(``/compact``, ``/model name``, ``/skills name``, ``/whatif N save``) or from what has the focus
(the skill list: a toggle; the ranking: masking its largest result; the what-if view: writing
a threshold), and says it in one line; ``/model REF`` is priced at REF's cache-write price,
where the rewrite is paid. A pending reload (Ctrl+R) says its own cost in the status line
already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from steiner_tui.engine.cache_causes import CacheEffect

__all__ = ["cache_hint"]

_APPENDS = "skill or threshold"
"""The controller's name for the actions that append after the conversation."""

_FOCUSED = {"skills": ("skill toggle", _APPENDS), "whatif": ("threshold", _APPENDS)}
"""A focused widget's id -> (how its action is named, the controller's name for it)."""


def _typed(prompt: str) -> tuple[str, str] | None:
    """The action a one-line slash command in the prompt would take, if it touches the cache."""
    if "\n" in prompt or not prompt.startswith("/"):
        return None
    name, _, rest = prompt[1:].partition(" ")
    name, argument = name.lower(), rest.split()
    if name == "compact":
        return "/compact", "/compact"
    if name == "model" and argument:  # alone, /model only shows the model
        return "/model", "/model"
    if name == "skills" and argument:
        return "/skills", _APPENDS
    if name == "whatif" and "save" in argument[1:]:
        return "/whatif save", _APPENDS
    return None


def cache_hint(
    prompt: str,
    focused: str,
    actions: Sequence[tuple[str, CacheEffect]],
    model_effect: Callable[[str], CacheEffect | None] = lambda _ref: None,
) -> str:
    """``/model: rewrites ~41,800 cached tokens ≈ $0.16``, or "" when nothing about to be done
    touches the cache (or nothing is cached: ``actions`` is empty before the first request).

    Args:
        prompt: the prompt's text.
        focused: the id of the focused widget (``skills``, ``top``: the ranking, ``whatif``).
        actions: the panel's figures: each action's name and what it would do to the cache.
        model_effect: what ``/model REF`` would do, priced at REF's own write price (the
            panel's ``/model`` is at the current model's); None: REF names no model (yet).
    """
    effects = dict(actions)
    chosen = _typed(prompt) or _FOCUSED.get(focused)
    if chosen is None and focused == "top":
        masking = next((name for name in effects if name.startswith("m on ")), None)
        chosen = (masking, masking) if masking is not None else None
    if chosen is None or chosen[1] not in effects:
        return ""
    label, name = chosen
    effect = effects[name]
    if label == "/model":
        effect = model_effect(prompt.split()[1]) or effect
    return f"{label}: {effect.text}"
