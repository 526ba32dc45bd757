"""The compact layout for a small screen (below 80 columns, down to 40 by 20): one column, the
file list, the comments and a worktree's detail as pop-ups, the footer the few keys that matter
away from a desk, and nothing cut in the middle of a word or a number. On the demo's worktrees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_overview import NOW, loaded, overview_of, settle_times, until
from textual.pilot import Pilot

from conftest import settle
from drawn import Drawn
from review import demo
from review.demo import Demo
from review.overview.status import Overview
from review.repo.git import find_worktree
from review.state import comments
from review.state.comments import Where
from review.state.store import Store
from review.tui.app import ReviewApp, make_app, make_overview_app
from review.tui.dialogs.comments_panel import CommentsPanel
from review.tui.dialogs.confirm_dialog import ConfirmDialog
from review.tui.dialogs.file_picker import FilePicker
from review.tui.dialogs.worktree_detail import WorktreeDetail
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList
from review.tui.widgets.radar_detail import RadarDetail
from review.tui.widgets.review_footer import ReviewFooter

SMALL = [(40, 20), (50, 25), (60, 20)]
"""A phone upright, a phone's SSH app, a narrow pane."""

REPLY = "Entries keep the currency they were made in, so the total converts them when it adds them up."

CUT_WORD = re.compile(r"[^\W_]…")
"""An ellipsis right after a letter or a digit: a word or a number cut in the middle."""


@pytest.fixture
def made(tmp_path: Path) -> Demo:
    """The demo, its times fixed, and a question on currency's change that its agent answered."""
    created = demo.create(tmp_path / "demo")
    settle_times(created)
    currency = created.agents["currency"]
    store = Store(currency)
    lines = (currency / "tally/ledger.py").read_text().splitlines()
    comments.add(
        store, Where("tally/ledger.py", line=20), "Why convert here, not when an entry is made?", "question", lines
    )
    comments.reply(store, "c1", "agent", REPLY)
    return created


@pytest.fixture
def overview_app(made: Demo) -> Iterator[Callable[[], ReviewApp]]:
    """Makes the overview app of the demo, the live updates off and the clock stopped."""
    overviews: list[Overview] = []

    def make() -> ReviewApp:
        overview = Overview(made.repository)
        overviews.append(overview)
        return make_overview_app(overview, watch=False, now=lambda: NOW)

    yield make
    for overview in overviews:
        overview.close()


def review_app(made: Demo) -> ReviewApp:
    return make_app(find_worktree(made.agents["currency"]), watch=False)


def rows(pilot: Pilot) -> list[str]:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot()).rows


def review_of(pilot: Pilot) -> ReviewScreen:  # type: ignore[type-arg]
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


# -- switching ---------------------------------------------------------------------------------


async def test_the_review_turns_compact_below_80_columns_and_back(made: Demo) -> None:
    async with review_app(made).run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        screen = review_of(pilot)
        view, files, footer = screen.query_one(DiffView), screen.query_one(FileList), screen.query_one(ReviewFooter)
        await pilot.press("s")
        assert view.split and files.display and not pilot.app.has_class("-compact")
        assert "? Help" in rows(pilot)[-1]

        await pilot.resize_terminal(50, 25)
        await pilot.pause()
        assert pilot.app.has_class("-compact") and screen.compact
        assert not files.display  # the diff alone, the whole width
        assert view.region.width == 50
        assert not view.split and view.wrap
        # one worktree's review: no overview to go back to, nor a next worktree
        assert footer.drawn == ["p", "a", "A", "S", "question_mark"]
        drawn = "\n".join(rows(pilot)[-2:])
        assert "p comments" in drawn and "A approve" in drawn and "? more" in drawn
        await pilot.press("s")  # no room for two sides: refused, with a note
        await pilot.pause()
        assert not view.split
        assert any("Side by side needs 80 columns" in note.message for note in pilot.app._notifications)

        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not pilot.app.has_class("-compact") and files.display
        assert view.split and not view.wrap  # as the reviewer had it
        assert "? Help" in rows(pilot)[-1]


async def test_the_overview_turns_compact_its_detail_a_pop_up_on_i(overview_app) -> None:  # type: ignore[no-untyped-def]
    async with overview_app().run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        overview = overview_of(pilot)
        assert overview.detail.display
        await pilot.resize_terminal(50, 25)
        await pilot.pause()
        assert not overview.detail.display
        bottom = "\n".join(rows(pilot)[-2:])
        for key in ("⏎ review", "W next", "i detail", "? more", "q quit"):
            assert key in bottom, bottom
        name = overview.table.row.name if overview.table.row else ""
        await pilot.press("i")
        await until(pilot, lambda: isinstance(pilot.app.screen, WorktreeDetail))
        shown = pilot.app.screen.query_one(RadarDetail)
        assert shown.text.startswith(name)
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is overview
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert overview.detail.display


