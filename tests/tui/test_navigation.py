"""Pilot tests of the diff viewer: every navigation key and toggle."""

from __future__ import annotations

from textual import events
from textual.pilot import Pilot

from conftest import Repo, settle, until_seen
from drawn import Drawn
from review.config import Config
from review.repo import git
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.layout import Place, RowKind
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

SIZE = (100, 30)


def app_for(repo: Repo, config: Config | None = None, watch: bool = False):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), config=config, watch=watch)


def view_of(pilot: Pilot) -> DiffView:  # type: ignore[type-arg]
    return pilot.app.screen.query_one(DiffView)


def kind_at_cursor(view: DiffView) -> RowKind:
    assert view.diff_layout is not None
    return view.diff_layout.row(view.cursor).kind


def path_at_cursor(view: DiffView) -> str:
    assert view.diff_layout is not None
    return view.diff_layout.diff.files[view.diff_layout.file_of(view.cursor)].path


async def test_opens_on_the_first_file_with_every_file_listed(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.diff is not None
        assert [f.path for f in screen.diff.files] == [
            "docs/guide.md",
            "image.bin",
            "long.txt",
            "src/app.py",
            "src/util.py",
        ]
        view = view_of(pilot)
        assert view.cursor == 0 and kind_at_cursor(view) is RowKind.FILE


async def test_j_and_k_and_arrows_move_one_row(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("j", "j", "down")
        assert view.cursor == 3
        await pilot.press("k", "up")
        assert view.cursor == 1
        await pilot.press("k", "k", "k")
        assert view.cursor == 0


async def test_page_keys_move_a_screen_and_keep_the_cursor_height(agent_worktree: Repo) -> None:
    agent_worktree.write("tall.txt", "".join(f"{n}\n" for n in range(200)))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("j", "j")
        await pilot.pause()
        # a page is the height once the first screen is drawn: a long line found while drawing
        # it brings the horizontal scrollbar, one row less
        height = view.scrollable_content_region.height
        await pilot.press("space")
        assert (view.scroll_offset.y, view.cursor) == (height, height + 2)
        await pilot.press("pagedown")
        assert view.scroll_offset.y == 2 * height
        await pilot.press("b")
        assert (view.scroll_offset.y, view.cursor) == (height, height + 2)
        await pilot.press("pageup")
        assert (view.scroll_offset.y, view.cursor) == (0, 2)


async def test_g_and_capital_g_go_to_top_and_bottom(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("G")
        assert view.diff_layout is not None
        assert view.cursor == view.diff_layout.total - 1
        assert view.scroll_offset.y > 0
        await pilot.press("g")
        assert (view.cursor, view.scroll_offset.y) == (0, 0)
        await pilot.press("end")
        assert view.cursor == view.diff_layout.total - 1
        await pilot.press("home")
        assert view.cursor == 0


async def test_brackets_go_to_next_and_previous_hunk_across_files(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        seen = []
        for _ in range(7):
            await pilot.press("right_square_bracket")
            assert kind_at_cursor(view) is RowKind.HUNK
            # the hunk is brought to the top, as far as the diff can scroll
            assert view.scroll_offset.y == min(view.cursor, view.max_scroll_y)
            seen.append((path_at_cursor(view), view.cursor))
        # guide (1), long.txt (1), app.py (3), util.py (1): the seventh press stays on the last
        assert [path for path, _ in seen[:6]] == ["docs/guide.md", "long.txt", *["src/app.py"] * 3, "src/util.py"]
        assert seen[6] == seen[5]
        await pilot.press("left_square_bracket")
        assert view.cursor == seen[4][1]


async def test_braces_go_to_next_and_previous_file(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("right_curly_bracket", "right_curly_bracket")
        assert (kind_at_cursor(view), path_at_cursor(view)) == (RowKind.FILE, "long.txt")
        await pilot.press("j", "left_curly_bracket")
        assert (kind_at_cursor(view), path_at_cursor(view)) == (RowKind.FILE, "long.txt")
        await pilot.press("left_curly_bracket")
        assert path_at_cursor(view) == "image.bin"


async def test_s_toggles_split_and_stays_on_the_same_line(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        target = view.diff_layout.find(Place("src/app.py", new=30))
        assert target is not None
        view.go_to(target)
        screen_row = view.cursor - view.scroll_offset.y
        await pilot.press("s")
        assert view.split
        assert view.diff_layout.split
        place = view.diff_layout.place(view.cursor)
        assert (place.path, place.new, place.old) == ("src/app.py", 30, 30)
        assert view.cursor - view.scroll_offset.y == screen_row
        await pilot.press("s")
        assert not view.split
        assert view.diff_layout.place(view.cursor).new == 30


async def test_w_wraps_long_lines_and_h_l_scroll_sideways(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        unwrapped = view.diff_layout.total
        await pilot.press("l", "l", "right")
        assert view.scroll_offset.x == 24
        await pilot.press("h")
        assert view.scroll_offset.x == 16
        await pilot.press("w")
        assert view.wrap and view.scroll_offset.x == 0
        assert view.diff_layout.total > unwrapped
        await pilot.press("w")
        assert view.diff_layout.total == unwrapped


async def test_tab_focuses_the_file_list_and_enter_shows_the_file(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        files = pilot.app.screen.query_one("#files")
        await pilot.press("tab")
        assert files.has_focus
        await pilot.press("down", "down", "down", "down", "enter")
        assert view.has_focus
        assert (kind_at_cursor(view), path_at_cursor(view)) == (RowKind.FILE, "src/app.py")
        await pilot.press("tab", "tab")
        assert view.has_focus


async def test_moving_through_the_diff_follows_in_the_file_list(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        files = pilot.app.screen.query_one("#files")
        await pilot.press("right_curly_bracket", "right_curly_bracket", "right_curly_bracket")
        await pilot.pause()
        assert isinstance(files, FileList) and files.cursor_file == 3


async def test_clicking_a_line_puts_the_cursor_there(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.click(DiffView, offset=(10, 4))
        assert view.cursor == 4


async def test_the_mouse_wheel_scrolls_and_keys_continue_from_the_screen(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        for _ in range(5):  # what the terminal sends for a turn of the wheel over the diff
            view.post_message(events.MouseScrollDown(view, 10, 4, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert view.scroll_offset.y > 0
        top = view.scroll_offset.y
        await pilot.press("j")
        assert view.cursor == top + 1


async def test_search_finds_lines_and_n_goes_to_the_next_match(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("slash")
        await pilot.press(*"doubled")
        await pilot.press("enter")
        assert view.has_focus
        assert view.diff_layout is not None
        first = view.diff_layout.place(view.cursor)
        assert first.path == "src/app.py" and first.new == 5
        await pilot.press("n")
        assert view.diff_layout.place(view.cursor).new == 30
        await pilot.press("N")
        assert view.diff_layout.place(view.cursor).new == 5
        await pilot.press("escape")
        assert view.pattern is None


def header_of(pilot: Pilot) -> str:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot()).rows[0]


async def test_search_is_smart_case_and_the_header_says_which_match_of_how_many(agent_worktree: Repo) -> None:
    agent_worktree.write("notes.txt", "Total\nsubtotal\nTOTAL\nnone\n")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("slash", *"total", "enter")  # lower case: any case
        assert "match 1/3" in header_of(pilot)
        await pilot.press("n")
        assert "match 2/3" in header_of(pilot)
        await pilot.press("n")
        assert "match 3/3" in header_of(pilot)
        await pilot.press("N", "N")
        assert "match 1/3" in header_of(pilot)
        await pilot.press("escape")
        assert "match" not in header_of(pilot)
        await pilot.press("slash", *"TOTAL", "enter")  # a capital: that case only
        assert "match 1/1" in header_of(pilot)
        assert view.diff_layout is not None and view.diff_layout.place(view.cursor).new == 3


async def test_a_search_goes_into_a_file_folded_as_viewed_and_unfolds_it(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        view.go_to_file(next(i for i, f in enumerate(view.diff_layout.diff.files) if f.path == "src/app.py"))
        await pilot.press("x")  # viewed: folded to its header
        await pilot.press("g")
        await pilot.pause()
        assert "doubled" not in "\n".join(Drawn.of(pilot.app.export_screenshot()).rows)
        await pilot.press("slash", *"doubled", "enter")
        await pilot.pause()
        assert "match 1/3" in header_of(pilot)
        place = view.diff_layout.place(view.cursor)
        assert (place.path, place.new) == ("src/app.py", 5)
        assert view.viewed == {"src/app.py"}  # unfolded, still viewed
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        assert any("value_5 = 5 * 2  # doubled" in row for row in rows)
        await pilot.press("n")
        assert "match 2/3" in header_of(pilot)
        assert view.diff_layout.place(view.cursor).new == 30


async def test_a_search_that_finds_nothing_says_so(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzzz", "enter")
        await pilot.pause()
        assert "Not found" in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_a_search_that_looks_like_markup_is_said_as_typed(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("slash", "left_square_bracket", "slash", "right_square_bracket", "enter")
        await pilot.pause()
        assert "Not found: [/]" in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_z_shows_more_context_around_the_hunk(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen) and screen.diff is not None and view.diff_layout is not None
        view.go_to(view.diff_layout.find(Place("src/app.py", new=30)) or 0)
        before = sum(len(h.lines) for h in screen.diff.files[3].hunks)
        await pilot.press("z")
        after = screen.diff.files[3].hunks
        assert sum(len(h.lines) for h in after) > before
        assert view.diff_layout.place(view.cursor).new == 30


async def test_x_marks_a_file_viewed_folds_it_and_it_stays_viewed(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("x")
        assert "docs/guide.md" in view.viewed
        assert path_at_cursor(view) == "image.bin"
        assert view.diff_layout is not None
        assert [view.diff_layout.row(i).kind for i in range(2)] == [RowKind.FILE, RowKind.GAP]
    assert (agent_worktree.root / ".review" / "review.json").exists()
    assert agent_worktree.git("status", "--porcelain", "--", ".review") == ""
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert view_of(pilot).viewed == {"docs/guide.md"}
    agent_worktree.write("docs/guide.md", "# Guide\n\nChanged after it was viewed.\n")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert view_of(pilot).viewed == set()


async def test_x_again_unmarks_the_file(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("x", "g", "x")
        assert view.viewed == set()
        assert view.diff_layout is not None and view.diff_layout.row(1).kind is RowKind.HUNK


async def test_enter_folds_and_unfolds_a_file(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        total = view.diff_layout.total
        await pilot.press("enter")
        assert view.diff_layout.total < total
        await pilot.press("enter")
        assert view.diff_layout.total == total


async def test_a_large_file_is_one_line_until_enter(project: Repo) -> None:
    project.write("big.txt", "".join(f"line {n}\n" for n in range(20_050)))
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        assert view.diff_layout.total == 3
        await pilot.press("j")
        assert kind_at_cursor(view) is RowKind.NOTE
        await pilot.press("enter")
        assert view.diff_layout.total > 20_000


async def test_question_mark_lists_every_binding(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        from review.tui.screens.help_screen import HelpScreen

        assert isinstance(pilot.app.screen, HelpScreen)
        text = str(pilot.app.screen.text())
        for binding_id in (
            "next_hunk",
            "previous_file",
            "toggle_split",
            "toggle_viewed",
            "more_context",
            "search",
            "help",
            "quit",
        ):
            assert binding_id in text
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, ReviewScreen)


async def test_question_mark_shows_the_worktrees_path_and_scrolls_with_the_viewers_keys(agent_worktree: Repo) -> None:
    from textual.containers import VerticalScroll

    async with app_for(agent_worktree).run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        # (a long path folds at the box's edge, onto the next row)
        inside = "".join(row.split("│")[-2].strip() for row in rows if row.count("│") >= 2)
        assert str(agent_worktree.root) in inside
        scroller = pilot.app.screen.query_one(VerticalScroll)
        assert scroller.max_scroll_y > 0  # the list is taller than the box
        await pilot.press("j", "j")
        assert scroller.scroll_offset.y == 2
        await pilot.press("k")
        assert scroller.scroll_offset.y == 1
        await pilot.press("G")
        assert scroller.scroll_offset.y == scroller.max_scroll_y
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        assert any('next_hunk = "ctrl+n"' in row for row in rows)  # the last line is on screen
        await pilot.press("g")
        assert scroller.scroll_offset.y == 0
        await pilot.press("space")
        assert scroller.scroll_offset.y > 2


async def test_keys_can_be_remapped_in_the_config(agent_worktree: Repo) -> None:
    config = Config(keys={"next_hunk": "ctrl+n"})
    async with app_for(agent_worktree, config).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("ctrl+n")
        assert kind_at_cursor(view) is RowKind.HUNK
        await pilot.press("q")


async def test_q_quits(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        assert pilot.app.return_code == 0  # set as the app exits


async def test_the_view_follows_the_agent_edits(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        view.go_to(view.diff_layout.find(Place("src/app.py", new=30)) or 0)
        lines = (agent_worktree.root / "src/app.py").read_text().splitlines(keepends=True)

        def edit() -> None:
            agent_worktree.write("src/app.py", "# a new first line\n" + "".join(lines))
            agent_worktree.write("fresh.py", "print('new')\n")

        await until_seen(
            pilot, edit, lambda: view.diff_layout is not None and view.diff_layout.diff.file("fresh.py") is not None
        )
        place = view.diff_layout.place(view.cursor)
        assert place.path == "src/app.py"
        assert place.new == 31  # the same line of code, one lower


async def test_a_viewed_file_that_the_agent_changes_loses_its_mark(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("x")
        assert view.viewed == {"docs/guide.md"}
        await until_seen(
            pilot,
            lambda: agent_worktree.write("docs/guide.md", "# Guide\n\nRewritten by the agent.\n"),
            lambda: not view.viewed,
        )
        assert view.diff_layout is not None and view.diff_layout.row(1).kind is RowKind.HUNK  # unfolded again


async def test_a_line_whose_only_change_is_its_ending_says_so(project: Repo) -> None:
    project.write("dos.txt", b"one\ntwo\n")
    project.commit("unix endings")
    project.write("dos.txt", b"one\r\ntwo\n")
    async with app_for(project).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        shown = [view.render_line(y).text for y in range(view.diff_layout.total)]
        assert any(line.rstrip().endswith("one  ⏎ LF") for line in shown)
        assert any(line.rstrip().endswith("one  ⏎ CRLF") for line in shown)


async def test_a_key_typed_right_after_enter_in_the_search_is_a_command(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"value_30 ")
        # the search line shows what is typed, on one row above the footer
        assert "value_30" in Drawn.of(pilot.app.export_screenshot()).rows[SIZE[1] - 2]
        # enter and c read together, as from a fast typist or tmux: the c must not land in the field
        for key, character in [("enter", "\r"), ("c", "c")]:
            pilot.app.post_message(events.Key(key, character))
        for _ in range(5):
            await pilot.pause()
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor)
        assert editor.title_text.startswith("Comment on src/app.py:30")
