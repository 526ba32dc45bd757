"""The viewer at every width from 60 columns up: the header keeps the review's state and totals,
the file list keeps every file's counts whole (from 80 columns, below which it is a pop-up), and
the footer keeps `?` (and `q` from 80 columns; below, it holds the few keys of the compact
layout, tests/tui/test_compact.py). Read from what was drawn."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.state import comments
from review.state.comments import Where
from review.state.store import Store
from review.tui.app import make_app
from review.tui.widgets.file_list import FileList
from review.tui.widgets.review_header import ReviewHeader

WIDTHS = [60, 61, 67, 72, 79, 80, 88, 100, 120, 150, 200]
WIDE = [width for width in WIDTHS if width >= 80]
"""The widths with the full layout: the file list beside the diff, the whole footer."""


def with_a_draft(repo: Repo) -> Repo:
    lines = (repo.root / "src/app.py").read_text().splitlines()
    comments.add(Store(repo.root), Where("src/app.py", line=5), "Why double it?", "must", lines)
    return repo


def drawn(pilot: Pilot) -> Drawn:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot())


async def test_at_every_width_the_header_keeps_the_review_state_and_the_totals(agent_worktree: Repo) -> None:
    with_a_draft(agent_worktree)
    async with make_app(git.find_worktree(agent_worktree.root), watch=False).run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        diff = pilot.app.screen.diff
        assert diff is not None
        totals = f"+{diff.added} −{diff.removed}"
        for width in WIDTHS:
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            header = drawn(pilot).rows[0]
            assert "review: drafts" in header, f"at {width} columns: {header!r}"
            assert totals in header, f"at {width} columns: {header!r}"
            assert "agent" in header  # the worktree's name, whole or shortened


async def test_at_every_width_the_file_list_shows_each_files_counts_whole(agent_worktree: Repo) -> None:
    async with make_app(git.find_worktree(agent_worktree.root), watch=False).run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        diff = pilot.app.screen.diff
        assert diff is not None
        files = pilot.app.screen.query_one(FileList)
        for width in WIDE:
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            region = files.content_region
            listed = "\n".join(row[region.x : region.right] for row in drawn(pilot).rows[region.y : region.bottom])
            for file in diff.files:
                counts = " bin" if file.binary else f" +{file.added} −{file.removed}"
                assert counts in listed, f"{file.path} at {width} columns:\n{listed}"


async def test_at_every_width_the_footer_keeps_help_and_quit(agent_worktree: Repo) -> None:
    async with make_app(git.find_worktree(agent_worktree.root), watch=False).run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        for width in WIDTHS:
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            footer = drawn(pilot).rows[-1]
            if width < 80:
                assert "? more" in footer, f"at {width} columns: {footer!r}"
                continue
            assert "? Help" in footer and "q Quit" in footer, f"at {width} columns: {footer!r}"
            # the keys that do not fit are left out whole, never cut in the middle
            assert "c Comment" in footer or "c " not in footer
        # the footer is composed again when the focus changes, and fitted again
        await pilot.resize_terminal(80, 24)
        await pilot.press("question_mark", "escape")
        await pilot.pause()
        footer = drawn(pilot).rows[-1]
        assert "? Help" in footer and ("c Comment" in footer or "c " not in footer), footer


class HeaderOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield ReviewHeader()


def show(header: ReviewHeader, **facts: int) -> None:
    header.show(
        worktree="a-worktree-with-a-rather-long-name",
        branch="agent/a-branch-with-a-long-name-too",
        scope="main...working tree",
        files=12,
        added=1234,
        removed=567,
        viewed=3,
        comments={"draft": 2, "open": 4, "addressed": 1},
        state="answered",
        match=(3, 17),
        **facts,
    )


async def test_changes_not_saved_come_first_in_the_header_at_any_width() -> None:
    async with HeaderOnly().run_test(size=(60, 3)) as pilot:
        header = pilot.app.query_one(ReviewHeader)
        show(header, unsaved=3)
        await pilot.pause()
        line = drawn(pilot).rows[0]
        assert line.strip().startswith("3 not saved")
        for kept in ("+1234 −567", "review: answered", "match 3/17"):
            assert kept in line
        assert "  a-…  " in line  # the worktree's name: shortened, not left out
        await pilot.resize_terminal(240, 3)
        await pilot.pause()
        line = drawn(pilot).rows[0]
        assert "a-worktree-with-a-rather-long-name  agent/a-branch-with-a-long-name-too" in line
        assert "3/12 viewed  2 draft  4 open  1 addressed" in line


async def test_the_header_says_when_changes_are_being_saved() -> None:
    async with HeaderOnly().run_test(size=(60, 3)) as pilot:
        header = pilot.app.query_one(ReviewHeader)
        show(header, saving=1)
        await pilot.pause()
        assert drawn(pilot).rows[0].strip().startswith("saving…")
        show(header)
        await pilot.pause()
        assert "saving" not in drawn(pilot).rows[0]


def test_a_table_cell_too_long_is_cut_after_a_whole_word() -> None:
    # A small screen never shows half a word or half a number: the overview's prose and names
    # are cut after their last whole word (a name's parts count), a radar's sign with its name.
    from rich.text import Text

    from review.tui.widgets.worktree_table import _aligned

    cells = {
        ("the agent is at work", 16): "the agent is at…",
        ("tally-currency", 8): "tally-… ",
        ("✗ csv-export ~ cleanup", 20): "✗ csv-export…       ",
        ("12345678", 5): "1234…",  # one word that cannot fit is cut where it must be
        ("ready for review", 16): "ready for review",
    }
    assert {key: _aligned(Text(key[0]), key[1], False).plain for key in cells} == cells
