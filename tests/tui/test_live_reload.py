"""Pilot tests of the review screen following the agent's edits: only the files that changed are
read again, and the cursor stays on its line of code."""

from __future__ import annotations

import time
from concurrent.futures import wait

from textual.pilot import Pilot

from conftest import Repo, settle, until_seen
from drawn import Drawn
from review.repo import git
from review.repo.diff import Diff
from review.repo.scope import Scope
from review.state.opening import read_apart
from review.tui.app import make_app
from review.tui.layout import Place
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView

SIZE = (100, 30)


def screen_of(pilot: Pilot) -> ReviewScreen:  # type: ignore[type-arg]
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def shows(screen: ReviewScreen, path: str, text: str) -> bool:
    """Whether the diff shown has a line with `text` in the file at `path`."""
    diff = screen.diff
    file = diff.file(path) if diff is not None else None
    return file is not None and any(line.text == text for hunk in file.hunks for line in hunk.lines)


def kept(before: Diff, after: Diff) -> set[str]:
    """The paths whose model in `after` is the very one `before` had."""
    return {f.path for f in after.files if any(f is old for old in before.files)}


async def test_an_edit_reads_again_only_the_file_that_changed(agent_worktree: Repo) -> None:
    async with make_app(git.find_worktree(agent_worktree.root), watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        before = screen.diff
        assert before is not None
        await until_seen(
            pilot,
            lambda: agent_worktree.write("src/util.py", "def helper():\n    return 43\n\n\ndef other():\n    pass\n"),
            lambda: shows(screen, "src/util.py", "    return 43"),
        )
        assert screen.diff is not None
        assert kept(before, screen.diff) == {f.path for f in before.files} - {"src/util.py"}
        # the file list counts the file as it is now
        await pilot.pause()
        assert any("util.py +5 −1" in row for row in Drawn.of(pilot.app.export_screenshot()).rows)


async def test_the_cursor_stays_on_its_line_of_code_when_lines_are_added_above_it(agent_worktree: Repo) -> None:
    async with make_app(git.find_worktree(agent_worktree.root), watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        view = screen.query_one(DiffView)
        assert view.diff_layout is not None and screen.diff is not None
        before = screen.diff
        view.go_to(view.diff_layout.find(Place("src/app.py", new=30)) or 0)
        assert view.diff_layout.place(view.cursor).text == "value_30 = 30 * 2  # doubled"
        lines = (agent_worktree.root / "src/app.py").read_text()
        await until_seen(
            pilot,
            lambda: agent_worktree.write("src/app.py", "# one\n# two\n# three\n" + lines),
            lambda: shows(screen, "src/app.py", "# three"),
        )
        assert screen.diff is not None and "src/util.py" in kept(before, screen.diff)  # read alone
        place = view.diff_layout.place(view.cursor)
        assert (place.path, place.new, place.text) == ("src/app.py", 33, "value_30 = 30 * 2  # doubled")


async def test_what_the_agent_wrote_before_the_watcher_was_up_is_shown(agent_worktree: Repo) -> None:
    # The watcher starts a moment after the first frame; a file written between the diff's
    # reading and then is read again once it is up, though no change comes after.
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope())
    wait([first.anchoring])
    agent_worktree.write("src/util.py", "def helper():\n    return 43\n")
    async with make_app(worktree, watch=True, first=first).run_test(size=SIZE) as pilot:
        screen = screen_of(pilot)
        assert shows(screen, "src/util.py", "    return 42")  # as read, before the write
        deadline = time.monotonic() + 20
        while not shows(screen, "src/util.py", "    return 43"):
            assert time.monotonic() < deadline, "the write before the watcher was up never showed"
            await pilot.pause(0.05)
        before = screen.diff
        await pilot.pause(1.0)
        assert screen.diff is before  # and nothing else was read again
