"""The overview in the app: every worktree of the demo repository, the conflict radar, and the
batch review — enter, the next waiting worktree, back — on real worktrees.

The demo's files get fixed modification times and its agents' hooks fixed times, and the app a
stopped clock, so that the ages and the order of the queue are the same at every run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot

from conftest import settle, until_seen
from drawn import Drawn
from review import demo
from review.agents import activity
from review.config import Config
from review.demo import Demo
from review.overview.rows import Row
from review.overview.status import Overview
from review.repo.git import find_worktree
from review.repo.merge import ConflictHunk
from review.repo.scope import Scope
from review.repo.text import visible
from review.state.store import FOLDER, Store
from review.tui.app import ReviewApp, make_overview_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.dialogs.confirm_dialog import ConfirmDialog
from review.tui.dialogs.send_dialog import SendDialog
from review.tui.screens.help_screen import HelpScreen
from review.tui.screens.overview_screen import OverviewScreen
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.radar_detail import RadarDetail
from review.tui.widgets.worktree_table import short_names

WIDE = (160, 48)
NARROW = (80, 24)

BASE = datetime(2026, 3, 2, 12, 0, tzinfo=UTC).timestamp()
"""When the agents last edited their files, give or take the offsets below."""
EDITED = {"cleanup": 0, "csv-export": 1800, "currency": 3600}
"""Seconds after BASE each agent last edited: cleanup has waited longest."""
NOW = BASE + 5400
"""The app's stopped clock: an hour and a half after BASE."""
AGENTS = {"currency": ("claude", "idle"), "csv-export": ("codex", "working"), "cleanup": ("claude", "idle")}


def settle_times(made: Demo) -> None:
    """Fix what the ages and the queue are measured from: the files' modification times and when
    the agents' hooks last spoke."""
    for name, path in made.agents.items():
        agent, state = AGENTS[name]
        activity.record(path, state, agent, "Stop")  # type: ignore[arg-type]
        said = path / FOLDER / activity.FILE
        data = json.loads(said.read_text())
        data["at"] = "2026-03-02T00:00:00Z"  # before every edit: the edits say when each waits since
        said.write_text(json.dumps(data))
        stamp = BASE + EDITED[name]
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d not in (".git", FOLDER)]
            for file in files:
                os.utime(Path(folder) / file, (stamp, stamp))


@pytest.fixture
def made(tmp_path: Path) -> Demo:
    """The demo: currency and cleanup wait on the reviewer (cleanup the longest), csv-export's
    agent is at work; currency and csv-export conflict in tally/ledger.py."""
    created = demo.create(tmp_path / "demo")
    settle_times(created)
    return created


@pytest.fixture
def app_of(made: Demo) -> Iterator[Callable[[], ReviewApp]]:
    """Makes the overview app of the demo, with the live updates off and the clock stopped."""
    overviews: list[Overview] = []

    def make() -> ReviewApp:
        overview = Overview(made.repository)
        overviews.append(overview)
        return make_overview_app(overview, watch=False, now=lambda: NOW)

    yield make
    for overview in overviews:
        overview.close()


def overview_of(pilot: Pilot) -> OverviewScreen:  # type: ignore[type-arg]
    screen = pilot.app.screen_stack[0]
    assert isinstance(screen, OverviewScreen)
    return screen


def drawn(pilot: Pilot) -> list[str]:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot()).rows


def line_of(rows: list[str], name: str) -> str:
    """The table's line of the worktree named `name` (the table is above the detail's border)."""
    table = rows[2 : next(index for index, row in enumerate(rows) if row.startswith("▔"))]
    (line,) = [row for row in table if name in row.split()[:2]]
    return line


def row_of(pilot: Pilot, name: str) -> Row:  # type: ignore[type-arg]
    (row,) = [row for row in overview_of(pilot).table.rows if row.name == name]
    return row


async def until(pilot: Pilot, condition: Callable[[], object], seconds: float = 20.0) -> None:  # type: ignore[type-arg]
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    assert condition()


async def loaded(pilot: Pilot) -> None:  # type: ignore[type-arg]
    """Wait until the rows are shown and every worker reading them (and the conflicts) is done."""
    await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen) and pilot.app.screen.loaded)
    for _ in range(20):
        busy = [worker for worker in pilot.app.workers if worker.is_running]
        if not busy:
            break
        await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause()
    await pilot.pause()


