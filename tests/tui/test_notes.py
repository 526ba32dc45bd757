"""Pilot tests of the agent's notes in the viewer: drawn beside their lines in a box of their own
kind, answered (a), made the reviewer's comment (t) and dismissed (D), with the keys for notes in
the footer only while the cursor is on one."""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn
from review.overview.rows import Row
from review.repo import git
from review.state import comments, notes
from review.state.comments import Where
from review.state.model import Comment
from review.state.store import Store
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.dialogs.comments_panel import PanelEntry, entry_prompt
from review.tui.layout import Place, RowKind
from review.tui.screens.help_screen import HelpScreen
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.review_footer import ReviewFooter
from review.tui.widgets.worktree_table import WorktreeTable

SIZE = (110, 36)


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


def view_of(pilot: Pilot) -> DiffView:  # type: ignore[type-arg]
    return pilot.app.screen.query_one(DiffView)


def noted(repo: Repo, line: int = 30, body: str = "Doubled: the spec asks for it") -> Store:
    """The agent's note on a line of src/app.py, as `review note` writes it."""
    store = Store(repo.root)
    notes.add(store, Where("src/app.py", line=line, end_line=line), body, app_lines(repo))
    return store


def app_lines(repo: Repo) -> list[str]:
    return (repo.root / "src/app.py").read_text().splitlines()


def stored(repo: Repo, id: str) -> Comment:
    return Store(repo.root).read().comment(id)


async def saved(pilot: Pilot) -> None:  # type: ignore[type-arg]
    """Wait until the reviewer's changes are saved and the view shows the review as saved."""
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    for _ in range(400):
        await pilot.pause(0.01)
        if not screen.saving.waiting:
            break
    await settle(pilot)


async def to_note(pilot: Pilot, id: str) -> DiffView:  # type: ignore[type-arg]
    view = view_of(pilot)
    assert view.go_to_comment(id)
    await pilot.pause()
    return view


def box_row(view: DiffView, id: str, part: int = 0) -> int:
    """The index of a row of the comment's box in the view."""
    assert view.diff_layout is not None
    first = view.diff_layout.find_comment(id)
    assert first is not None
    return first + part


def drawn_segments(view: DiffView, index: int) -> list[Segment]:
    """The segments the view draws for row `index` (scrolled into sight first)."""
    view.scroll_to(y=index, animate=False, immediate=True)
    return list(view.render_line(index - view.scroll_offset.y))


def footer_keys(pilot: Pilot) -> list[str]:  # type: ignore[type-arg]
    footer = pilot.app.screen.query_one(ReviewFooter)
    return footer.drawn


async def test_a_note_is_drawn_under_its_lines_in_a_box_of_its_own_kind(agent_worktree: Repo) -> None:
    store = noted(agent_worktree, line=30)
    comments.add(store, Where("src/app.py", line=5), "Why double it?", "must", app_lines(agent_worktree))
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        line = view.diff_layout.find(Place("src/app.py", new=30))
        assert line is not None and box_row(view, "n1") == line + 1  # right under its line
        note = drawn_segments(view, box_row(view, "n1"))
        text = "".join(segment.text for segment in note)
        assert "┌─ n1 · agent note · line 30" in text
        comment = drawn_segments(view, box_row(view, "c1"))
        # the agent's border and label are not the reviewer's colours
        note_border = next(s for s in note if s.text.startswith("┌─"))
        comment_border = next(s for s in comment if s.text.startswith("┌─"))
        assert note_border.style is not None and comment_border.style is not None
        assert note_border.style.color == view.get_component_rich_style("diff-view--agent-note-border").color
        assert note_border.style.color != comment_border.style.color
        label = next(s for s in note if s.text == "agent note")
        assert label.style is not None and label.style.bold and label.style.italic
        body = "".join(s.text for s in drawn_segments(view, box_row(view, "n1", 1)))
        assert "│ Doubled: the spec asks for it" in body
        hint = "".join(s.text for s in drawn_segments(view, box_row(view, "n1", 2)))
        assert "a answer · t make it your comment · D dismiss" in hint


