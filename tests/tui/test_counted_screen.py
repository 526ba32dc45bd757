"""A review opened from its files' counts (`review.state.counted`): the screen is drawn, and
answers, before git has read the whole diff; and when the whole diff is not what was counted, the
screen reads the diff again and shows git's counts.

git is held back at the diff's last file by a clean filter that waits for a lock the test holds
(`held_git`)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conftest import Repo, settle
from held_git import held, hold_git_at
from lying_cache import lie
from review.config import Config
from review.repo import git
from review.repo.scope import Scope
from review.state import counted
from review.state.opening import FirstDiff, read_apart
from review.tui.app import make_app
from review.tui.layout import Layout
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList
from review.tui.widgets.review_header import ReviewHeader

SIZE = (100, 30)
FILES = 40
LIAR = 10
"""The file whose counts the cache lies about: past the first screen's rows, so opened from its
counts, and high in the file list."""


def name(n: int) -> str:
    return f"file_{n:02}.txt"


@pytest.fixture
def forty(project: Repo, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """An agent's worktree with forty files of 20 lines rewritten, old enough to be remembered."""
    monkeypatch.setattr(counted, "RECENT_SECONDS", -3600.0)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)
    for n in range(FILES):
        project.write(name(n), "".join(f"old {n} line {i}\n" for i in range(20)))
    project.commit("forty files")
    agent = project.worktree("agent", "agent/work")
    for n in range(FILES):
        agent.write(name(n), "".join(f"new {n} line {i}\n" for i in range(20)))
    return agent


def opened(agent: Repo) -> FirstDiff:
    """A review being opened, its diff and review read."""
    first = read_apart(git.find_worktree(agent.root), Scope())
    first.anchoring.result(timeout=60)
    return first


def remembered(agent: Repo) -> None:
    """Open the review once, shown, until its files' counts are remembered."""
    before = set(threading.enumerate())
    first = opened(agent)
    first.shown.set()
    assert first.checked.result(timeout=60) is True
    for thread in threading.enumerate():
        if thread.name == "review-read" and thread not in before:
            thread.join(timeout=60)
    assert counted.cache_file(git.find_worktree(agent.root)).exists()


async def test_counts_that_lie_are_put_right_by_reading_the_diff_again(forty: Repo) -> None:
    remembered(forty)
    lie(forty, name(LIAR), added=999)
    first = opened(forty)
    liar = first.reading.result().files[LIAR]
    assert liar._later is not None and liar.added == 999  # opened from what the cache said
    async with make_app(git.find_worktree(forty.root), watch=False, first=first).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        header = screen.query_one(ReviewHeader)
        for _ in range(500):
            await pilot.pause(0.01)
            if first.checked.done() and "+800 " in header.text:
                break
        await settle(pilot)
        assert first.checked.result() is False
        assert screen.diff is not None and screen.diff.files[LIAR].added == 20
        assert "+800 −800" in header.text and "+1779" not in header.text
        files = screen.query_one(FileList)
        files.select_file(LIAR)
        await pilot.pause()
        (row,) = [text for y in range(files.size.height) if name(LIAR) in (text := files.render_line(y).text)]
        assert f"M {name(LIAR)} +20 −20" in row


HELD = "zz-held.txt"
"""The diff's last file, past the first screen's rows, which git reads through a held filter."""


@pytest.mark.parametrize("split", [False, True], ids=["unified", "split"])
async def test_the_screen_goes_on_while_git_reads_the_rest_of_the_diff(
    project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool
) -> None:
    monkeypatch.setattr(counted, "RECENT_SECONDS", -3600.0)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(counted, "BOTTOM_BYTES", -1)  # (the held file is not read with the first screen's)
    lock = hold_git_at(project, HELD, tmp_path)
    # New files alone: with a file changed, git would read the held one's content before writing
    # the records, to look for a copy of it.
    agent = project.worktree("agent", "agent/work")
    for n in range(FILES):
        agent.write(name(n), "".join(f"new {n} line {i}\n" for i in range(20)))
    agent.write(HELD, "the last file, read through a filter\n")
    remembered(agent)
    with held(lock) as holding:
        first = opened(agent)
        last = first.reading.result().files[-1]
        later = last._later
        assert last.path == HELD and later is not None
        app = make_app(git.find_worktree(agent.root), config=Config(split=split), watch=False, first=first)
        async with app.run_test(size=SIZE) as pilot:
            view = pilot.app.screen.query_one(DiffView)
            # shown, and what the next keys lead to (the bottom of the diff among them) prepared
            for _ in range(500):
                if first.shown.is_set() and view._prefetch_timer is None:
                    break
                await pilot.pause(0.01)
            assert first.shown.is_set()
            # all without waiting for git, which is still held back
            assert not later.done()
            assert not first.checked.done()
            holding.let_go()
            for _ in range(500):
                if first.checked.done():
                    break
                await pilot.pause(0.01)
            await settle(pilot)
            assert first.checked.result() is True
            assert [line.text for line in last.hunks[0].lines] == ["the last file, read through a filter"]
            # laid out again once git has read it: every file measured as the view shows it
            rows = view.diff_layout
            assert rows is not None
            exact = Layout(rows.diff, split=split, width=rows.width, comments=rows.comments, measure=rows.measure)
            assert rows.total == exact.total
