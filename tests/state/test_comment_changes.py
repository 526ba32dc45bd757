"""What reviewers and agents do to comments, through `review.state.comments`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from review.errors import CommentError, UnknownComment
from review.repo.git import find_worktree
from review.repo.lines import path_in
from review.state import comments
from review.state.comments import Where
from review.state.model import Comment, Review, Side
from review.state.store import Store

LINES = [f"line {n}" for n in range(1, 21)]


def draft(store: Store, line: int = 3, body: str = "rename this") -> Comment:
    return comments.add(store, Where("src/app.py", line=line), body, "should", LINES)


def sent(store: Store) -> Comment:
    comment = draft(store)

    def send(review: Review) -> None:
        review.comment(comment.id).status = "open"

    store.update(send)
    return store.read().comment(comment.id)


def test_a_new_comment_is_a_draft_anchored_in_its_lines(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store, line=5)
    [kept] = store.read().comments
    assert (kept.id, kept.status, kept.line, kept.end_line) == (comment.id, "draft", 5, 5)
    assert kept.anchor is not None and kept.anchor.lines == ["line 5"]


def test_a_comment_on_the_whole_file_has_no_line_and_no_anchor(tmp_path: Path) -> None:
    comment = comments.add(Store(tmp_path), Where("src/app.py"), "split this file", "nit", None)
    assert (comment.line, comment.end_line, comment.anchor) == (None, None, None)


def test_a_comment_without_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommentError, match="needs some text"):
        draft(Store(tmp_path), body="  \n")


def test_a_comment_on_a_side_the_file_lacks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommentError, match="has no old side"):
        comments.add(Store(tmp_path), Where("src/app.py", side="old", line=1), "why?", "question", None)


def test_a_comment_past_the_end_of_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommentError, match=r"src/app\.py: "):
        draft(Store(tmp_path), line=99)


def test_edit_changes_the_text_and_the_severity(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store)
    comments.edit(store, comment.id, "rename it to total", "must")
    kept = store.read().comment(comment.id)
    assert (kept.body, kept.severity) == ("rename it to total", "must")


def test_edit_to_no_text_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store)
    with pytest.raises(CommentError, match="delete it instead"):
        comments.edit(store, comment.id, "")


def test_delete_removes_the_comment_and_its_id_is_not_given_again(tmp_path: Path) -> None:
    store = Store(tmp_path)
    first = draft(store)
    comments.delete(store, first.id)
    assert store.read().comments == []
    assert draft(store).id != first.id


def test_delete_of_an_unknown_comment_says_so(tmp_path: Path) -> None:
    with pytest.raises(UnknownComment, match="no comment 'c9'"):
        comments.delete(Store(tmp_path), "c9")


def test_reply_adds_to_the_thread_with_its_author(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store)
    comments.reply(store, comment.id, "agent", "done in the next commit")
    [said] = store.read().comment(comment.id).thread
    assert (said.author, said.body) == ("agent", "done in the next commit")


def test_resolve_marks_a_sent_comment_addressed_with_the_note(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = sent(store)
    comments.resolve(store, comment.id, "renamed")
    kept = store.read().comment(comment.id)
    assert kept.status == "addressed"
    assert [(r.author, r.body) for r in kept.thread] == [("agent", "renamed")]


def test_resolve_of_a_draft_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store)
    with pytest.raises(CommentError, match="has not been sent yet"):
        comments.resolve(store, comment.id)


def test_set_status_reopens_an_addressed_comment(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = sent(store)
    comments.resolve(store, comment.id)
    comments.set_status(store, comment.id, "open")
    assert store.read().comment(comment.id).status == "open"


def test_set_status_of_a_draft_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store)
    with pytest.raises(CommentError, match="send it first"):
        comments.set_status(store, comment.id, "resolved")


def test_reanchor_follows_lines_that_moved(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store, line=5)
    moved = ["new first", "new second", *LINES]

    def read(path: str, side: Side) -> list[str] | None:
        return moved

    comments.reanchor(store, read, {})
    kept = store.read().comment(comment.id)
    assert (kept.line, kept.anchor_state) == (7, "moved")


def test_reanchor_follows_a_renamed_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    comment = draft(store, line=5)

    def read(path: str, side: Side) -> list[str] | None:
        return LINES if path == "src/main.py" else None

    comments.reanchor(store, read, {"src/app.py": "src/main.py"})
    kept = store.read().comment(comment.id)
    assert (kept.path, kept.old_path, kept.line) == ("src/main.py", "src/app.py", 5)


def test_reanchor_of_some_files_leaves_the_comments_on_others_where_they_were(tmp_path: Path) -> None:
    store = Store(tmp_path)
    on_app = draft(store, line=5)
    on_util = comments.add(store, Where("src/util.py", line=5), "and this", "nit", LINES)
    moved = ["new first", "new second", *LINES]
    comments.reanchor(store, lambda path, side: moved, {}, paths={"src/util.py"})
    review = store.read()
    assert [review.comment(c.id).line for c in (on_app, on_util)] == [5, 7]


def test_reanchor_writes_nothing_when_nothing_moved(tmp_path: Path) -> None:
    store = Store(tmp_path)
    draft(store, line=5)
    before = store.path.read_bytes()
    comments.reanchor(store, lambda path, side: LINES, {})
    assert store.path.read_bytes() == before


def test_path_in_is_relative_to_the_worktree_root(project: Repo) -> None:
    worktree = find_worktree(project.root)
    assert path_in(worktree, "app.py", project.root / "src") == "src/app.py"


def test_path_in_accepts_an_absolute_path(project: Repo) -> None:
    worktree = find_worktree(project.root)
    assert path_in(worktree, str(project.root / "src" / "util.py"), Path("/")) == "src/util.py"


def test_path_in_refuses_a_file_outside_the_worktree(project: Repo, tmp_path: Path) -> None:
    worktree = find_worktree(project.root)
    with pytest.raises(CommentError, match="is not inside the worktree"):
        path_in(worktree, str(tmp_path / "elsewhere.py"), project.root)
