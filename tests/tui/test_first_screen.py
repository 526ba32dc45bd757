"""The first screen of a review is drawn whole: the diff read while Textual started is shown by
the screen as it mounts, with its file list, header and syntax colours, not in later frames."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import wait
from pathlib import Path

import pytest
from rich.segment import Segment

from conftest import Repo
from review.config import Config
from review.errors import BadRevision, NotARepository
from review.repo import git, highlight, scope
from review.repo.scope import Scope
from review.state.opening import open_apart, read_apart
from review.tui.app import make_app
from review.tui.first_frame import show_scrollbars, size_to_come
from review.tui.layout import unified_gutter
from review.tui.screens import review_screen
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets import diff_view
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.review_header import ReviewHeader

SIZE = (100, 30)


async def test_a_diff_read_while_the_app_started_is_on_the_screen_as_it_mounts(agent_worktree: Repo) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope())
    wait([first.anchoring])
    async with make_app(worktree, watch=False, first=first).run_test(size=SIZE) as pilot:
        # nothing awaited: what the screen shows is what it had when it mounted
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.diff is not None and len(screen.diff.files) == 5
        assert not [worker for worker in screen.workers if worker.group == "load"]
        assert screen.files.cursor_file == 0
        header = screen.query_one(ReviewHeader).text
        assert "5 files" in header and f"+{screen.diff.added}" in header
        view = screen.query_one(DiffView)
        assert view.diff_layout is not None and view.diff_layout.total > 0


async def test_the_worktree_is_found_and_its_diff_read_from_a_path_inside_it_while_the_app_starts(
    agent_worktree: Repo,
) -> None:
    # as `review src` opens it: the git commands that find the worktree and resolve the scope
    # run in a thread, alongside the imports
    worktree, first = open_apart(str(agent_worktree.root / "src"), Scope()).result()
    assert worktree.root == agent_worktree.root and worktree.branch == "agent/work"
    wait([first.anchoring])
    async with make_app(worktree, watch=False, first=first).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.diff is not None and [file.path for file in screen.diff.files] == [
            file.path for file in first.reading.result().files
        ]
        assert "docs/guide.md" in {file.path for file in screen.diff.files}


def test_a_path_outside_a_repository_or_a_bad_revision_is_raised_where_the_opening_is_taken(
    agent_worktree: Repo, tmp_path: Path
) -> None:
    # raised by `result()`, which `review` calls before the screen is taken over: one line
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(NotARepository, match="is not inside a git repository"):
        open_apart(str(elsewhere), Scope()).result()
    with pytest.raises(BadRevision, match="unknown revision 'nope'"):
        open_apart(str(agent_worktree.root), Scope(range="nope..HEAD")).result()


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
    wait([first.anchoring])
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


@pytest.mark.parametrize("split", [False, True], ids=["unified", "split"])
async def test_a_first_opening_draws_its_colours_with_no_lexer_compiled_in_the_viewer(
    agent_worktree: Repo, split: bool, coloured_apart: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing remembered: the colours of the first screen are made in a child process while the
    # viewer starts (`colouring`), and its first frame asks for no others
    monkeypatch.setattr(review_screen, "COLOURS_WAIT", 60.0)  # (niced, on a loaded machine)
    asked: list[str] = []
    lexed: list[str] = []
    lex, colour = highlight._lex, diff_view.highlight
    monkeypatch.setattr(diff_view, "highlight", lambda path, lines: (asked.append(path), colour(path, lines))[1])
    monkeypatch.setattr(highlight, "_lex", lambda path, *rest: (lexed.append(path), lex(path, *rest))[1])
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope(), from_counts=not split)
    wait([first.anchoring])
    async with make_app(worktree, Scope(), Config(split=split), watch=False, first=first).run_test(size=SIZE):
        # nothing awaited: the first frame is drawn
        assert asked and lexed == []


def _agent_with_a_line_of(agent_worktree: Repo, cells: int) -> None:
    agent_worktree.write("long.txt", "x" * cells + "\n")


@pytest.mark.parametrize(
    ("size", "split", "files_shown"),
    [((120, 40), False, True), ((120, 40), True, True), ((120, 40), False, False), ((50, 25), False, True)],
    ids=["wide", "split", "no file list", "compact"],
)
async def test_the_diff_and_the_file_list_are_measured_as_the_screen_will_lay_them_out(
    agent_worktree: Repo, size: tuple[int, int], split: bool, files_shown: bool
) -> None:
    # What the first frame is drawn from, worked out before the screen is laid out, is what the
    # layout gives: so no scrollbar comes, and no row moves, in a second frame.
    async with make_app(git.find_worktree(agent_worktree.root), config=Config(split=split), watch=False).run_test(
        size=size
    ) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        if not files_shown:
            await pilot.press("f")
            await pilot.pause()
        for widget in (screen.view, screen.files):
            if not widget.display:
                continue
            assert size_to_come(widget) == widget.container_size
            shown = (widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar)
            show_scrollbars(widget, widget.container_size)
            assert (widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar) == shown


async def test_a_diff_whose_lines_fit_has_no_horizontal_scrollbar(agent_worktree: Repo) -> None:
    # At 120 columns the text area beside the file list is 88 cells wide, less the line
    # numbers: a line that long fits. (The diff was once laid out 80 cells wide before its size
    # was known, and then had a horizontal scrollbar for the cells past 80.)
    fits = 88 - unified_gutter(3)
    _agent_with_a_line_of(agent_worktree, fits)
    async with make_app(git.find_worktree(agent_worktree.root), watch=False).run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = pilot.app.screen.query_one(DiffView)
        assert view.diff_layout is not None
        assert view.diff_layout.width == 88  # beside the diff's own scrollbar, two cells wide
        assert view.diff_layout.widest == fits
        assert (view.max_scroll_x, view.show_horizontal_scrollbar) == (0, False)


_DIALOGS_IMPORTED = """
import asyncio, sys, time
from review.repo import git
from review.tui.app import make_app

