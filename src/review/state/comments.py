"""What reviewers and agents do to comments: write, edit, delete, reply, resolve, reopen.

The TUI and the command line both go through these functions, and each change is one
`Store.update`, so an agent's `review resolve` and the reviewer's key press can happen at the same
moment and both are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, NamedTuple

from review import command
from review.errors import CommentError
from review.repo.diff import Diff, Status
from review.repo.git import Worktree
from review.repo.lines import FileReader
from review.state import anchor
from review.state.model import (
    SEVERITIES,
    Anchor,
    AnchorState,
    Author,
    Comment,
    CommentStatus,
    Reply,
    Review,
    Severity,
    Side,
    now,
)
from review.state.store import Store


class Where(NamedTuple):
    """The lines a comment is written on."""

    path: str
    side: Side = "new"
    line: int | None = None
    """None for a comment on the whole file."""
    end_line: int | None = None
    old_path: str | None = None


def add(
    store: Store, where: Where, body: str, severity: Severity, lines: Sequence[str] | None, source: str | None = None
) -> Comment:
    """Write a draft comment on `where`, anchored in `lines` (the file's lines on that side).

    Raises:
        CommentError: the text is empty or the lines are not in the file.
    """
    if not body.strip():
        raise CommentError("a comment needs some text")
    captured = capture(where, lines, source)

    def change(review: Review) -> Comment:
        comment = placed(where, review.new_comment_id(), body, captured, severity=severity)
        review.comments.append(comment)
        return comment

    return store.update(change)


def capture(where: Where, lines: Sequence[str] | None, source: str | None = None) -> Anchor | None:
    """The code at `where` in `lines` (the file's lines on that side), to find it again after the
    code changes; None on a whole file.

    Raises:
        CommentError: there are no lines on that side, or the lines are not in the file.
    """
    if where.line is None:
        return None
    if lines is None:
        raise CommentError(f"{where.path} has no {where.side} side to comment on")
    try:
        return anchor.capture(lines, where.line, where.end_line or where.line, source)
    except ValueError as error:
        raise CommentError(f"{where.path}: {error}") from None


def placed(where: Where, id: str, body: str, captured: Anchor | None, **rest: Any) -> Comment:
    """A new comment (or note) with this id on `where`, anchored in `captured`; `rest` are its
    other fields (severity, author, status)."""
    return Comment(
        id=id,
        path=where.path,
        old_path=where.old_path,
        side=where.side,
        line=where.line,
        end_line=(where.end_line or where.line) if where.line is not None else None,
        body=body,
        anchor=captured,
        **rest,
    )


def edit(store: Store, id: str, body: str, severity: Severity | None = None) -> Comment:
    """Change a comment's text (and severity)."""
    if not body.strip():
        raise CommentError("a comment needs some text; delete it instead")

    def change(review: Review) -> Comment:
        comment = review.comment(id)
        comment.body = body
        if severity is not None:
            comment.severity = severity
        comment.updated_at = now()
        return comment

    return store.update(change)


def delete(store: Store, id: str) -> None:
    """Remove a comment; its id is never given again."""

    def change(review: Review) -> None:
        comment = review.comment(id)
        review.comments.remove(comment)
        for sent in review.rounds:
            if id in sent.comment_ids:
                sent.comment_ids.remove(id)

    store.update(change)


def reply(store: Store, id: str, author: Author, body: str) -> Comment:
    """Add to a comment's thread."""
    if not body.strip():
        raise CommentError("a reply needs some text")

    def change(review: Review) -> Comment:
        comment = review.comment(id)
        comment.thread.append(Reply(author=author, body=body))
        comment.updated_at = now()
        return comment

    return store.update(change)


def resolve(store: Store, id: str, note: str | None = None) -> Comment:
    """The agent says it dealt with a comment: `addressed`, with a note of what it did.

    Raises:
        CommentError: the comment is still a draft (the agent has not been sent it), or it is the
            agent's own note, which it answers in the thread rather than resolves.
    """

    def change(review: Review) -> Comment:
        comment = review.comment(id)
        if comment.is_note:
            raise CommentError(
                f"{id} is your note for the reviewer, not a comment to resolve: answer the reviewer in its"
                f' thread with `{command.runnable()} reply {id} -m "..."`'
            )
        if comment.status == "draft":
            raise CommentError(f"comment {id} is a draft: it has not been sent yet")
        comment.status = "addressed"
        if note and note.strip():
            comment.thread.append(Reply(author="agent", body=note))
        comment.updated_at = now()
        return comment

    return store.update(change)


def set_status(store: Store, id: str, status: CommentStatus) -> Comment:
    """The reviewer resolves, reopens or gives up on a sent comment (an agent's note is dismissed
    instead: `review.state.notes.dismiss`)."""

    def change(review: Review) -> Comment:
        comment = review.comment(id)
        if comment.is_note:
            raise CommentError(f"{id} is the agent's note: answer it, make it a comment, or dismiss it")
        if comment.status == "draft":
            raise CommentError(f"comment {id} is a draft: send it first")
        comment.status = status
        comment.updated_at = now()
        return comment

    return store.update(change)


def reanchor_on(
    store: Store,
    worktree: Worktree,
    old: str,
    diff: Diff,
    paths: Collection[str] | None = None,
    *,
    unchanged: Collection[str] = (),
) -> Review:
    """`reanchor` for a diff of `worktree` whose old side is `old`: the files as they are now, and
    the diff's renames."""
    renamed = {f.old_path: f.path for f in diff.files if f.status is Status.RENAMED and f.old_path}
    return reanchor(store, FileReader(worktree, old), renamed, paths, unchanged=unchanged)


def reanchor(
    store: Store,
    read: Callable[[str, Side], list[str] | None],
    renames: dict[str, str],
    paths: Collection[str] | None = None,
    *,
    unchanged: Collection[str] = (),
) -> Review:
    """Find every comment's code again in the files as they are now, and record where it is.

    `read` gives a file's current lines on a side; `renames` maps old paths to new ones, so a
    comment follows its file when the agent renames it. With `paths`, only the comments on those
    files are looked for (the files that changed: the others' comments are where they were); the
    comments on the files `unchanged` (since their comments were last looked for) are not.
    """
    review = store.read()
    found: dict[str, tuple[str, int | None, int | None, AnchorState]] = {}
    for comment in review.comments:
        if comment.anchor is None or (paths is not None and comment.path not in paths) or comment.path in unchanged:
            continue
        path = comment.path
        lines = read(side_path(comment), comment.side)
        if lines is None and comment.side == "new" and path in renames:
            path = renames[path]
            lines = read(path, comment.side)
        place = anchor.locate(comment.anchor, lines or [])
        now_at = (path, place.line, place.end_line, place.state)
        if now_at != (comment.path, comment.line, comment.end_line, comment.anchor_state):
            found[comment.id] = now_at
    if not found:
        return review

    def change(current: Review) -> Review:
        for comment in current.comments:
            if comment.id in found:
                path, line, end_line, state = found[comment.id]
                if path != comment.path:
                    comment.old_path = comment.old_path or comment.path
                comment.path, comment.line, comment.end_line = path, line, end_line
                comment.anchor_state = state
        return current

    return store.update(change)


def side_path(comment: Comment) -> str:
    """The path to read the commented side from: the old path for removed code of a renamed file."""
    return (comment.old_path or comment.path) if comment.side == "old" else comment.path


def severity_rank(comment: Comment) -> int:
    return SEVERITIES.index(comment.severity)
