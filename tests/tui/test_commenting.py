"""Pilot tests of commenting in the viewer: write, select, edit, delete, send, answer."""

from __future__ import annotations

import os
import subprocess
import sys

from textual.pilot import Pilot

from conftest import Repo, settle, until_seen
from drawn import Drawn
from review.repo import git
from review.repo.lines import FileReader
from review.state import comments, rounds
from review.state.comments import Where
from review.state.store import Store
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.layout import Place, RowKind
from review.tui.widgets.diff_view import DiffView

SIZE = (110, 36)


def app_for(repo: Repo, watch: bool = False):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=watch)


def view_of(pilot: Pilot) -> DiffView:  # type: ignore[type-arg]
    return pilot.app.screen.query_one(DiffView)


def to_line(view: DiffView, path: str, new: int | None = None, old: int | None = None) -> None:
    assert view.diff_layout is not None
    index = view.diff_layout.find(Place(path, new=new, old=old))
    assert index is not None
    view.go_to(index)


async def write(pilot: Pilot, text: str, *keys: str) -> None:  # type: ignore[type-arg]
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommentEditor)
    await pilot.press(*keys)
    pilot.app.screen.query_one("TextArea").insert(text)  # type: ignore[attr-defined]
    await pilot.press("ctrl+s")
    await pilot.pause()


def stored(repo: Repo):  # type: ignore[no-untyped-def]
    return Store(repo.root).read().comments


def draft(repo: Repo, *lines_and_bodies: tuple[int, str], severity: str = "should") -> Store:
    """Draft comments on src/app.py, as `review comment` would."""
    store = Store(repo.root)
    lines = (repo.root / "src/app.py").read_text().splitlines()
    for line, body in lines_and_bodies:
        comments.add(store, Where("src/app.py", line=line), body, severity, lines)  # type: ignore[arg-type]
    return store


def rows_after(view: DiffView, index: int, count: int) -> list[RowKind]:
    assert view.diff_layout is not None
    return [view.diff_layout.row(i).kind for i in range(index, index + count)]