EDITOR = "review.tui.dialogs.comment_editor"

async def main() -> None:
    async with make_app(git.find_worktree(sys.argv[1]), watch=False).run_test(size=(100, 30)) as pilot:
        print(EDITOR in sys.modules)
        until = time.monotonic() + 20
        while EDITOR not in sys.modules and time.monotonic() < until:
            await pilot.pause(0.05)
        print(EDITOR in sys.modules)

asyncio.run(main())
"""


def test_the_dialogs_are_imported_after_the_first_screen_not_before(agent_worktree: Repo) -> None:
    # (a fresh Python: this one has imported them for other tests)
    done = subprocess.run(
        [sys.executable, "-c", _DIALOGS_IMPORTED, str(agent_worktree.root)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


async def test_a_first_opening_read_in_parts_shows_the_whole_diff(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # many files, nothing remembered: git reads the diff in parts, a git to each (`scope.read`)
    monkeypatch.setattr(scope, "PARTS_FROM", 4)
    monkeypatch.setattr(scope, "PARTS_FROM_BYTES", 100)
    monkeypatch.setattr(scope, "_cores", lambda: 2)
    for n in range(6):
        agent_worktree.write(f"more/file_{n}.py", f"value_{n} = {n}\n")
    worktree = git.find_worktree(agent_worktree.root)
    whole = scope.read(worktree, scope.resolve(worktree, Scope()))
    first = read_apart(worktree, Scope())
    wait([first.anchoring])
    diff = first.reading.result()
    assert len({id(file._output) for file in diff.files}) == 2
    async with make_app(worktree, watch=False, first=first).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen) and screen.diff is diff
        header = screen.query_one(ReviewHeader).text
        assert f"{len(whole.files)} files" in header and f"+{whole.added} −{whole.removed}" in header
        assert [f.record for f in diff.files] == [f.record for f in whole.files]
        await pilot.press("G")  # to the last part's last line
        await pilot.pause()
        view = screen.query_one(DiffView)
        shown = [view.render_line(y).text for y in range(view.size.height)]
        last = whole.files[-1].hunks[-1].lines[-1].text
        assert last and any(last in line for line in shown)