async def test_a_note_on_the_whole_change_is_drawn_above_the_first_file(agent_worktree: Repo) -> None:
    notes.add(Store(agent_worktree.root), Where(notes.WHOLE_CHANGE), "One idea: double the checkpoints", None)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = view_of(pilot)
        assert view.diff_layout is not None
        assert [view.diff_layout.row(i).kind for i in range(4)] == [RowKind.COMMENT] * 3 + [RowKind.FILE]
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        top = next(index for index, row in enumerate(rows) if "n1 · agent note" in row)
        assert "the whole change" in rows[top]
        assert "One idea: double the checkpoints" in rows[top + 1]
        assert "▾ A docs/guide.md" in rows[top + 3]  # the first file's header, under the note
        # n goes to it like to any comment, and the cursor on it offers the keys for notes
        await pilot.press("G", "g")
        assert view.note == "n1"


async def test_a_answers_a_note_in_its_thread_and_the_agent_is_shown_the_answer(agent_worktree: Repo) -> None:
    noted(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await to_note(pilot, "n1")
        await pilot.press("a")
        await pilot.pause()
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor) and editor.title_text == "Answer the agent's note n1"
        editor.draft.insert("Which section of the spec?")
        await pilot.press("ctrl+s")
        await saved(pilot)
        note = stored(agent_worktree, "n1")
        assert [(r.author, r.body) for r in note.thread] == [("reviewer", "Which section of the spec?")]
        assert [c.id for c in Store(agent_worktree.root).read().awaiting_agent()] == ["n1"]
        text = "".join(s.text for s in drawn_segments(view_of(pilot), box_row(view_of(pilot), "n1")))
        assert "n1 · agent note · answered" in text


async def test_t_makes_a_note_the_reviewers_draft_comment_and_dismisses_the_note(agent_worktree: Repo) -> None:
    noted(agent_worktree, line=30)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await to_note(pilot, "n1")
        await pilot.press("t")
        await pilot.pause()
        editor = pilot.app.screen
        assert isinstance(editor, CommentEditor)
        assert editor.title_text == "Comment on src/app.py:30"
        assert editor.draft.text == "> The agent's note n1:\n> Doubled: the spec asks for it\n\n"
        assert editor.code == ["value_30 = 30 * 2  # doubled"]
        editor.draft.insert("The spec is wrong here: keep it single.")
        await pilot.press("ctrl+t", "ctrl+t", "ctrl+t")  # should → question → nit → must
        await pilot.press("ctrl+s")
        await saved(pilot)
        comment = stored(agent_worktree, "c1")
        assert (comment.author, comment.status, comment.severity) == ("reviewer", "draft", "must")
        assert (comment.path, comment.line, comment.end_line) == ("src/app.py", 30, 30)
        assert comment.body.endswith("\n\nThe spec is wrong here: keep it single.")
        assert stored(agent_worktree, "n1").status == "dismissed"
        view = view_of(pilot)
        dismissed = "".join(s.text for s in drawn_segments(view, box_row(view, "n1")))
        assert "n1 · agent note · dismissed" in dismissed
        assert view.diff_layout is not None
        assert view.diff_layout.row(box_row(view, "n1") + 1).comment != "n1"  # one line now


