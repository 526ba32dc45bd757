"""The cursor is drawn where it is: after every way of moving it, the one highlighted row on the
screen is the row that `c` comments on. Read from what was drawn, not from the view's state."""

from __future__ import annotations

from textual import events
from textual.pilot import Pilot
from textual.strip import Strip

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.state import comments
from review.state.store import Store
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.layout import RowKind
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

SIZE = (100, 30)


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


async def assert_cursor_drawn_on_its_row(pilot: Pilot) -> str:  # type: ignore[type-arg]
    """The highlighted rows of the diff are exactly the cursor's; returns that row's text."""
    await pilot.pause()
    view = pilot.app.screen.query_one(DiffView)
    colour = view.get_component_rich_style("diff-view--cursor").bgcolor
    assert colour is not None
    drawn = Drawn.of(pilot.app.export_screenshot())
    region = view.content_region
    columns = range(region.x, region.right)
    highlighted = [row for row in drawn.rows_coloured(colour.triplet.hex, columns) if region.y <= row < region.bottom]  # type: ignore[union-attr]
    expected = region.y + view.cursor - view.scroll_offset.y
    assert highlighted == [expected], f"cursor at screen row {expected}, drawn on {highlighted}"
    return drawn.rows[expected][region.x : region.right]


def tall(repo: Repo) -> None:
    repo.write("tall.py", "".join(f"value_{n} = {n}\n" for n in range(1, 120)))


async def test_after_bottom_and_three_lines_up_the_cursor_is_drawn_on_the_line_c_comments_on(
    agent_worktree: Repo,
) -> None:
    tall(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("G")
        await assert_cursor_drawn_on_its_row(pilot)
        await pilot.press("k", "k", "k")
        text = await assert_cursor_drawn_on_its_row(pilot)
        view = pilot.app.screen.query_one(DiffView)
        chosen = view.selected()
        assert chosen is not None
        assert chosen.text[0] in text
        await pilot.press("c")
        await pilot.pause()
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor)
        assert f":{chosen.first}" in editor.title_text


async def test_the_cursor_is_drawn_where_it_is_after_paging_and_moving(agent_worktree: Repo) -> None:
    tall(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("space", "j", "j", "space", "k", "b", "j"):
            await pilot.press(key)
            await assert_cursor_drawn_on_its_row(pilot)


async def test_the_cursor_is_drawn_where_it_is_after_the_wheel_scrolled_and_a_key_moved_it(
    agent_worktree: Repo,
) -> None:
    tall(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        for _ in range(5):
            view.post_message(events.MouseScrollDown(view, 10, 10, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert view.scroll_offset.y > 0
        await pilot.press("j")
        await assert_cursor_drawn_on_its_row(pilot)
        await pilot.press("k", "k")
        await assert_cursor_drawn_on_its_row(pilot)


async def test_in_a_short_diff_next_file_draws_the_cursor_on_the_file_header(project: Repo) -> None:
    # short enough that the whole diff is on screen: `}` moves the cursor without scrolling
    project.write("README.md", "# project\nmore\n")
    project.write("src/util.py", "def helper():\n    return 2\n")
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        await pilot.press("j", "j")
        await pilot.press("right_curly_bracket")
        assert view.scroll_offset.y == 0
        text = await assert_cursor_drawn_on_its_row(pilot)
        assert "src/util.py" in text
        await pilot.press("left_curly_bracket")
        text = await assert_cursor_drawn_on_its_row(pilot)
        assert "README.md" in text


async def test_next_comment_draws_the_cursor_on_the_comment(agent_worktree: Repo) -> None:
    tall(agent_worktree)
    store = Store(agent_worktree.root)
    lines = (agent_worktree.root / "tall.py").read_text().splitlines()
    for line in (3, 12, 100):
        comments.add(
            store, comments.Where(path="tall.py", line=line, end_line=line), f"look at {line}", "should", lines
        )
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        text = await assert_cursor_drawn_on_its_row(pilot)
        assert "look at 3" in text or "c1" in text
        for key in ("n", "n", "N", "N"):
            await pilot.press(key)
            await assert_cursor_drawn_on_its_row(pilot)


async def test_the_screen_the_next_comment_is_on_is_drawn_while_the_reviewer_reads(agent_worktree: Repo) -> None:
    # n mostly leads far: its rows are drawn ahead once the reviewer pauses, and the key only
    # puts them on the screen (with the cursor drawn on the comment all the same)
    tall(agent_worktree)
    store = Store(agent_worktree.root)
    lines = (agent_worktree.root / "tall.py").read_text().splitlines()
    comments.add(store, comments.Where(path="tall.py", line=100, end_line=100), "look at 100", "should", lines)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = pilot.app.screen.query_one(DiffView)
        await pilot.pause(0.5)  # the reviewer reads
        found, styled = view._strips.hits, styled_lines(view)
        await pilot.press("n")
        layout = view.diff_layout
        assert layout is not None
        top, height = view.scroll_offset.y, view.scrollable_content_region.height
        assert top > height  # it did go far
        shown = [layout.row(index) for index in range(top, min(top + height, layout.total))]
        assert view._strips.hits - found >= sum(row.kind is not RowKind.COMMENT for row in shown)
        # and styled as Textual styles them: all but the cursor's line, drawn over where it landed
        assert [line.text for line in lines_shown(view) if id(line) not in styled] == [shown_cursor(view)]
        assert "line 100" in await assert_cursor_drawn_on_its_row(pilot)


async def test_the_file_list_is_drawn_where_the_next_comment_takes_it(agent_worktree: Repo) -> None:
    # a comment in a file far down a long list: the list's lines there are drawn ahead too
    for n in range(60):
        agent_worktree.write(f"many/file_{n:02}.py", f"value = {n}\n")
    store = Store(agent_worktree.root)
    comments.add(store, comments.Where(path="many/file_59.py", line=1, end_line=1), "and here", "nit", ["value = 59"])
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        await pilot.pause(0.5)  # the reviewer reads
        drawn, styled = files._strips.misses, styled_lines(files)
        await pilot.press("n")
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen) and screen.diff is not None
        assert files.cursor_file is not None and screen.diff.files[files.cursor_file].path == "many/file_59.py"
        assert files.scroll_offset.y > 0  # it did scroll
        assert files._strips.misses == drawn  # every row it shows was drawn before the key
        # and styled, but for the cursor's
        assert [line.text for line in lines_shown(files) if id(line) not in styled] == [shown_cursor(files)]


def styled_lines(widget: DiffView | FileList) -> dict[int, tuple[Strip, Strip]]:
    """The lines `widget` has styled as Textual will draw them (`KeptByLine`), by id. The lines
    are held too: once the cache lets one go, a line made later could be given its id."""
    return {key: link[3] for key, link in widget._kept._styled._cache.items()}  # (read without reordering)


def lines_shown(widget: DiffView | FileList) -> list[Strip]:
    """The lines `widget` now shows, as it gives them to Textual to style."""
    return [widget.bar.beside(widget.line(y), y) for y in range(widget.scrollable_content_region.height)]


def shown_cursor(widget: DiffView | FileList) -> str:
    """The text of the line the cursor of `widget` is on."""
    if isinstance(widget, DiffView):
        row = widget.cursor - widget.scroll_offset.y
    else:
        row = widget._row_of(widget._cursor) - widget.scroll_offset.y
    return widget.bar.beside(widget.line(row), row).text
