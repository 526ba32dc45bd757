"""The diff's and the file list's lines, styled once (`review.tui.kept_lines`): a line that moves
on the screen is the strip it was, and a change of the widget's looks styles every line again."""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.css.styles import Styles
from textual.geometry import Region, Size
from textual.strip import Strip

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.tui.app import make_app
from review.tui.kept_lines import KeptByLine
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

SIZE = (100, 30)


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


def tall(repo: Repo) -> None:
    repo.write("tall.py", "".join(f"value_{n} = {n}\n" for n in range(200)))


def lines_of(widget: DiffView | FileList) -> list[Strip]:
    """The widget's lines as the compositor is given them: styled and filtered."""
    region = widget.size.region
    return widget.render_lines(Region(0, 0, region.width, region.height))


async def test_a_line_that_moves_up_the_screen_is_the_strip_it_was(agent_worktree: Repo) -> None:
    tall(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        view.focus()
        view.go_to(20)
        await pilot.pause()
        before, top = lines_of(view), view.scroll_offset.y
        view.scroll_to(y=top + 3, animate=False)
        await pilot.pause()
        after = lines_of(view)
        # (the cursor's line and those beside the scrollbar's thumb, which moved, are others)
        same = [row for row in range(len(after) - 3) if after[row] is before[row + 3]]
        assert len(same) >= len(after) - 3 - 6
        bar = view.bar.width
        assert [line.text[:-bar] for line in after[:-3]] == [line.text[:-bar] for line in before[3:]]


def test_a_line_is_styled_once_for_the_same_looks_and_again_for_others() -> None:
    kept = KeptByLine()
    styles = Styles()
    styles.padding = (0, 2, 0, 0)  # (drawn in the widget's background)
    line = Strip([Segment("code")])
    black, red = Color(0, 0, 0), Color(200, 0, 0)

    def styled(background: Color, row: int = 0) -> Strip:
        kept.clear()  # (as the widget's refresh does: its rows are drawn again)
        return kept.render(styles, Size(6, 3), black, background, lambda y: line, [], None, None, Size(4, 3))[row]

    first = styled(black)
    assert styled(black, row=2) is first  # on another row
    on_red = styled(red)
    assert on_red is not first
    assert on_red.text == first.text == "code  "
    assert {segment.style for segment in on_red} != {segment.style for segment in first}


async def test_a_change_of_looks_styles_the_lines_again(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        view = pilot.app.screen.query_one(DiffView)
        view.focus()
        await pilot.pause()
        unfocused = Drawn.of(pilot.app.export_screenshot())
        files.focus()  # the focused list is tinted
        await pilot.pause()
        focused = Drawn.of(pilot.app.export_screenshot())
        region = files.region
        inside = range(region.x, region.right - 2)
        row = region.y + 3  # (a file's row, not the cursor's)
        assert focused.rows[row][region.x : region.right] == unfocused.rows[row][region.x : region.right]
        assert backgrounds(focused, row, inside) != backgrounds(unfocused, row, inside)


def backgrounds(drawn: Drawn, row: int, columns: range) -> set[str]:
    return {
        fill for fill, at, start, end in drawn.backgrounds if at == row and start < columns.stop and end > columns.start
    }
