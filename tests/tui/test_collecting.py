"""Python's collection of all its objects waits for the reviewer to pause, so that it never
lands on a key (it took 40 to 70 ms on a huge diff)."""

from __future__ import annotations

import gc
import time

import pytest

from conftest import Repo, settle
from review.repo import git
from review.tui import collecting
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets import diff_view
from review.tui.widgets.diff_view import DiffView


def running_viewer(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False).run_test(size=(100, 30))


def due_for_a_collection_of_all() -> None:
    for _ in range(collecting.EVERY):
        gc.collect(1)  # as many collections of the younger objects as make one due
    assert gc.get_count()[2] >= collecting.EVERY


async def test_all_objects_are_collected_once_the_reviewer_pauses_not_while_a_key_is_answered(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diff_view, "COLLECT_AFTER", 0.3)
    async with running_viewer(agent_worktree) as pilot:
        await settle(pilot)
        # Python itself collects all objects only much later than it would
        assert gc.get_threshold()[2] == collecting.EVERY * collecting.HELD_BACK
        due_for_a_collection_of_all()
        view = pilot.app.screen.query_one(DiffView)
        for _ in range(3):
            view.action_page_down()
        assert gc.get_count()[2] >= collecting.EVERY  # not while keys are answered
        deadline = time.monotonic() + 10
        while gc.get_count()[2] >= collecting.EVERY and time.monotonic() < deadline:
            await pilot.pause(0.05)  # the reviewer reads: what the next keys need is made, then
        assert gc.get_count()[2] < collecting.EVERY


async def test_the_collection_of_all_waits_for_a_pause_that_lasts_unless_long_overdue(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a reviewer going through the comments with `n` every half second: a collection made as
    # soon as all was drawn ahead landed on the next key
    monkeypatch.setattr(diff_view, "COLLECT_AFTER", 3600.0)
    async with running_viewer(agent_worktree) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        young: list[int] = []
        gc.callbacks.append(lambda phase, info: young.append(info["generation"]) if phase == "start" else None)
        try:
            due_for_a_collection_of_all()
            young.clear()
            view.action_page_down()
            deadline = time.monotonic() + 10
            while 1 not in young and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert 1 in young  # the younger objects, as the drawing ahead ends
            await pilot.pause(0.2)
            assert 2 not in young and gc.get_count()[2] >= collecting.EVERY
            # unless long overdue: a reviewer who never pauses would pile up what only a
            # collection of all objects frees
            for _ in range(collecting.EVERY * collecting.OVERDUE):
                gc.collect(1)
            view.action_page_down()
            deadline = time.monotonic() + 10
            while 2 not in young and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert 2 in young
        finally:
            gc.callbacks.pop()


async def test_python_collects_as_it_does_by_itself_when_the_diff_is_not_shown(agent_worktree: Repo) -> None:
    async with running_viewer(agent_worktree) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] == collecting.EVERY * collecting.HELD_BACK
        await pilot.press("question_mark")  # the help, over the diff
        await pilot.pause()
        assert gc.get_threshold()[2] == collecting.EVERY
        await pilot.press("escape")
        await pilot.pause()
        assert gc.get_threshold()[2] == collecting.EVERY * collecting.HELD_BACK


async def test_python_makes_no_collection_while_the_viewer_starts_and_collects_after_its_first_frame(
    agent_worktree: Repo,
) -> None:
    # as `review` starts: no collection until the first frame is drawn; then what the start made
    # is set aside (frozen), and collections go on among the rest
    started: list[int] = []

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(gc.get_freeze_count())

    collecting.hold_off()
    assert not gc.isenabled()
    gc.callbacks.append(collected)
    try:
        async with running_viewer(agent_worktree) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, ReviewScreen) and screen.diff is not None
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
            for _ in range(3):
                screen.view.action_page_down()
            gc.collect(0)
        # every collection came after the start was set aside, the one just asked for included
        assert started and all(frozen > 0 for frozen in started)
    finally:
        gc.callbacks.remove(collected)
        gc.unfreeze()
        gc.enable()


async def test_a_viewer_started_with_collections_on_leaves_them_as_they_are(agent_worktree: Repo) -> None:
    # (a test, or the overview opening a worktree): nothing held off, nothing set aside
    async with running_viewer(agent_worktree) as pilot:
        await settle(pilot)
        assert gc.isenabled()
        assert gc.get_freeze_count() == 0


def test_collections_resume_by_themselves_when_no_first_frame_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collecting, "HELD_OFF_AT_MOST", 0.05)
    collecting.hold_off()
    try:
        assert not gc.isenabled()
        deadline = time.monotonic() + 5
        while not gc.isenabled() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()