# -- the pop-ups and the keys away from a desk --------------------------------------------------


async def test_f_lists_the_files_in_a_pop_up_and_enter_goes_to_one(made: Demo) -> None:
    async with review_app(made).run_test(size=(50, 25)) as pilot:
        await settle(pilot)
        screen = review_of(pilot)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(pilot.app.screen, FilePicker))
        assert "tally/ledger.py" in "\n".join(rows(pilot))
        await pilot.press("j", "j", "enter")
        await pilot.pause()
        assert pilot.app.screen is screen
        assert screen.view.current_file() == 2
        await pilot.press("f", "escape")
        await pilot.pause()
        assert pilot.app.screen is screen and screen.view.has_focus


async def test_p_shows_each_comment_and_its_thread_whole_wrapped_by_words(made: Demo) -> None:
    async with review_app(made).run_test(size=(40, 20)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(pilot.app.screen, CommentsPanel))
        assert pilot.app.screen.has_class("-whole")
        await pilot.pause()
        text = " ".join(re.sub("[│▊▎]", " ", row) for row in rows(pilot))
        assert " ".join(REPLY.split()) in " ".join(text.split())
        assert not CUT_WORD.search(text)


async def test_A_approves_after_a_confirm(made: Demo) -> None:
    async with review_app(made).run_test(size=(50, 25)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.pause()
        said = " ".join(" ".join(rows(pilot)).replace("│", " ").split())
        assert "Approve tally-currency, with 1 draft comment?" in said, said
        await pilot.press("y")
        store = Store(made.agents["currency"])
        await until(pilot, lambda: bool(store.read().rounds))
        (sent,) = store.read().rounds
        assert sent.verdict == "approve"


@pytest.mark.parametrize(
    ("keys", "shown"),
    [
        (["S"], ["Request changes", "Comment", "Approve", "Send", "Cancel", "^s Send", "esc Cancel"]),
        (["j", "j", "j", "c"], ["must", "should", "question", "nit", "^s Save", "esc Close"]),
        (["A"], ["Approve tally-currency", "Not yet", "y Yes", "n No"]),
    ],
    ids=["send", "comment", "confirm"],
)
async def test_at_40_by_20_the_dialogs_keep_their_choices_and_keys_whole(
    made: Demo, keys: list[str], shown: list[str]
) -> None:
    async with review_app(made).run_test(size=(40, 20)) as pilot:
        await settle(pilot)
        await pilot.press(*keys)
        await until(pilot, lambda: not isinstance(pilot.app.screen, ReviewScreen))
        await pilot.pause()
        drawn = "\n".join(rows(pilot))
        for words in shown:
            assert words in drawn, drawn
        assert not CUT_WORD.search(drawn), drawn


async def test_the_help_leaves_out_the_binding_ids_on_a_small_screen(made: Demo) -> None:
    async with review_app(made).run_test(size=(40, 20)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        drawn = "\n".join(rows(pilot))
        assert "Down" in drawn and "cursor_down" not in drawn
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert "cursor_down" in "\n".join(rows(pilot))  # for remapping, at a desk


# -- nothing cut -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SMALL, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_no_word_or_number_is_cut_in_the_review_header_or_footer(made: Demo, size: tuple[int, int]) -> None:
    async with review_app(made).run_test(size=size) as pilot:
        await settle(pilot)
        drawn = rows(pilot)
        header, footer = drawn[0], drawn[-2:]
        for line in [header, *footer]:
            assert not CUT_WORD.search(line), line
        assert "+29 −13" in header and "review: drafts" in header
        assert "? more" in "\n".join(footer)


@pytest.mark.parametrize("size", SMALL, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_no_word_or_number_is_cut_in_the_overview_summary_or_footer(overview_app, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async with overview_app().run_test(size=size) as pilot:
        await loaded(pilot)
        drawn = rows(pilot)
        summary, footer = drawn[0], drawn[-2:]
        for line in [summary, *footer]:
            assert not CUT_WORD.search(line), line
        assert "2 wait on you" in summary
        assert "? more" in "\n".join(footer)


# -- how it looks ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SMALL, ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_of_the_review(snap_compare, made: Demo, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def ready(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await settle(pilot)

    assert snap_compare(review_app(made), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SMALL, ids=lambda size: f"{size[0]}x{size[1]}")
def test_snapshot_of_the_overview(snap_compare, overview_app, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def ready(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await loaded(pilot)

    assert snap_compare(overview_app(), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("key", ["f", "p"], ids=["files", "comments"])
def test_snapshot_of_a_pop_up(snap_compare, made: Demo, key: str) -> None:  # type: ignore[no-untyped-def]
    async def opened(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await settle(pilot)
        await pilot.press(key)
        await pilot.pause()

    assert snap_compare(review_app(made), terminal_size=(50, 25), run_before=opened)
