"""Pilot tests of the file list: its tree of folders, the cursor, folding, the mouse, and the list
kept as the diff is read again."""

from __future__ import annotations

from textual.pilot import Pilot

from conftest import Repo, settle, until_seen
from review.repo import git
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

SIZE = (100, 30)


def app_for(repo: Repo, watch: bool = False):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=watch)


def shown(pilot: Pilot) -> list[str]:  # type: ignore[type-arg]
    """The list's rows as drawn, without the blank ones below them."""
    files = pilot.app.screen.query_one(FileList)
    rows = [files.render_line(y).text.rstrip() for y in range(files.scrollable_content_region.height)]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def cursor_row(pilot: Pilot) -> str:  # type: ignore[type-arg]
    files = pilot.app.screen.query_one(FileList)
    return files.render_line(files._row_of(files._cursor) - files.scroll_offset.y).text.rstrip()


def path_in_view(pilot: Pilot) -> str:  # type: ignore[type-arg]
    """The path of the file under the diff view's cursor."""
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.diff is not None
    layout = screen.query_one(DiffView).diff_layout
    assert layout is not None
    return screen.diff.files[layout.file_of(screen.query_one(DiffView).cursor)].path


def nested(repo: Repo) -> None:
    repo.write("lib/review/tui/app.py", "app = 1\n")
    repo.write("lib/review/tui/view.py", "view = 1\n")
    repo.write("lib/review/core.py", "core = 1\n")
    repo.write("tests/test_core.py", "test = 1\n")
    repo.write("NOTES.md", "notes\n")


async def test_the_files_are_a_tree_of_folders_in_the_diffs_order(project: Repo) -> None:
    nested(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(pilot) == [
            "A NOTES.md +1 −0",
            "▼ lib/review/",  # a folder holding one folder reads as one
            "├ A core.py +1 −0",
            "└ ▼ tui/",
            "  ├ A app.py +1 −0",
            "  └ A view.py +1 −0",
            "▼ tests/",
            "└ A test_core.py +1 −0",
        ]
        assert cursor_row(pilot) == "A NOTES.md +1 −0"


async def test_folders_fold_and_unfold_from_the_keys(project: Repo) -> None:
    nested(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        await pilot.press("tab", "j", "j", "j")
        assert files.has_focus and cursor_row(pilot) == "└ ▼ tui/"
        await pilot.press("space")
        assert shown(pilot)[1:5] == ["▼ lib/review/", "├ A core.py +1 −0", "└ ▶ tui/", "▼ tests/"]
        assert cursor_row(pilot) == "└ ▶ tui/"
        await pilot.press("enter")  # on a folder, enter folds and unfolds too
        assert "  ├ A app.py +1 −0" in shown(pilot)
        await pilot.press("j", "left")  # from a file to its folder
        assert cursor_row(pilot) == "└ ▼ tui/"
        await pilot.press("left")  # and the folder folds
        assert cursor_row(pilot) == "└ ▶ tui/" and len(shown(pilot)) == 6
        await pilot.press("right")
        assert len(shown(pilot)) == 8
        await pilot.press("end")
        assert cursor_row(pilot) == "└ A test_core.py +1 −0"
        await pilot.press("home")
        assert cursor_row(pilot) == "A NOTES.md +1 −0"


async def test_enter_on_a_file_shows_it_and_the_diff_follows_in_the_list(project: Repo) -> None:
    nested(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "down", "down", "down", "down", "enter")
        assert pilot.app.screen.query_one(DiffView).has_focus
        assert path_in_view(pilot) == "lib/review/tui/app.py"
        await pilot.press("right_curly_bracket")  # the next file, in the diff
        assert cursor_row(pilot) == "  └ A view.py +1 −0"


async def test_a_file_in_a_folded_folder_unfolds_it_when_the_diff_goes_there(project: Repo) -> None:
    nested(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "j", "space", "tab")  # lib/review/ folded
        assert len(shown(pilot)) == 4
        await pilot.press("right_curly_bracket")
        assert len(shown(pilot)) == 8
        assert cursor_row(pilot) == "├ A core.py +1 −0"


async def test_the_mouse_chooses_a_file_and_folds_a_folder(project: Repo) -> None:
    nested(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert await pilot.click(FileList, offset=(4, 7))  # test_core.py
        assert path_in_view(pilot) == "tests/test_core.py"
        assert await pilot.click(FileList, offset=(4, 3))  # tui/
        assert shown(pilot)[3:5] == ["└ ▶ tui/", "▼ tests/"]


async def test_a_folded_folder_stays_folded_as_the_agent_writes(project: Repo) -> None:
    nested(project)
    async with app_for(project, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "j", "j", "j", "space")
        assert shown(pilot)[3] == "└ ▶ tui/"

        def write() -> None:
            project.write("lib/review/core.py", "core = 1\ncore = 2\n")
            project.write("lib/review/new.py", "new = 1\n")

        await until_seen(pilot, write, lambda: "new.py" in " ".join(shown(pilot)))
        assert shown(pilot)[1:6] == [
            "▼ lib/review/",
            "├ A core.py +2 −0",
            "├ A new.py +1 −0",
            "└ ▶ tui/",
            "▼ tests/",
        ]


async def test_the_folder_folded_over_the_file_being_read_stays_folded_as_the_agent_writes(project: Repo) -> None:
    nested(project)
    async with app_for(project, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right_curly_bracket", "right_curly_bracket")
        assert path_in_view(pilot) == "lib/review/tui/app.py"
        await pilot.press("tab", "left", "left")  # to its folder, folded
        assert cursor_row(pilot) == "└ ▶ tui/"
        await pilot.press("tab")  # back to the diff, reading on in the folded folder

        def write() -> None:
            project.write("lib/review/tui/new.py", "new = 1\n")  # a file more: the list is made anew

        await until_seen(pilot, write, lambda: len(files_in(pilot)) == 6)
        assert shown(pilot)[3:5] == ["└ ▶ tui/", "▼ tests/"]
        assert cursor_row(pilot) == "└ ▶ tui/"  # the cursor on the folder the file is in
        assert path_in_view(pilot) == "lib/review/tui/app.py"


def files_in(pilot: Pilot) -> list[str]:  # type: ignore[type-arg]
    """The paths of the diff shown."""
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.diff is not None
    return [file.path for file in screen.diff.files]


async def test_many_files_scroll_with_the_cursor(project: Repo) -> None:
    for n in range(80):
        project.write(f"many/file_{n:02}.py", f"value = {n}\n")
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one(FileList)
        await pilot.press("tab", "pagedown", "pagedown")
        assert files.scroll_offset.y > 0
        assert cursor_row(pilot) in shown(pilot)
        await pilot.press("end")
        assert shown(pilot)[-1] == cursor_row(pilot) == "└ A file_79.py +1 −0"
        assert files.max_scroll_y == 81 - files.scrollable_content_region.height
