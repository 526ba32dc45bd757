"""The scrollbars the diff and the file list draw themselves (`review.tui.scroll_bar`): where the
thumb is, read from what the compositor drew, and the mouse on it."""

from __future__ import annotations

import pytest
from textual import events
from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.tui.app import make_app
from review.tui.scroll_bar import Thumb, thumb
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

SIZE = (100, 30)


@pytest.fixture
def long_diff(project: Repo) -> Repo:
    """A worktree of 60 changed files, in folders: hundreds of rows of diff, and more files than
    the list shows."""
    for n in range(60):
        project.write(f"pkg{n % 6}/file_{n:02d}.txt", "".join(f"{line}\n" for line in range(1, 41)))
    project.commit("sixty files")
    agent = project.worktree("agent", "agent/long")
    for n in range(60):
        text = "".join(f"{'changed ' if line % 10 == 5 else ''}{line}\n" for line in range(1, 41))
        agent.write(f"pkg{n % 6}/file_{n:02d}.txt", text)
    return agent


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


def thumb_rows(pilot: Pilot, widget: DiffView | FileList, padding: int = 0) -> list[int]:  # type: ignore[type-arg]
    """The widget's rows (from its top) whose scrollbar cells, `padding` cells from its right
    edge, the compositor drew in the thumb's colour, read from the screenshot."""
    colour = widget.bar._current_looks().thumb.color
    assert colour is not None and colour.triplet is not None
    region = widget.region
    drawn = Drawn.of(pilot.app.export_screenshot())
    right = region.right - padding
    bar = range(right - widget.bar.width, right)
    return [row - region.y for row in drawn.rows_coloured(colour.triplet.hex, bar) if row in range(*region.line_span)]


# -- where the thumb is ------------------------------------------------------------------------


def test_there_is_no_thumb_when_every_row_is_shown() -> None:
    assert thumb(total=10, height=10, top=0) is None
    assert thumb(total=3, height=10, top=0) is None


def test_the_thumb_is_as_long_as_the_share_of_rows_shown_and_moves_to_the_bottom() -> None:
    assert thumb(total=40, height=10, top=0) == Thumb(0, 20)  # a quarter of 10 cells, in eighths
    assert thumb(total=40, height=10, top=30) == Thumb(60, 80)  # the last row shown: at the bottom
    assert thumb(total=40, height=10, top=15) == Thumb(30, 50)
    assert thumb(total=40, height=10, top=15).cells == range(3, 7)  # type: ignore[union-attr]


def test_a_huge_diff_keeps_a_thumb_of_one_cell() -> None:
    assert thumb(total=1_000_000, height=38, top=0) == Thumb(0, 8)
    assert thumb(total=1_000_000, height=38, top=1_000_000 - 38) == Thumb(37 * 8, 38 * 8)


# -- drawn, and moved by keys --------------------------------------------------------------------


