"""The agent's notes for the reviewer: why it changed these lines, said before the review.

A note is a `Comment` written by the agent (`author` "agent", id "n1", "n2", …), so it is anchored
and re-anchored as a comment is, has a thread, and is drawn beside its lines. It is never sent:
its status is `note` while it stands and `dismissed` once the reviewer set it aside. A note on the
whole change has the path "" and no line (`WHOLE_CHANGE`); the viewer shows it above the first
file.

The reviewer answers a note in its thread (the agent hears the answer as news, and it shows in
`review pending` until the agent replies), turns it into a comment of their own, or dismisses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from review.errors import CommentError
from review.state import comments
from review.state.comments import Where
from review.state.model import Anchor, AnchorState, Comment, Review, Severity, now
from review.state.store import Store

WHOLE_CHANGE = ""
"""The path of a note on the whole change rather than on a file."""


def add(store: Store, where: Where, body: str, lines: Sequence[str] | None, source: str | None = None) -> Comment:
    """Write the agent's note on `where` (`Where(WHOLE_CHANGE)` for the whole change), anchored in
    `lines` (the file's lines on that side) as a comment is.

    Raises:
        CommentError: the text is empty, the lines are not in the file, or a note on the whole
            change names lines.
    """
    if not body.strip():
        raise CommentError("a note needs some text")
    if where.path == WHOLE_CHANGE and where.line is not None:
        raise CommentError("a note on the whole change has no lines: name a file to note lines of it")
    captured = comments.capture(where, lines, source)

    def change(review: Review) -> Comment:
        note = comments.placed(where, review.new_note_id(), body, captured, author="agent", status="note")
        review.comments.append(note)
        return note

    return store.update(change)


def standing(review: Review) -> list[Comment]:
    """The notes that wait on the reviewer: not dismissed, and not answered by the reviewer since
    the agent last spoke in them."""
    return [c for c in review.comments if c.is_note and c.status == "note" and not c.answered_by_reviewer()]


def dismiss(store: Store, id: str, dismissed: bool = True) -> Comment:
    """The reviewer sets a note aside (it is drawn dim, on one line), or takes it back."""

    def change(review: Review) -> Comment:
        note = _note(review, id)
        note.status = "dismissed" if dismissed else "note"
        note.updated_at = now()
        return note

    return store.update(change)


def to_comment(
    store: Store, id: str, body: str, severity: Severity, lines: Sequence[str] | None, source: str | None = None
) -> Comment:
    """The reviewer makes a note a draft comment of their own on the same lines (`lines`: the file's
    lines on the note's side now), and the note is dismissed, in one step.

    The note is dismissed rather than kept beside the comment: the comment now says what matters
    (the editor opens on the note quoted), and one point is not counted twice, as a note waiting
    on the reviewer and a comment waiting on the agent.

    Raises:
        CommentError: the note is on the whole change (a comment is on a file), or the text is empty.
    """
    note = _note(store.read(), id)
    if note.path == WHOLE_CHANGE:
        raise CommentError(f"{id} is on the whole change, and a comment is on a file: answer it instead")
    if not body.strip():
        raise CommentError("a comment needs some text")
    where = place(note)
    captured: Anchor | None
    state: AnchorState
    if where.line is not None and lines is not None:
        captured, state = comments.capture(where, lines, source), "exact"
    else:
        # on the whole file, or on code that is gone: the note's own anchor keeps what it was on
        captured, state = note.anchor, note.anchor_state

    def change(review: Review) -> Comment:
        standing = _note(review, id)
        made = comments.placed(where, review.new_comment_id(), body, captured, severity=severity)
        made.anchor_state = state
        review.comments.append(made)
        standing.status = "dismissed"
        standing.updated_at = made.created_at
        return made

    return store.update(change)


def place(note: Comment) -> Where:
    """The lines a note is on now, as a comment would be written on them."""
    return Where(path=note.path, side=note.side, line=note.line, end_line=note.end_line, old_path=note.old_path)


def quoted(note: Comment) -> str:
    """The note as a comment on it starts: quoted, and named, for the reviewer to write under."""
    said = "\n".join(f"> {line}" if line else ">" for line in note.body.strip().splitlines())
    return f"> The agent's note {note.id}:\n{said}\n\n"


def _note(review: Review, id: str) -> Comment:
    found = review.comment(id)
    if not found.is_note:
        raise CommentError(f"{id} is a comment, not an agent's note")
    return found