async def test_escape_from_t_without_writing_leaves_the_note_standing(agent_worktree: Repo) -> None:
    noted(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await to_note(pilot, "n1")
        await pilot.press("t")
        await pilot.pause()
        await pilot.press("escape")
        await saved(pilot)
        review = Store(agent_worktree.root).read()
        assert [c.id for c in review.comments] == ["n1"] and review.comment("n1").status == "note"


async def test_D_dismisses_a_note_to_one_dim_line_and_D_again_restores_it(agent_worktree: Repo) -> None:
    noted(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await to_note(pilot, "n1")
        assert view.diff_layout is not None
        rows = view.diff_layout.total
        await pilot.press("D")
        await saved(pilot)
        assert stored(agent_worktree, "n1").status == "dismissed"
        assert view.diff_layout.total == rows - 2  # header, body and hint become one line
        [first] = [s for s in drawn_segments(view, box_row(view, "n1")) if "agent note" in s.text]
        assert first.style is not None
        assert first.style.color == view.get_component_rich_style("diff-view--comment-muted").color
        assert view.note == "n1"  # the cursor stayed on it
        await pilot.press("D")
        await saved(pilot)
        assert stored(agent_worktree, "n1").status == "note"
        assert view.diff_layout.total == rows


async def test_the_keys_for_notes_are_in_the_footer_only_on_a_note(agent_worktree: Repo) -> None:
    noted(agent_worktree, line=30)
    async with app_for(agent_worktree).run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        assert "t" not in footer_keys(pilot) and "D" not in footer_keys(pilot)
        await to_note(pilot, "n1")
        await pilot.pause()
        assert {"t", "D"} <= set(footer_keys(pilot))
        await pilot.press("k")  # the note's own line: the keys still act on it
        await pilot.pause()
        assert view_of(pilot).note == "n1" and {"t", "D"} <= set(footer_keys(pilot))
        await pilot.press("k")
        await pilot.pause()
        assert "t" not in footer_keys(pilot)
        await pilot.press("t")  # off a note, t is not bound: nothing opens
        await pilot.pause()
        assert isinstance(pilot.app.screen, ReviewScreen)


async def test_edit_delete_and_resolve_say_what_to_do_with_a_note(agent_worktree: Repo) -> None:
    noted(agent_worktree)
    async with app_for(agent_worktree).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await to_note(pilot, "n1")
        for key in ("e", "d", "r"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(pilot.app.screen, ReviewScreen), key
            said = [n.message for n in pilot.app._notifications]
            assert said[-1] == "n1 is the agent's note: a answers it, t makes it your comment, D dismisses it."
            pilot.app.clear_notifications()
            await pilot.pause(0.8)  # past the keys ignored after a refused editor
        assert stored(agent_worktree, "n1").status == "note"


async def test_the_header_counts_notes_and_help_lists_their_keys(agent_worktree: Repo) -> None:
    noted(agent_worktree, line=5)
    noted(agent_worktree, line=30)
    async with app_for(agent_worktree).run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        header = pilot.app.screen.query_one("ReviewHeader")
        assert "2 notes" in header.text  # type: ignore[attr-defined]
        await pilot.press("question_mark")
        await pilot.pause()
        help = pilot.app.screen
        assert isinstance(help, HelpScreen)
        text = help.text().plain
        assert "note_to_comment" in text and "dismiss_note" in text


def test_the_comments_panel_lists_a_note_as_the_agents_and_where_it_is() -> None:
    note = Comment(id="n1", path="", body="One idea throughout", author="agent", status="note")
    listed = entry_prompt(PanelEntry.of(note)).plain
    assert listed.startswith("note      note     (the whole change)")
    dismissed = Comment(id="n2", path="src/app.py", line=3, end_line=3, body="x", author="agent", status="dismissed")
    assert entry_prompt(PanelEntry.of(dismissed)).plain.startswith("dismissed note     src/app.py:3")


async def test_the_overview_table_has_a_notes_column_while_a_worktree_has_notes() -> None:
    def row(name: str, notes: int) -> Row:
        return Row(path=Path(f"/work/{name}"), name=name, branch=f"agent/{name}", head="0" * 40, notes=notes)

    class Table(App[None]):
        def compose(self) -> ComposeResult:
            yield WorktreeTable()

    async with Table().run_test(size=(160, 10)) as pilot:
        table = pilot.app.query_one(WorktreeTable)
        table.show([row("quiet", 0), row("noted", 2)])
        await pilot.pause()
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        column = rows[0].index("notes")
        (noted,) = [line for line in rows if "noted" in line]
        assert noted[column : column + 5].strip() == "2"
        table.show([row("quiet", 0)])
        await pilot.pause()
        assert "notes" not in Drawn.of(pilot.app.export_screenshot()).rows[0]