async def test_c_comments_on_the_cursor_line_and_the_box_appears_under_it(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        to_line(view, "src/app.py", new=30)
        line_row = view.cursor
        await pilot.press("c")
        await write(pilot, "Why double it?")
        [comment] = stored(agent_worktree)
        assert (comment.path, comment.side, comment.line, comment.end_line, comment.status) == (
            "src/app.py",
            "new",
            30,
            30,
            "draft",
        )
        assert comment.body == "Why double it?"
        assert comment.anchor is not None and comment.anchor.lines == ["value_30 = 30 * 2  # doubled"]
        assert rows_after(view, line_row + 1, 2) == [RowKind.COMMENT, RowKind.COMMENT]
        assert view.diff_layout is not None and view.diff_layout.row(line_row + 1).comment == comment.id


async def test_c_on_a_removed_line_comments_on_the_old_side(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        to_line(view, "src/app.py", old=30)
        await pilot.press("c")
        await write(pilot, "This was fine")
        [comment] = stored(agent_worktree)
        assert (comment.side, comment.line) == ("old", 30)
        assert comment.anchor is not None and comment.anchor.lines == ["value_30 = 30"]


async def test_v_selects_a_range_and_ctrl_g_suggests_its_code(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        to_line(view, "src/app.py", new=29)
        await pilot.press("v", "j", "j", "j")  # over the removed line 30 to new line 31
        await pilot.press("c")
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor)
        assert "src/app.py:29-31" in editor.title_text
        editor.query_one("TextArea").insert("Simplify:\n")  # type: ignore[attr-defined]
        await pilot.press("ctrl+g", "ctrl+s")
        await pilot.pause()
        [comment] = stored(agent_worktree)
        assert (comment.line, comment.end_line) == (29, 31)
        assert "```suggestion\nvalue_29 = 29\nvalue_30 = 30 * 2  # doubled\nvalue_31 = 31\n```" in comment.body
        assert not view.selecting


async def test_capital_c_comments_on_the_whole_file(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("C")
        await write(pilot, "Is this file needed?")
        [comment] = stored(agent_worktree)
        assert (comment.path, comment.line) == ("docs/guide.md", None)
        assert rows_after(view, 0, 2) == [RowKind.FILE, RowKind.COMMENT]


async def test_escape_keeps_what_was_written_as_a_draft(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        to_line(view_of(pilot), "src/util.py", new=2)
        await pilot.press("c")
        await pilot.pause()
        pilot.app.screen.query_one("TextArea").insert("half a thought")  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause()
        [comment] = stored(agent_worktree)
        assert (comment.body, comment.status) == ("half a thought", "draft")


async def test_e_edits_the_comment_under_the_cursor(agent_worktree: Repo) -> None:
    draft(agent_worktree, (5, "first words"))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        to_line(view, "src/app.py", new=5)
        await pilot.press("e")
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor) and editor.initial_body == "first words"
        await write(pilot, " and more", "ctrl+t")
        [comment] = stored(agent_worktree)
        assert comment.body == "first words and more"
        assert comment.severity == "question"


async def test_d_deletes_only_after_confirming(agent_worktree: Repo) -> None:
    draft(agent_worktree, (5, "delete me"))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        to_line(view, "src/app.py", new=5)
        await pilot.press("d", "n")
        assert len(stored(agent_worktree)) == 1
        await pilot.press("d", "y")
        await pilot.pause()
        assert stored(agent_worktree) == []
        assert view.diff_layout is not None
        assert RowKind.COMMENT not in [view.diff_layout.row(i).kind for i in range(view.diff_layout.total)]


async def test_n_and_capital_n_jump_between_comments(agent_worktree: Repo) -> None:
    draft(agent_worktree, *((line, f"on {line}") for line in (5, 30, 55)))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        seen = []
        for _ in range(3):
            await pilot.press("n")
            seen.append(view.diff_layout.row(view.cursor).comment)
        assert seen == ["c1", "c2", "c3"]
        await pilot.press("N")
        assert view.diff_layout.row(view.cursor).comment == "c2"


async def test_n_brings_the_whole_comment_into_sight(agent_worktree: Repo) -> None:
    # the cursor came onto the box's first row at the bottom of the screen, the comment below it
    draft(agent_worktree, *((line, f"on line {line}") for line in (5, 30, 55)))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        for line in (5, 30, 55):
            await pilot.press("n")
            await pilot.pause()
            box = view.diff_layout.row(view.cursor).comment
            end = view.cursor
            while end + 1 < view.diff_layout.total and view.diff_layout.row(end + 1).comment == box:
                end += 1
            top, height = view.scroll_offset.y, view.scrollable_content_region.height
            assert top <= view.cursor and end < top + height, (line, top, view.cursor, end)
            assert any(f"on line {line}" in row for row in Drawn.of(pilot.app.export_screenshot()).rows)


async def test_capital_s_sends_the_drafts_as_a_round(agent_worktree: Repo) -> None:
    store = draft(agent_worktree, (5, "Why double it?"), severity="must")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await pilot.pause()
        pilot.app.screen.query_one("TextArea").insert("Please explain")  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await settle(pilot)
        review = store.read()
        [sent] = review.rounds
        assert (sent.verdict, sent.summary, sent.comment_ids) == ("request_changes", "Please explain", ["c1"])
        assert review.comments[0].status == "open"
        assert "Why double it?" in (agent_worktree.root / ".review" / "instructions.md").read_text()


async def test_r_resolves_an_addressed_comment_and_reopens_it(agent_worktree: Repo) -> None:
    store = draft(agent_worktree, (5, "Why double it?"), severity="must")
    from review.repo.lines import FileReader
    from review.state import rounds

    rounds.send(
        store,
        git.find_worktree(agent_worktree.root),
        "request_changes",
        "",
        FileReader(git.find_worktree(agent_worktree.root), None),
    )
    comments.resolve(store, "c1", "Explained in a comment")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "r")
        assert stored(agent_worktree)[0].status == "resolved"
        await pilot.press("r")
        assert stored(agent_worktree)[0].status == "open"


async def test_a_replies_in_the_thread(agent_worktree: Repo) -> None:
    draft(agent_worktree, (5, "Why double it?"), severity="must")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", "a")
        await write(pilot, "To be precise: the factor")
        [comment] = stored(agent_worktree)
        assert [(r.author, r.body) for r in comment.thread] == [("reviewer", "To be precise: the factor")]


async def test_the_agents_answers_appear_while_the_review_is_open(agent_worktree: Repo) -> None:
    store = draft(agent_worktree, (5, "Why double it?"), severity="must")
    async with app_for(agent_worktree, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)

        def answer() -> None:
            # the agent answers once; later calls only touch the file, for a watcher that was late
            if not Store(agent_worktree.root).read().comment("c1").thread:
                comments.reply(store, "c1", "agent", "Because the spec says so")
            else:
                os.utime(agent_worktree.root / ".review" / "review.json")

        await until_seen(pilot, answer, lambda: bool(view.comment("c1") and view.comment("c1").thread))  # type: ignore[union-attr]
        comment = view.comment("c1")
        assert comment is not None and [r.body for r in comment.thread] == ["Because the spec says so"]


async def test_the_header_says_the_agent_answered_as_the_overview_does(agent_worktree: Repo) -> None:
    store = draft(agent_worktree, (5, "Why double it?"), severity="must")
    worktree = git.find_worktree(agent_worktree.root)
    rounds.send(store, worktree, "request_changes", "", FileReader(worktree, None))
    async with app_for(agent_worktree, watch=True).run_test(size=SIZE) as pilot:
        await settle(pilot)
        header = lambda: Drawn.of(pilot.app.export_screenshot()).rows[0]  # noqa: E731
        assert "1 open" in header() and "review: sent" in header()

        def answer() -> None:
            if not Store(agent_worktree.root).read().comment("c1").thread:
                comments.reply(store, "c1", "agent", "The spec says so")
            else:  # for a watcher that was late
                os.utime(agent_worktree.root / ".review" / "review.json")

        await until_seen(pilot, answer, lambda: "review: answered" in header())
        assert "1 answered" in header() and "open" not in header()


async def test_p_lists_the_comments_and_jumps_to_one(agent_worktree: Repo) -> None:
    draft(agent_worktree, *((line, f"on {line}") for line in (5, 55)))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert view.diff_layout is not None and view.diff_layout.row(view.cursor).comment == "c2"


async def test_everything_is_as_it_was_after_quitting_and_reopening(agent_worktree: Repo) -> None:
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        to_line(view_of(pilot), "src/app.py", new=30)
        await pilot.press("c")
        await write(pilot, "Kept across runs")
        await pilot.press("q")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        await pilot.press("n")
        assert view.diff_layout is not None and view.diff_layout.row(view.cursor).comment == "c1"
        assert view.comment("c1").body == "Kept across runs"  # type: ignore[union-attr]


async def test_comments_follow_their_code_when_the_agent_edits(agent_worktree: Repo) -> None:
    draft(agent_worktree, (30, "Why double it?"), severity="must")
    app = agent_worktree.root / "src/app.py"
    app.write_text("# new first line\n" + app.read_text())
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        comment = view_of(pilot).comment("c1")
        assert comment is not None and (comment.line, comment.anchor_state) == (31, "moved")
    assert stored(agent_worktree)[0].line == 31


async def test_u_shows_only_what_changed_since_the_last_review(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    worktree = git.find_worktree(agent_worktree.root)
    from review.repo.lines import FileReader
    from review.state import rounds

    rounds.send(store, worktree, "approve", "", FileReader(worktree, None))
    agent_worktree.write("src/util.py", "def helper():\n    return 43\n")
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None and len(view.diff_layout.diff.files) == 5
        await pilot.press("u")
        await settle(pilot)
        assert [f.path for f in view.diff_layout.diff.files] == ["src/util.py"]
        await pilot.press("u")
        await settle(pilot)
        assert len(view.diff_layout.diff.files) == 5


WRITER = """
import sys
from pathlib import Path
from review.repo.lines import FileReader
from review.state import comments, rounds
from review.state.store import Store
store = Store(Path(sys.argv[1]))
for n in range(50):
    comments.reply(store, "c1", "agent", f"{sys.argv[2]}-{n}")
"""


async def test_no_write_is_lost_between_the_tui_and_four_agents(agent_worktree: Repo) -> None:
    store = draft(agent_worktree, *((line, f"on {line}") for line in (5, 30, 55)))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        agents = [
            subprocess.Popen([sys.executable, "-c", WRITER, str(agent_worktree.root), f"agent{n}"]) for n in range(4)
        ]
        edits = 0
        while any(agent.poll() is None for agent in agents) or edits < 6:
            await pilot.press("g", "n") if edits % 3 == 0 else await pilot.press("n")
            await pilot.press("e")
            await write(pilot, f" edit{edits}")
            edits += 1
        assert all(agent.wait(timeout=60) == 0 for agent in agents)
    review = store.read()
    replies = [r.body for c in review.comments for r in c.thread]
    assert len(replies) == 200
    assert sorted(replies) == sorted(f"agent{a}-{n}" for a in range(4) for n in range(50))
    bodies = " ".join(c.body for c in review.comments)
    for n in range(edits):
        assert f"edit{n}" in bodies
