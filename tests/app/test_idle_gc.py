"""The idle collector: the full collection runs while nobody types, not on a key press."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from steiner_tui.app.app import make_app
from steiner_tui.app.gc_tuning import IDLE_AFTER, IDLE_PENDING, IdleCollector
from tests.app.conftest import SIZE, request_for


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def collector(clock: Clock, collected: list[int], middle: int) -> IdleCollector:
    return IdleCollector(clock=clock, collect=collected.append, counts=lambda: (0, 0, middle))


def test_it_collects_fully_once_idle_with_enough_pending() -> None:
    clock, collected = Clock(), []
    idle = collector(clock, collected, IDLE_PENDING)
    clock.now += IDLE_AFTER / 2
    assert not idle.tick(busy=False)  # input too recent
    clock.now += IDLE_AFTER
    assert not idle.tick(busy=True)  # a reply streaming
    assert collected == []
    assert idle.tick(busy=False)
    assert collected == [2]  # the oldest generation, with the younger ones


def test_it_waits_for_enough_middle_collections() -> None:
    clock, collected = Clock(), []
    idle = collector(clock, collected, IDLE_PENDING - 1)
    clock.now += 10 * IDLE_AFTER
    assert not idle.tick(busy=False) and collected == []


def test_input_restarts_the_wait() -> None:
    clock, collected = Clock(), []
    idle = collector(clock, collected, IDLE_PENDING)
    clock.now += 10 * IDLE_AFTER
    idle.input_seen()
    clock.now += IDLE_AFTER / 2
    assert not idle.tick(busy=False)
    clock.now += IDLE_AFTER
    assert idle.tick(busy=False)


@pytest.fixture
def gc_restored() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)
    gc.enable()


async def test_the_app_notes_keys_for_its_idle_collector(
    project: Path, config_dir: Path, gc_restored: None
) -> None:
    app = make_app(request_for(project, config_dir), tune_gc=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.idle_collector is not None  # installed with the UI's collector settings
        clock, collected = Clock(), []
        app.idle_collector = collector(clock, collected, IDLE_PENDING)
        clock.now += 10 * IDLE_AFTER
        await pilot.press("x")  # typed into the prompt
        clock.now += IDLE_AFTER / 2
        assert not app.idle_collector.tick(busy=False)
        clock.now += IDLE_AFTER
        assert app.idle_collector.tick(busy=False) and collected == [2]


async def test_test_apps_have_no_idle_collector(project: Path, config_dir: Path) -> None:
    app = make_app(request_for(project, config_dir))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.idle_collector is None
