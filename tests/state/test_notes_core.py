"""The agent's notes for the reviewer, through `review.state.notes`: written on lines or on the
whole change, found again when the code moves, dismissed, made into comments, and shown to the
agent only once the reviewer answered them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from review.errors import CommentError
from review.repo import git, scope
from review.repo.lines import FileReader
from review.repo.scope import Scope
from review.state import comments, instructions, news, notes, rounds
from review.state.comments import Where
from review.state.model import Comment
from review.state.store import Store

LINES = [f"line {n}" for n in range(1, 21)]


def note(store: Store, line: int | None = 3, body: str = "renamed: the old name lied") -> Comment:
    where = Where("src/app.py", line=line, end_line=line)
    return notes.add(store, where, body, LINES if line is not None else None)


def test_a_note_on_lines_is_the_agents_anchored_and_never_a_draft(tmp_path: Path) -> None:
    store = Store(tmp_path)
    made = notes.add(store, Where("src/app.py", line=4, end_line=6), "moved these up", LINES)
    [kept] = store.read().comments
    assert (kept.id, kept.author, kept.status, kept.line, kept.end_line) == (made.id, "agent", "note", 4, 6)
    assert kept.anchor is not None and kept.anchor.lines == ["line 4", "line 5", "line 6"]


def test_a_note_on_the_whole_change_has_no_path_no_line_and_no_anchor(tmp_path: Path) -> None:
    made = notes.add(Store(tmp_path), Where(notes.WHOLE_CHANGE), "One refactor: totals use Decimal", None)
    assert (made.path, made.line, made.anchor, made.status) == ("", None, None, "note")


def test_a_note_on_the_whole_change_cannot_name_lines(tmp_path: Path) -> None:
    with pytest.raises(CommentError, match="whole change has no lines"):
        notes.add(Store(tmp_path), Where(notes.WHOLE_CHANGE, line=1), "x", LINES)


def test_notes_count_apart_from_comments_n1_n2_and_c1(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert note(store).id == "n1"
    comment = comments.add(store, Where("src/app.py", line=2), "why?", "question", LINES)
    assert (comment.id, note(store).id) == ("c1", "n2")
    review = store.read()
    assert (review.next_note, review.next_comment) == (3, 2)


def test_a_note_without_text_or_past_the_end_of_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommentError, match="a note needs some text"):
        note(Store(tmp_path), body=" \n")
    with pytest.raises(CommentError, match=r"src/app\.py: "):
        note(Store(tmp_path), line=99)


def test_a_note_follows_its_code_when_the_agent_moves_it(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store, line=3)
    moved = ["# header", "# more", *LINES]
    comments.reanchor(store, lambda path, side: moved if path == "src/app.py" else None, {})
    [kept] = store.read().comments
    assert (kept.line, kept.anchor_state, kept.status) == (5, "moved", "note")


def test_a_note_on_the_whole_change_is_left_alone_by_reanchoring(tmp_path: Path) -> None:
    store = Store(tmp_path)
    notes.add(store, Where(notes.WHOLE_CHANGE), "a refactor", None)
    comments.reanchor(store, lambda path, side: None, {})
    [kept] = store.read().comments
    assert (kept.path, kept.line, kept.anchor_state) == ("", None, "exact")


def test_dismissing_a_note_sets_it_aside_and_restoring_brings_it_back(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store)
    assert notes.dismiss(store, "n1").status == "dismissed"
    assert notes.standing(store.read()) == []
    assert notes.dismiss(store, "n1", dismissed=False).status == "note"
    assert [n.id for n in notes.standing(store.read())] == ["n1"]


def test_only_notes_are_dismissed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comments.add(store, Where("src/app.py", line=2), "why?", "question", LINES)
    with pytest.raises(CommentError, match="c1 is a comment, not an agent's note"):
        notes.dismiss(store, "c1")


def test_a_note_made_a_comment_is_a_draft_on_the_same_lines_and_the_note_is_dismissed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    notes.add(store, Where("src/app.py", line=4, end_line=5), "split this in two", LINES)
    body = notes.quoted(store.read().comment("n1")) + "Then do it in this change."
    made = notes.to_comment(store, "n1", body, "must", LINES)
    review = store.read()
    assert (made.id, made.author, made.status, made.severity) == ("c1", "reviewer", "draft", "must")
    assert (made.path, made.side, made.line, made.end_line) == ("src/app.py", "new", 4, 5)
    assert made.anchor is not None and made.anchor.lines == ["line 4", "line 5"]
    assert review.comment("c1").body.startswith("> The agent's note n1:\n> split this in two\n\n")
    assert review.comment("n1").status == "dismissed"


def test_a_note_on_code_that_is_gone_makes_a_comment_that_keeps_the_code_it_was_on(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store, line=3)
    comments.reanchor(store, lambda path, side: ["nothing", "like", "it"] if path == "src/app.py" else None, {})
    made = notes.to_comment(store, "n1", "was this needed?", "question", None)
    assert (made.line, made.anchor_state) == (None, "lost")
    assert made.anchor is not None and made.anchor.lines == ["line 3"]


def test_a_note_on_the_whole_change_does_not_become_a_comment(tmp_path: Path) -> None:
    store = Store(tmp_path)
    notes.add(store, Where(notes.WHOLE_CHANGE), "a refactor", None)
    with pytest.raises(CommentError, match="on the whole change, and a comment is on a file"):
        notes.to_comment(store, "n1", "hm", "should", None)
    assert store.read().comment("n1").status == "note"


def test_sending_leaves_notes_out_of_the_round(project: Repo) -> None:
    project.write("src/app.py", "changed\n" + (project.root / "src/app.py").read_text())
    worktree = git.find_worktree(project.root)
    store = Store(project.root)
    lines = (project.root / "src/app.py").read_text().splitlines()
    notes.add(store, Where("src/app.py", line=1), "a header line", lines)
    comments.add(store, Where("src/app.py", line=2), "why?", "question", lines)
    sent = rounds.send(store, worktree, "comment", "", FileReader(worktree, None))
    review = store.read()
    assert sent.comment_ids == ["c1"]
    assert (review.comment("n1").status, review.comment("n1").round) == ("note", None)
    assert review.state(lambda: None) == "sent"


def test_the_agent_cannot_resolve_its_own_note(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store)
    with pytest.raises(CommentError, match=r"n1 is your note for the reviewer.* reply n1 -m"):
        comments.resolve(store, "n1", "done")
    with pytest.raises(CommentError, match="the agent's note"):
        comments.set_status(store, "n1", "resolved")


def test_a_note_waits_on_the_agent_only_while_the_reviewer_has_the_last_word(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store)
    assert store.read().awaiting_agent() == []
    comments.reply(store, "n1", "reviewer", "Why not keep the old name as an alias?")
    assert [c.id for c in store.read().awaiting_agent()] == ["n1"]
    assert notes.standing(store.read()) == []
    comments.reply(store, "n1", "agent", "Nothing else uses it.")
    assert store.read().awaiting_agent() == []
    assert [n.id for n in notes.standing(store.read())] == ["n1"]


def test_an_answer_is_heard_even_on_a_note_the_reviewer_then_dismissed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store)
    comments.reply(store, "n1", "reviewer", "Fine, but add a test.")
    notes.dismiss(store, "n1")
    assert [c.id for c in store.read().awaiting_agent()] == ["n1"]


def test_pending_json_has_a_note_only_once_the_reviewer_answered_it(project: Repo) -> None:
    project.write("src/app.py", "changed\n" + (project.root / "src/app.py").read_text())
    worktree = git.find_worktree(project.root)
    store = Store(project.root)
    read = FileReader(worktree, scope.resolve(worktree, Scope()).old)
    notes.add(store, Where("src/app.py", line=1), "a header line", read("src/app.py", "new"))
    notes.add(store, Where(notes.WHOLE_CHANGE), "the whole change", None)
    assert instructions.gather(store.read(), read) == []
    comments.reply(store, "n1", "reviewer", "Why a header?")
    items = instructions.gather(store.read(), read)
    [shown] = instructions.as_json(project.root, None, items)["comments"]
    assert (shown["id"], shown["status"], shown["severity"], shown["line"]) == ("n1", "note", None, 1)
    assert shown["code"] == ["changed"]
    assert [(r["author"], r["new"]) for r in shown["thread"]] == [("reviewer", True)]


def test_pending_markdown_names_a_note_as_the_agents_own_and_answers_it_with_reply(project: Repo) -> None:
    worktree = git.find_worktree(project.root)
    store = Store(project.root)
    notes.add(store, Where(notes.WHOLE_CHANGE), "Totals use Decimal now", None)
    comments.reply(store, "n1", "reviewer", "Everywhere?")
    items = instructions.gather(store.read(), FileReader(worktree, None))
    text = instructions.markdown(project.root, None, items, review="review")
    assert "1 of your notes the reviewer answered" in text and "comments to address" not in text
    assert "## The whole change\n\n### n1 · your note · the whole change\n" in text
    assert 'Answer: `review reply n1 -m "..."`' in text and "resolve n1" not in text


def test_the_reviewers_answer_to_a_note_is_news_for_the_agent(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note(store)
    assert not news.find(store.read())
    comments.reply(store, "n1", "reviewer", "Why not keep the old name?")
    assert news.find(store.read()).replies == (("n1", 0),)