async def test_the_diffs_thumb_is_drawn_in_its_last_columns_and_follows_the_keys(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        height = view.scrollable_content_region.height
        assert view.bar.shown()
        assert thumb_rows(pilot, view) == [0]
        # the rows leave the bar's columns alone
        assert view.render_line(0).cell_length == view.size.width
        assert view.diff_layout is not None and view.diff_layout.width == view.size.width - view.bar.width
        await pilot.press("G")
        await pilot.pause()
        assert thumb_rows(pilot, view) == [height - 1]
        await pilot.press("g")
        await pilot.pause()
        assert thumb_rows(pilot, view) == [0]


async def test_the_file_lists_thumb_is_drawn_before_its_padding_and_follows_its_cursor(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        assert files.bar.shown()
        top = thumb_rows(pilot, files, padding=1)
        assert top and top[0] == 0
        assert files.render_line(0).cell_length == files.size.width
        files.focus()
        await pilot.press("end")
        await pilot.pause()
        bottom = thumb_rows(pilot, files, padding=1)
        assert bottom and bottom[-1] == files.scrollable_content_region.height - 1


async def test_the_bar_measures_the_room_as_textual_does_with_and_without_a_sideways_scrollbar(
    agent_worktree: Repo,
) -> None:
    # (the bar reads the room from the sizes Textual keeps, not from the region it walks to the
    # screen for: both must agree, below a horizontal scrollbar too)
    async with app_for(agent_worktree).run_test(size=(80, 12)) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        files = pilot.app.screen.query_one(FileList)
        for wrapped in (False, True):
            assert view.show_horizontal_scrollbar is not wrapped  # the long line scrolls sideways
            for widget in (view, files):
                region = widget.scrollable_content_region
                assert widget.bar._room() == (region.width, region.height), widget
            view.focus()
            await pilot.press("w")
            await pilot.pause()


# -- the mouse --------------------------------------------------------------------------------


async def test_a_press_below_the_thumb_scrolls_a_page_and_leaves_the_cursor(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        height = view.scrollable_content_region.height
        cursor = view.cursor
        bar_x = view.size.width - 1
        await pilot.click(view, offset=(bar_x, height - 2))
        await pilot.pause()
        assert view.scroll_offset.y == height
        assert view.cursor == cursor  # a press on the bar is not on a row
        await pilot.press("G")
        await pilot.pause()
        bottom = view.scroll_offset.y
        await pilot.click(view, offset=(bar_x, 0))  # above the thumb, now at the bottom
        await pilot.pause()
        assert view.scroll_offset.y == bottom - height


async def test_dragging_the_thumb_scrolls_the_diff_as_far_as_the_mouse_went(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        height = view.scrollable_content_region.height
        bar_x = view.size.width - 1
        await pilot.mouse_down(view, offset=(bar_x, 0))
        await pilot.hover(view, offset=(bar_x, 3))
        await pilot.pause()
        expected = round(3 * view.virtual_size.height / height)
        assert abs(view.scroll_offset.y - expected) <= 1
        # the thumb drawn where the mouse holds it, in the colour of a held thumb
        held = view.bar._current_looks().thumb
        assert held.color is not None and held.color != view.bar._looks[""].thumb.color
        await pilot.hover(view, offset=(10, height - 1))  # dragged off the bar: it still follows
        await pilot.pause()
        assert view.scroll_offset.y == min(view.max_scroll_y, round((height - 1) * view.virtual_size.height / height))
        cursor = view.cursor
        await pilot.mouse_up(view, offset=(10, height - 1))
        # the click Textual makes of a press and a release on the same widget: no row is chosen
        await pilot._post_mouse_events([events.Click], view, offset=(10, height - 1))
        await pilot.pause()
        assert view.cursor == cursor


async def test_the_wheel_scrolls_the_diff_and_the_file_list(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        for widget in (pilot.app.screen.query_one(DiffView), pilot.app.screen.query_one(FileList)):
            await pilot._post_mouse_events([events.MouseScrollDown], widget, offset=(5, 5))
            await pilot.pause()
            assert widget.scroll_offset.y > 0, widget


async def test_a_click_on_a_file_still_shows_it_and_one_on_the_bar_pages(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        view = pilot.app.screen.query_one(DiffView)
        await pilot.click(files, offset=(4, 3))
        await pilot.pause()
        chosen = files.cursor_file
        assert chosen is not None and view.diff_layout is not None
        assert view.diff_layout.file_of(view.cursor) == chosen
        await pilot.click(files, offset=(files.size.width - 1, files.scrollable_content_region.height - 1))
        await pilot.pause()
        assert files.scroll_offset.y > 0
        assert files.cursor_file == chosen


async def test_the_bar_lights_up_under_the_mouse(long_diff: Repo) -> None:
    async with app_for(long_diff).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        plain = thumb_rows(pilot, view)
        await pilot.hover(view, offset=(view.size.width - 1, 5))
        await pilot.pause()
        lit = view.bar._current_looks().thumb.color
        assert lit is not None and lit.triplet is not None
        assert lit != view.bar._looks[""].thumb.color
        assert thumb_rows(pilot, view) == plain  # drawn in the lit colour, in the same place
        await pilot.hover(view, offset=(10, 5))
        await pilot.pause()
        assert view.bar._current_looks() == view.bar._looks[""]
