"""The first screen of a review is drawn whole: the diff read while Textual started is shown by
the screen as it mounts, with its file list, header and syntax colours, not in later frames."""

from __future__ import annotations

from concurrent.futures import wait

from rich.segment import Segment

from conftest import Repo
from review.repo import git
from review.repo.scope import Scope
from review.state.opening import read_apart
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.review_header import ReviewHeader

SIZE = (100, 30)


async def test_a_diff_read_while_the_app_started_is_on_the_screen_as_it_mounts(agent_worktree: Repo) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope())
    wait([first[2]])
    async with make_app(worktree, watch=False, first=first).run_test(size=SIZE) as pilot:
        # nothing awaited: what the screen shows is what it had when it mounted
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.diff is not None and len(screen.diff.files) == 5
        assert not [worker for worker in screen.workers if worker.group == "load"]
        assert screen.files.cursor_node is not None and screen.files.cursor_node.data == 0
        header = screen.query_one(ReviewHeader).text
        assert "5 files" in header and f"+{screen.diff.added}" in header
        view = screen.query_one(DiffView)
        assert view.diff_layout is not None and view.diff_layout.total > 0


def _row_of(view: DiffView, text: str) -> int:
    layout = view.diff_layout
    assert layout is not None
    for index in range(layout.total):
        before, after = layout.lines_of(layout.row(index))
        line = after or before
        if line is not None and text in line.text:
            return index
    raise AssertionError(f"no row shows {text!r}")


async def test_a_row_has_its_syntax_colours_the_first_time_it_is_drawn(agent_worktree: Repo) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope())
    wait([first[2]])
    async with make_app(worktree, watch=False, first=first).run_test(size=SIZE) as pilot:
        view = pilot.app.screen.query_one(DiffView)
        index = _row_of(view, "def ")
        view.scroll_to(y=index, animate=False, immediate=True)
        segments: list[Segment] = list(view.render_line(index - view.scroll_offset.y))
        keyword = next(s for s in segments if s.text == "def")
        plain = view.get_component_rich_style("diff-view--context")
        # the keyword has a colour of its own, not the text's
        assert keyword.style is not None and keyword.style.color is not None
        assert keyword.style.color != plain.color
