"""The reviewer's changes are saved off the UI thread, in order, and never lost: not while an
agent holds the review's lock, not while the review file is broken, not when sending fails."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.dom import DOMNode
from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.state.store import Store
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.dialogs.confirm_dialog import ConfirmDialog
from review.tui.dialogs.send_dialog import SendDialog
from review.tui.layout import Place
from review.tui.saving import UNSAVED, Saving
from review.tui.screens import review_screen
from review.tui.screens.review_screen import SAVING_SAID_AFTER, ReviewScreen
from review.tui.widgets.diff_view import DiffView

SIZE = (110, 36)
BROKEN = b'{"schema": "review/1", "comments": [oops\n'


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


def screen_of(pilot: Pilot) -> ReviewScreen:  # type: ignore[type-arg]
    screen = pilot.app.screen_stack[0]
    assert isinstance(screen, ReviewScreen)
    return screen


def on_screen(pilot: Pilot) -> str:  # type: ignore[type-arg]
    return "\n".join(Drawn.of(pilot.app.export_screenshot()).rows)


def toasts(pilot: Pilot) -> str:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot()).toasts()


def break_review(repo: Repo) -> Path:
    folder = repo.root / ".review"
    folder.mkdir(exist_ok=True)
    (folder / "review.json").write_bytes(BROKEN)
    return folder / "review.json"


async def until(pilot: Pilot, condition, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def,type-arg]
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    assert condition()


async def comment_on_line(pilot: Pilot, line: int, text: str) -> None:  # type: ignore[type-arg]
    await type_on_line(pilot, line, text)
    await pilot.press("ctrl+s")
    await pilot.pause()


async def type_on_line(pilot: Pilot, line: int, text: str) -> None:  # type: ignore[type-arg]
    """Open the comment editor on a line of src/app.py and type `text` in it."""
    view = pilot.app.screen.query_one(DiffView)
    assert view.diff_layout is not None
    view.go_to(view.diff_layout.find(Place("src/app.py", new=line)) or 0)
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommentEditor)
    pilot.app.screen.query_one("TextArea").insert(text)  # type: ignore[attr-defined]


@contextmanager
def held_lock(repo: Repo) -> Iterator[None]:
    """The review's lock, held as an agent's `review resolve` would hold it."""
    Store(repo.root).make_folder()
    fd = os.open(repo.root / ".review" / "lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


async def test_a_broken_review_file_is_named_and_the_diff_still_shows(agent_worktree: Repo) -> None:
    break_review(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert screen_of(pilot).diff is not None
        assert "src/app.py" in on_screen(pilot)
        await until(pilot, lambda: "cannot be read" in toasts(pilot) and "fix it or remove it" in toasts(pilot))


async def test_a_comment_written_while_the_review_file_is_broken_is_kept_and_saved_once_it_is_fixed(
    agent_worktree: Repo,
) -> None:
    broken = break_review(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await comment_on_line(pilot, 30, "Keep this text, whatever happens")
        await until(pilot, lambda: screen.saving.stuck)
        assert broken.read_bytes() == BROKEN  # never overwritten
        kept = (broken.parent / UNSAVED).read_text()
        assert "Keep this text, whatever happens" in kept and "src/app.py:30" in kept
        assert screen.saving.waiting == 1
        assert "not saved" in on_screen(pilot)

        broken.unlink()  # the reviewer fixes it the way the message says: removes it
        await until(pilot, lambda: screen.saving.waiting == 0)
        (saved,) = Store(agent_worktree.root).read().comments
        assert (saved.path, saved.line, saved.body) == ("src/app.py", 30, "Keep this text, whatever happens")
        assert not (broken.parent / UNSAVED).exists()
        assert saved.id in (screen.view.comment(saved.id).id,)  # drawn in the diff


async def test_changes_made_while_one_waits_are_saved_after_it_in_order(agent_worktree: Repo) -> None:
    broken = break_review(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await comment_on_line(pilot, 5, "first")
        await comment_on_line(pilot, 55, "second")
        await until(pilot, lambda: screen.saving.stuck and screen.saving.waiting == 2)
        broken.unlink()
        await until(pilot, lambda: screen.saving.waiting == 0)
        assert [(c.id, c.body) for c in Store(agent_worktree.root).read().comments] == [
            ("c1", "first"),
            ("c2", "second"),
        ]


async def test_quitting_with_unsaved_changes_asks_first(agent_worktree: Repo) -> None:
    break_review(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await comment_on_line(pilot, 30, "not yet saved")
        await until(pilot, lambda: screen.saving.stuck)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert pilot.app.screen is screen and pilot.app.is_running
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not pilot.app.is_running


async def test_an_agent_holding_the_lock_does_not_freeze_the_viewer(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        view = screen.view
        with held_lock(agent_worktree):
            await pilot.press("x")  # marks docs/guide.md viewed: a write that must wait for the lock
            await pilot.pause()
            assert view.viewed == {"docs/guide.md"}  # shown at once
            assert screen.saving.waiting == 1
            before = view.cursor
            await pilot.press("j", "j")
            assert view.cursor == before + 2  # keys are still handled
            await until(pilot, lambda: "saving…" in on_screen(pilot), seconds=SAVING_SAID_AFTER + 1)
            screen.load()  # the agent changed a file: the diff is read again meanwhile
            await pilot.app.workers.wait_for_complete([w for w in pilot.app.workers if w.group == "load"])
            await pilot.pause()
            assert view.viewed == {"docs/guide.md"}  # the mark not yet saved is still shown
        await until(pilot, lambda: screen.saving.waiting == 0)
        assert Store(agent_worktree.root).read().viewed.keys() == {"docs/guide.md"}


async def test_a_save_that_waits_briefly_is_not_said(agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    # most saves take a few ms: "saving…" shown and taken back at once moved the header twice for
    # each `x`. The delay is made long here so that a slow machine cannot outwait it.
    monkeypatch.setattr(review_screen, "SAVING_SAID_AFTER", 3600.0)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        with held_lock(agent_worktree):
            await pilot.press("x")
            await pilot.pause()
            assert screen.saving.waiting == 1
            assert "saving" not in on_screen(pilot)
        await until(pilot, lambda: screen.saving.waiting == 0)
        await pilot.pause()
        assert "saving" not in on_screen(pilot)
        assert "1/5 viewed" in on_screen(pilot)


async def test_a_failure_while_sending_is_one_line_and_the_viewer_goes_on(agent_worktree: Repo) -> None:
    Store(agent_worktree.root).make_folder()
    # the instructions file cannot be replaced: a folder is in its place
    (agent_worktree.root / ".review" / "instructions.md").mkdir()
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await comment_on_line(pilot, 30, "fix this")
        await until(pilot, lambda: screen.saving.waiting == 0)
        await pilot.press("S")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.saving.waiting == 0)
        await pilot.pause()
        assert pilot.app.is_running and pilot.app.screen is screen
        await until(pilot, lambda: "Sending the review failed: review r1 was sent, but cannot write" in toasts(pilot))
        assert "nothing to send" not in toasts(pilot)  # it was not tried again
        assert "Traceback" not in on_screen(pilot)
        review = Store(agent_worktree.root).read()
        assert [r.id for r in review.rounds] == ["r1"]  # the round itself was recorded
        await pilot.press("j")  # and the viewer still takes keys


async def test_text_typed_after_a_refused_key_is_not_taken_as_commands(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        view = screen.view
        assert view.cursor == 0  # a file's header: no comment to edit here
        screen.ignore_typing = 60.0  # however slowly a loaded machine passes the keys on
        # the reviewer meant to edit a comment and types on, not looking
        await pilot.press("e", *"fix this: s w x c S", "enter")
        await pilot.pause()
        assert pilot.app.screen is screen  # no editor, no dialog
        assert not view.split and not view.wrap and not view.viewed
        assert view.cursor == 0 and screen.saving.waiting == 0
        await until(pilot, lambda: "what you type is ignored" in toasts(pilot))
        screen.ignore_typing = 0.2
        await until(pilot, lambda: not screen.ignoring_keys)
        await pilot.press("s")  # once the typing paused, keys are commands again
        assert view.split


async def test_quitting_while_a_change_is_being_saved_waits_for_it_without_asking(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        with held_lock(agent_worktree):
            await pilot.press("x", "q")
            await pilot.pause()
            assert pilot.app.is_running and pilot.app.screen is screen  # no question: it is being saved
        await until(pilot, lambda: not pilot.app.is_running)
        assert Store(agent_worktree.root).read().viewed.keys() == {"docs/guide.md"}


async def test_the_send_dialog_counts_a_draft_written_a_moment_before(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        with held_lock(agent_worktree):
            await comment_on_line(pilot, 5, "one")
            await comment_on_line(pilot, 55, "two")
            await pilot.press("S")  # while both drafts are still being saved
            await pilot.pause()
            assert pilot.app.screen is screen  # the dialog waits for them
        await until(pilot, lambda: isinstance(pilot.app.screen, SendDialog))
        await until(pilot, lambda: "draft comment" in on_screen(pilot))
        assert "2 draft comments will be sent" in on_screen(pilot)


async def test_a_broken_review_file_is_told_once_however_often_the_diff_is_read_again(agent_worktree: Repo) -> None:
    broken = break_review(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await until(pilot, lambda: "cannot be read" in toasts(pilot))
        for _ in range(2):  # the agent edits: the diff is read again
            screen.load()
            await settle(pilot)
        assert toasts(pilot).count("cannot be read") == 1
        broken.unlink()
        screen.load()  # readable again: a later breakage is told again
        await settle(pilot)
        break_review(agent_worktree)
        screen.load()
        await settle(pilot)
        await until(pilot, lambda: toasts(pilot).count("cannot be read") == 2)


async def test_the_text_of_an_open_editor_is_in_the_unsaved_file_while_it_is_typed(agent_worktree: Repo) -> None:
    unsaved = agent_worktree.root / ".review" / UNSAVED
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        await type_on_line(pilot, 30, "half a thought")
        # nothing saved it: no key, no closing; a viewer killed now would still leave it here
        await until(pilot, lambda: unsaved.exists() and "half a thought" in unsaved.read_text())
        assert "being written" in unsaved.read_text()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.saving.waiting == 0)
        assert [c.body for c in Store(agent_worktree.root).read().comments] == ["half a thought"]
        assert not unsaved.exists()  # saved, it is no longer kept apart


async def test_text_being_saved_stays_in_the_unsaved_file_until_it_is_saved(agent_worktree: Repo) -> None:
    unsaved = agent_worktree.root / ".review" / UNSAVED
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        with held_lock(agent_worktree):
            await type_on_line(pilot, 30, "wait for the agent")
            await until(pilot, lambda: unsaved.exists())
            await pilot.press("ctrl+s")  # the agent holds the lock: the comment waits to be saved
            await pilot.pause()
            assert screen.saving.waiting == 1
            assert "wait for the agent" in unsaved.read_text()
        await until(pilot, lambda: screen.saving.waiting == 0)
        assert [c.body for c in Store(agent_worktree.root).read().comments] == ["wait for the agent"]
        assert not unsaved.exists()


def test_two_viewers_of_a_worktree_keep_each_others_text_in_the_unsaved_file(tmp_path: Path) -> None:
    def viewer() -> Saving:
        return Saving(DOMNode(), Store(tmp_path), saved=lambda *_: None, problem=print, changed=lambda: None)

    first, second = viewer(), viewer()
    unsaved = tmp_path / ".review" / UNSAVED
    first.typing("Comment on a.py:1", "the first viewer's text")
    second.typing("Comment on b.py:2", "the second viewer's text")
    second.typing("Comment on b.py:2", "the second viewer's text, longer")
    text = unsaved.read_text()
    assert "the first viewer's text" in text and text.count("the second viewer's text") == 1
    second.typed()  # closed without saving
    assert "the first viewer's text" in unsaved.read_text() and "second" not in unsaved.read_text()
    first.typed()
    assert not unsaved.exists()