async def go_to(pilot: Pilot, name: str) -> None:  # type: ignore[type-arg]
    table = overview_of(pilot).table
    await pilot.press("g")
    for _ in range(len(table.rows)):
        if table.row is not None and table.row.name == name:
            break
        await pilot.press("j")
    assert table.row is not None and table.row.name == name
    await loaded(pilot)


async def reviewing(pilot: Pilot, path: Path) -> ReviewScreen:  # type: ignore[type-arg]
    """Wait for the review of the worktree at `path` to be open, its diff read."""
    await until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, ReviewScreen)
            and pilot.app.screen.worktree.root == path
            and pilot.app.screen.diff is not None
        ),
    )
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


# -- the table ---------------------------------------------------------------------------------


async def test_every_worktree_is_a_row_with_its_agent_size_review_and_wait(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        rows = drawn(pilot)
        with Overview(made.repository) as overview:
            expected = overview.read_all()
        assert len(expected) == 4
        for row in expected:
            line = line_of(rows, row.name)
            assert visible(row.branch or "") in line
            if row.files:
                assert f"+{row.added} −{row.removed}" in line
            assert row.review_state in line
            assert row.reason in line
        currency = line_of(rows, "tally-currency")
        assert "claude" in currency and "idle" in currency
        assert "30m" in currency  # edited at BASE + 1h, seen at BASE + 1h30
        assert "↑2 ↓0" in currency
        export = line_of(rows, "tally-csv-export")
        assert "codex" in export and "working" in export and "1h" in export
        assert line_of(rows, "tally").split()[:2] == ["tally", "main"]


async def test_the_worktrees_waiting_on_the_reviewer_come_first_numbered_longest_waiting_first(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        rows = drawn(pilot)
        text = "\n".join(rows)
        headings = ["Waiting on you", "Waiting on the agent", "Waiting on nothing"]
        assert [text.index(heading) for heading in headings] == sorted(text.index(h) for h in headings)
        assert line_of(rows, "tally-cleanup").split()[0] == "1"
        assert line_of(rows, "tally-currency").split()[0] == "2"
        assert line_of(rows, "tally-csv-export").split()[0] == "tally-csv-export"  # no number: not waiting
        assert [row.name for row in overview_of(pilot).table.rows] == [
            "tally-cleanup",
            "tally-currency",
            "tally-csv-export",
            "tally",
        ]
        assert "2 wait on you" in rows[0] and "conflicting pair" in rows[0]


async def test_the_radar_marks_both_conflicting_worktrees_and_the_detail_shows_the_hunk(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        rows = drawn(pilot)
        assert "✗ tally-csv-export" in line_of(rows, "tally-currency")
        assert "✗ tally-currency" in line_of(rows, "tally-csv-export")
        assert "~ tally-cleanup" in line_of(rows, "tally-currency")  # the same files, merging cleanly

        await go_to(pilot, "tally-currency")
        detail = overview_of(pilot).query_one(RadarDetail).text
        assert "✗ tally-csv-export: merging both conflicts in tally/ledger.py" in detail
        assert "tally/ledger.py, line" in detail
        ours = detail.index('def total(entries, currency="EUR"):')
        theirs = detail.index("def total(entries, category=None):")
        assert ours < theirs  # this worktree's side first
        assert "Into main: merges cleanly" in detail
        assert "~ tally-cleanup: the same files, merging cleanly" in detail
        shown = "\n".join(drawn(pilot))
        assert 'def total(entries, currency="EUR"):' in shown and "def total(entries, category=None):" in shown


async def test_the_conflicting_lines_are_read_before_the_cursor_comes(app_of) -> None:  # type: ignore[no-untyped-def]
    # they were read as the cursor came: "reading the conflicting lines…", then the lines
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        screen = overview_of(pilot)
        assert screen.table.row is not None and screen.table.row.name == "tally-cleanup"
        assert screen.overview is not None
        read = screen.overview.conflicts
        asked: list[str] = []

        def conflicts(row: Row, other: Row | None) -> list[tuple[str, list[ConflictHunk]]]:
            asked.append(row.name)
            return read(row, other)

        screen.overview.conflicts = conflicts  # type: ignore[method-assign]
        await pilot.press("j")
        detail = screen.query_one(RadarDetail).text
        assert detail.startswith("tally-currency")
        assert "tally/ledger.py, line" in detail and "reading the conflicting lines" not in detail
        await loaded(pilot)
        assert asked == []


async def test_at_80_columns_the_detail_cuts_its_long_lines_and_scrolls(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=NARROW, notifications=True) as pilot:
        await loaded(pilot)
        await go_to(pilot, "tally-currency")
        rows = drawn(pilot)
        (cut,) = [row for row in rows if "converted to" in row]
        assert cut.rstrip().endswith("…")  # not wrapped: the lines of both sides stay aligned
        assert not any(row.lstrip().startswith("`currency`") for row in rows)
        detail = overview_of(pilot).detail
        assert detail.show_vertical_scrollbar and detail.max_scroll_y > 0


async def test_at_80_columns_names_and_marks_stay_whole(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=NARROW, notifications=True) as pilot:
        await loaded(pilot)
        rows = drawn(pilot)
        assert all(len(row.rstrip()) <= 80 for row in rows)
        currency = line_of(rows, "currency")
        assert "✗ csv-export" in currency and "+29 −13" in currency and "30m" in currency
        assert "✗ currency" in line_of(rows, "csv-export")


async def test_a_row_that_cannot_be_read_says_why_in_one_line_and_cannot_be_opened(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.rmtree(made.agents["cleanup"])
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        rows = drawn(pilot)
        line = line_of(rows, "tally-cleanup")
        assert "problem: its folder is gone" in line
        assert "Cannot be read (1)" in "\n".join(rows)
        await go_to(pilot, "tally-cleanup")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, OverviewScreen)
        assert "cannot be reviewed" in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_names_from_the_repository_are_shown_inert(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    evil = made.folder / "evil\x1b[31mred"
    from review.repo.git import run_git

    run_git(made.repository, "worktree", "add", "--quiet", "-b", "agent/evil", str(evil), "main")
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        svg = pilot.app.export_screenshot()
        assert "\x1b" not in svg
        assert "evil^[[31mred" in "\n".join(Drawn.of(svg).rows)


# -- updates -----------------------------------------------------------------------------------


async def test_new_rows_keep_the_cursor_on_the_same_worktree(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await go_to(pilot, "tally-currency")
        screen = overview_of(pilot)
        rows = list(screen.table.rows)
        # the currency agent starts working again: its row moves to the agent's group
        moved = [
            row if row.name != "tally-currency" else _replace(row, waits_on="agent", reason="the agent is at work")
            for row in rows
        ]
        screen.show_rows(moved)
        await pilot.pause()
        assert screen.table.row is not None and screen.table.row.name == "tally-currency"
        assert screen.queue == [row.path for row in rows if row.name == "tally-cleanup"]
        assert line_of(drawn(pilot), "tally-currency").split()[0] == "tally-currency"  # no number now


async def test_a_first_reading_slower_than_the_first_frame_says_so_and_its_rows_come_after(made: Demo) -> None:
    # the first frame waits a while for the rows read as the app starts, not for ever
    with Overview(made.repository) as overview:
        coming: Future[list[Row]] = Future()
        app = make_overview_app(overview, watch=False, now=lambda: NOW, first=coming)
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            screen = overview_of(pilot)
            try:
                await until(pilot, lambda: "Reading the worktrees…" in "\n".join(drawn(pilot)))
                assert not screen.loaded
            finally:  # (the app's reader waits for it as the app closes)
                coming.set_result(overview.read_rows())
            await loaded(pilot)
            assert line_of(drawn(pilot), "tally-currency").split()[1] == "tally-currency"


async def test_the_ages_are_drawn_again_only_when_one_reads_otherwise(made: Demo) -> None:
    # every five seconds the table was drawn again, the same, and sent to the terminal
    clock = [NOW]
    with Overview(made.repository) as overview:
        app = make_overview_app(overview, watch=False, now=lambda: clock[0])
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await loaded(pilot)
            table = overview_of(pilot).table
            drawn_lines: list[int] = []
            render_line = table.render_line

            def counted(y: int):  # type: ignore[no-untyped-def]
                drawn_lines.append(y)
                return render_line(y)

            table.render_line = counted  # type: ignore[method-assign]
            table.tick()
            await pilot.pause(0.2)
            assert drawn_lines == []
            clock[0] += 3 * 3600
            table.tick()
            await pilot.pause(0.2)
            assert drawn_lines
            assert "4h" in line_of(drawn(pilot), "tally-cleanup")  # edited 1h30 before NOW


async def test_the_detail_tells_its_ages_against_the_tick_as_the_table_does(made: Demo) -> None:
    # rows read again a moment after the first frame drew the detail again for its age alone
    clock = [NOW]
    with Overview(made.repository) as overview:
        app = make_overview_app(overview, watch=False, now=lambda: clock[0])
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await loaded(pilot)
            screen = overview_of(pilot)
            await go_to(pilot, "tally-cleanup")
            before = screen.detail.text
            assert "changed 1h ago" in before  # (edited 1h30 before NOW)
            clock[0] += 3 * 3600
            screen.show_rows([row.copied() for row in overview.read_radar()])  # (rows read again)
            await pilot.pause()
            assert screen.detail.text == before
            screen._tick()
            await pilot.pause()
            assert "changed 4h ago" in screen.detail.text
            assert any("changed 4h ago" in row for row in drawn(pilot))


async def test_followed_live_a_row_changes_as_its_agent_starts_working(made: Demo) -> None:
    worktree = made.agents["cleanup"]
    with Overview(made.repository) as overview:
        app = make_overview_app(overview, watch=True, now=lambda: NOW)
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen) and pilot.app.screen.live)
            await go_to_row(pilot, "tally-cleanup")
            await until_seen(
                pilot,
                lambda: activity.record(worktree, "working", "claude", "UserPromptSubmit"),
                lambda: row_of(pilot, "tally-cleanup").waits_on == "agent",
            )
            await pilot.pause()
            assert line_of(drawn(pilot), "tally-cleanup").split()[0] == "tally-cleanup"  # no number now
            screen = overview_of(pilot)
            assert screen.table.row is not None and screen.table.row.name == "tally-cleanup"  # the cursor went with it
        assert not screen.following  # stopped before the app closed, so the overview can be closed


async def test_an_agent_that_goes_idle_marks_its_row_and_tells_the_terminal(made: Demo) -> None:
    worktree = made.agents["csv-export"]  # its agent is at work in the demo
    with Overview(made.repository) as overview:
        app = make_overview_app(overview, Config(notify="osc9"), watch=True, now=lambda: NOW)
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen) and pilot.app.screen.live)
            await go_to_row(pilot, "tally")
            await until_seen(
                pilot,
                lambda: activity.record(worktree, "idle", "codex", "Stop"),
                lambda: worktree in overview_of(pilot).table.marked,
            )
            assert row_of(pilot, "tally-csv-export").waits_on == "reviewer"
            # OSC 9 with the worktree's name, passed through when inside tmux (the app hears of
            # the call in a message of its own, after the row is marked)
            await until(pilot, lambda: app.told)
            assert "\x1b]9;" in app.told and "tally-csv-export" in app.told
            await go_to_row(pilot, "tally-csv-export")
            assert worktree not in overview_of(pilot).table.marked  # seen


async def go_to_row(pilot: Pilot, name: str) -> None:  # type: ignore[type-arg]
    """Move the cursor onto a worktree, without waiting for the workers (the live one never ends)."""
    table = overview_of(pilot).table
    await pilot.press("g")
    while table.row is not None and table.row.name != name:
        await pilot.press("j")


async def test_a_click_moves_the_cursor_and_a_double_click_opens_the_review(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        table = overview_of(pilot).table
        line = next(index for index, row in enumerate(drawn(pilot)) if "tally-csv-export" in row.split()[:1])
        offset = (4, line - table.region.y)
        await pilot.click(table, offset=offset)
        assert table.row is not None and table.row.name == "tally-csv-export"
        await pilot.double_click(table, offset=offset)
        await reviewing(pilot, made.agents["csv-export"])


async def test_a_marked_row_stays_marked_until_the_cursor_moves_onto_it(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        screen = overview_of(pilot)
        await go_to(pilot, "tally-cleanup")
        screen.mark([made.agents["currency"], made.agents["cleanup"]])
        await pilot.pause()
        assert screen.table.marked == {made.agents["currency"]}  # the one under the cursor is seen
        await pilot.press("j")
        assert screen.table.marked == frozenset()


def _replace(row: Row, **changes: object) -> Row:
    from dataclasses import replace

    return replace(row, **changes)  # type: ignore[arg-type]


# -- going through the reviews -----------------------------------------------------------------


async def test_enter_opens_the_review_and_o_comes_back_to_the_same_row(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await go_to(pilot, "tally-csv-export")
        await pilot.press("enter")
        screen = await reviewing(pilot, made.agents["csv-export"])
        assert screen.diff is not None and "tally/export.py" in [file.path for file in screen.diff.files]
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        await loaded(pilot)
        table = overview_of(pilot).table
        assert table.row is not None and table.row.name == "tally-csv-export"


async def test_o_pressed_while_a_review_is_still_opening_waits_for_it(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        await reviewing(pilot, made.agents["cleanup"])
        app = pilot.app
        assert isinstance(app, ReviewApp)
        # the next review is on the stack but not yet mounted when `o` comes
        opening = app._review_screen(find_worktree(made.agents["currency"]), Scope())
        app.switch_screen(opening)
        app.action_overview()
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        assert opening.is_mounted  # it started, then was left
        assert opening not in pilot.app.screen_stack


async def test_a_review_left_before_git_answered_ignores_the_answer(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        left = await reviewing(pilot, made.agents["cleanup"])
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        assert left.diff is not None and not left.is_attached
        # what its workers hand in late (a reload, the file list) finds no widgets to fill
        left._list_files(left.diff)
        left._failed("late")
        await pilot.pause()
        assert isinstance(pilot.app.screen, OverviewScreen)


async def test_W_goes_through_the_waiting_worktrees_longest_waiting_first(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        first = await reviewing(pilot, made.agents["cleanup"])
        await pilot.press("W")
        second = await reviewing(pilot, made.agents["currency"])
        assert first not in pilot.app.screen_stack  # replaced, not piled up
        assert [type(screen) for screen in pilot.app.screen_stack] == [OverviewScreen, ReviewScreen]
        await pilot.press("W")  # the queue starts again
        await reviewing(pilot, made.agents["cleanup"])
        assert second not in pilot.app.screen_stack
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        table = overview_of(pilot).table
        assert table.row is not None and table.row.name == "tally-cleanup"


async def test_W_says_so_when_nothing_waits(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    for name in ("currency", "cleanup"):
        activity.record(made.agents[name], "working", "claude", "UserPromptSubmit")
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        await pilot.pause()
        assert isinstance(pilot.app.screen, OverviewScreen)
        assert "Nothing waits on you." in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_approving_a_worktree_makes_its_row_ready_to_merge(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await go_to(pilot, "tally-currency")
        await pilot.press("enter")
        screen = await reviewing(pilot, made.agents["currency"])
        await pilot.press("S")
        await until(pilot, lambda: isinstance(pilot.app.screen, SendDialog))
        dialog = pilot.app.screen
        assert isinstance(dialog, SendDialog)
        while dialog.verdict != "approve":
            await pilot.press("ctrl+t")
        await pilot.press("ctrl+s", "o")  # back at once: the overview waits for the sending
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        assert screen.saving.waiting == 0
        await until(pilot, lambda: row_of(pilot, "tally-currency").review_state == "approved")
        await loaded(pilot)
        row = row_of(pilot, "tally-currency")
        assert row.waits_on == "nothing" and row.reason == "approved: ready to merge"
        rows = drawn(pilot)
        line = line_of(rows, "tally-currency")
        assert "approved" in line and "ready to merge" in line
        text = "\n".join(rows)
        assert text.index("Waiting on nothing") < text.index(line)
        assert overview_of(pilot).queue == [made.agents["cleanup"]]
        assert "1 ready to merge" in rows[0]


# -- nothing the reviewer wrote is lost --------------------------------------------------------


async def comment_on_first_line(pilot: Pilot, text: str) -> None:  # type: ignore[type-arg]
    view = pilot.app.screen.query_one(DiffView)
    await pilot.press("j", "j", "j")  # below the first file's header, onto a line of code
    assert view.selected() is not None
    await pilot.press("c")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommentEditor))
    pilot.app.screen.query_one("TextArea").insert(text)  # type: ignore[attr-defined]
    await pilot.press("ctrl+s")
    await pilot.pause()


def held_lock(path: Path):  # type: ignore[no-untyped-def]
    """The review's lock of the worktree at `path`, held as an agent's `review resolve` holds it."""
    import fcntl
    from contextlib import contextmanager

    @contextmanager
    def holding() -> Iterator[None]:
        Store(path).make_folder()
        fd = os.open(path / FOLDER / "lock", os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            os.close(fd)

    return holding()


async def test_quitting_while_a_comment_is_being_saved_waits_for_it(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    worktree = made.agents["cleanup"]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        screen = await reviewing(pilot, worktree)
        with held_lock(worktree):
            await comment_on_first_line(pilot, "Why this change?")
            assert screen.saving.waiting == 1
            await pilot.press("q")
            await pilot.pause(0.3)
            assert pilot.app.is_running and pilot.app.screen is screen  # no question: it is being saved
        await until(pilot, lambda: not pilot.app.is_running)
    assert [comment.body for comment in Store(worktree).read().comments] == ["Why this change?"]


async def test_going_back_while_a_comment_is_being_saved_waits_for_it(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    worktree = made.agents["cleanup"]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        screen = await reviewing(pilot, worktree)
        with held_lock(worktree):
            await comment_on_first_line(pilot, "Keep this")
            await pilot.press("o")
            await pilot.pause(0.3)
            assert pilot.app.screen is screen
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        assert [comment.body for comment in Store(worktree).read().comments] == ["Keep this"]
        await until(pilot, lambda: row_of(pilot, "tally-cleanup").review_state == "drafts")


async def test_leaving_a_review_whose_comment_cannot_be_saved_asks_first(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    worktree = made.agents["cleanup"]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        screen = await reviewing(pilot, worktree)
        (worktree / FOLDER / "review.json").write_bytes(b"{ broken")
        await comment_on_first_line(pilot, "Not lost")
        await until(pilot, lambda: screen.saving.stuck)
        await pilot.press("W")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("n")
        await pilot.pause()
        assert pilot.app.screen is screen
        await pilot.press("o")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(pilot.app.screen, OverviewScreen))
        assert "Not lost" in (worktree / FOLDER / "unsaved.md").read_text()


# -- keys --------------------------------------------------------------------------------------


async def test_the_overview_keys_are_in_the_footer_and_the_help(app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=WIDE, notifications=True) as pilot:
        await loaded(pilot)
        footer = drawn(pilot)[-1]
        assert "Review" in footer and "Next waiting" in footer and "Overview" not in footer
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        help_text = "\n".join(drawn(pilot))
        for binding_id in ("open_review", "next_waiting", "worktree_down", "quit"):
            assert binding_id in help_text


async def test_the_keys_can_be_remapped(made: Demo) -> None:
    from review.config import Config

    with Overview(made.repository) as overview:
        config = Config(keys={"next_waiting": "n", "open_review": "space"})
        app = make_overview_app(overview, config, watch=False, now=lambda: NOW)
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await loaded(pilot)
            await pilot.press("n")
            await reviewing(pilot, made.agents["cleanup"])


async def test_the_review_screen_keeps_the_way_back_in_sight_at_80_columns(made: Demo, app_of) -> None:  # type: ignore[no-untyped-def]
    async with app_of().run_test(size=NARROW, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("W")
        await reviewing(pilot, made.agents["cleanup"])
        footer = drawn(pilot)[-1]
        assert "o Overview" in footer and "q Quit" in footer


def test_short_names_drop_the_prefix_the_worktrees_share() -> None:
    rows = [Row(path=Path(f"/x/{name}"), name=name, branch=None, head=None) for name in ("tally", "tally-a", "tally-b")]
    assert short_names(rows) == {Path("/x/tally-a"): "a", Path("/x/tally-b"): "b"}
    assert short_names(rows[:2]) == {}  # one alone shares nothing


# -- how it looks ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["160x48", "80x24"])
def test_snapshot(snap_compare, app_of, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def ready(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await loaded(pilot)
        await go_to(pilot, "tally-currency")
        await loaded(pilot)

    assert snap_compare(app_of(), terminal_size=size, run_before=ready)
