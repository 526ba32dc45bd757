"""The review of a worktree as the program holds it, and the words it is written in.

Each word of the domain (a severity, a comment's status, a verdict) is a `Literal` here, and the
tuple that lists its values in their one order is read from that `Literal`, so the two cannot
drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from review.errors import UnknownComment
from review.repo.lines import Side as Side  # a comment is on one side of the diff

SCHEMA = "review/1"
"""The schema this version writes; older ones are upgraded through `codec.MIGRATIONS` when read."""

Author = Literal["reviewer", "agent"]
Severity = Literal["must", "should", "question", "nit"]
CommentStatus = Literal["draft", "open", "addressed", "resolved", "wontfix", "note", "dismissed"]
AnchorState = Literal["exact", "moved", "changed", "lost"]
Verdict = Literal["request_changes", "comment", "approve"]
ReviewState = Literal["none", "drafts", "requested", "sent", "answered", "addressed", "approved"]

SEVERITIES: tuple[Severity, ...] = get_args(Severity)
"""The one order of the severities, everywhere they are listed: instructions, the comment editor's
chooser and `ctrl+t`, the README. What must change comes first, as agents act on it."""
STATUSES: tuple[CommentStatus, ...] = get_args(CommentStatus)
"""A comment's life: a draft until sent, then open until the agent answers or the reviewer closes it.
An agent's note (`review.state.notes`) is a `note` while it stands, `dismissed` once the reviewer
set it aside; it is never sent."""
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
"""What a round says of the work as a whole."""
REVIEW_STATES: tuple[ReviewState, ...] = get_args(ReviewState)
"""The review's one word (`Review.state`), as the overview, its JSON and the review's header say it."""

Harness = Literal["claude", "codex", "pi"]
HARNESSES: tuple[Harness, ...] = get_args(Harness)
"""The agents that tell review what they do: review installs their hooks (Pi's extension) and
answers `review hook HARNESS`."""
AGENTS: tuple[str, ...] = HARNESSES
"""The agents review can be installed for (the skill, and their hooks or extension)."""


_TIME = "%Y-%m-%dT%H:%M:%SZ"
"""How the review file writes a time: UTC, to the second, e.g. "2026-11-29T17:41:29Z"."""


def now() -> str:
    """The current UTC time as the review file records it, e.g. "2026-11-29T17:41:29Z"."""
    return datetime.now(UTC).strftime(_TIME)


def stamp(when: float | None) -> str | None:
    """Seconds since the epoch written as the review file writes times; None for None."""
    return None if when is None else datetime.fromtimestamp(when, UTC).strftime(_TIME)


def _changed_since(change: float | None, written: str) -> bool:
    sent = seconds(written)
    return change is not None and sent is not None and change > sent


def seconds(written: str) -> float | None:
    """A time the review file wrote, in seconds since the epoch; None when it is not one."""
    try:
        return datetime.strptime(written, _TIME).replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


@dataclass(kw_only=True)
class Notice:
    """One time a channel told the agent that news waits (it is read only once the agent reads it)."""

    channel: str
    """Which channel: "stop-hook", "tmux", "pi", or an agent's own command line ("claude", "codex")."""
    at: str = field(default_factory=now)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Reply:
    """One message in a comment's thread."""

    author: Author
    body: str
    at: str = field(default_factory=now)
    delivered_at: str | None = None
    """When the agent read a reviewer's reply (`review pending`, `review wait`, the MCP tool);
    None until then (and for the agent's own)."""
    notices: list[Notice] = field(default_factory=list)
    """Each time a channel pointed the agent to this reply before it was read."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Anchor:
    """The code a comment was written on, so it can be found again after the code changes."""

    lines: list[str]
    """The text of the commented lines."""
    before: list[str] = field(default_factory=list)
    """A few lines of context above them."""
    after: list[str] = field(default_factory=list)
    """A few lines of context below them."""
    source: str | None = None
    """The blob or commit the lines were read from; None for the working tree."""
    line: int | None = None
    """The first commented line's number when the comment was written."""
    end_line: int | None = None
    """The last commented line's number when the comment was written."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Comment:
    """A reviewer's comment on a range of lines of a file, or on the whole file; or an agent's note
    for the reviewer (`author` "agent"), on lines, a file, or the whole change (`path` "")."""

    id: str
    path: str
    old_path: str | None = None
    """The path before a rename."""
    side: Side = "new"
    line: int | None = None
    """The first line, 1-based, on `side`; None for a file-level comment."""
    end_line: int | None = None
    body: str
    """Markdown."""
    severity: Severity = "should"
    status: CommentStatus = "draft"
    anchor: Anchor | None = None
    anchor_state: AnchorState = "exact"
    thread: list[Reply] = field(default_factory=list)
    round: str | None = None
    """The id of the round the comment was sent in; None while it is a draft."""
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    author: Author = "reviewer"
    """Who wrote it: the reviewer (a comment), or the agent (a note, id "n1", "n2", …)."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""

    @property
    def is_note(self) -> bool:
        """Whether the agent wrote it: a note for the reviewer, which is never sent."""
        return self.author == "agent"

    def answered_by_agent(self) -> bool:
        """Whether the agent answered the comment: it spoke last, after the comment was last
        reopened. The comment stays open until the reviewer resolves or reopens it."""
        return bool(self.thread) and self.thread[-1].author == "agent" and self.thread[-1].at >= self.updated_at

    def answered_by_reviewer(self) -> bool:
        """Whether the reviewer has the last word in the thread: something the agent has yet to
        answer (the replies are `review.state.news.unanswered`)."""
        return bool(self.thread) and self.thread[-1].author == "reviewer"


@dataclass(kw_only=True)
class Round:
    """One sending of the review: a verdict, a summary and the comments sent with it."""

    id: str
    verdict: Verdict
    summary: str = ""
    sent_at: str = field(default_factory=now)
    snapshot: str | None = None
    """The git tree that was reviewed."""
    comment_ids: list[str] = field(default_factory=list)
    delivered_at: str | None = None
    """When the agent read this round (`review pending`, `review wait`, the MCP tool); None until
    then. Being told that it waits is not reading it: see `notices`."""
    read_by: str | None = None
    """What the agent read it with: "pending", "wait" or "mcp"."""
    notices: list[Notice] = field(default_factory=list)
    """Each time a channel pointed the agent to this round before it was read."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Request:
    """The agent asks the reviewer for a review (`review request`): the worktree waits on the
    reviewer until a round is sent."""

    message: str = ""
    """What the agent says of its work, for the reviewer; "" when it said nothing."""
    at: str = field(default_factory=now)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Review:
    """The whole review state of a worktree."""

    schema: str = SCHEMA
    rounds: list[Round] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    viewed: dict[str, str] = field(default_factory=dict)
    """Path -> fingerprint of the file's diff when the reviewer marked it viewed."""
    request: Request | None = None
    """The agent's standing request for a review; None when it has not asked since the last round."""
    next_comment: int = 1
    next_round: int = 1
    next_note: int = 1
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""

    def new_comment_id(self) -> str:
        """A comment id ("c1", "c2", …) never given before in this review; advances the counter."""
        id, self.next_comment = _fresh("c", self.next_comment, {comment.id for comment in self.comments})
        return id

    def new_note_id(self) -> str:
        """An agent's note id ("n1", "n2", …) never given before in this review; advances the counter."""
        id, self.next_note = _fresh("n", self.next_note, {comment.id for comment in self.comments})
        return id

    def new_round_id(self) -> str:
        """A round id ("r1", "r2", …) never given before in this review; advances the counter."""
        id, self.next_round = _fresh("r", self.next_round, {sent.id for sent in self.rounds})
        return id

    def comment(self, id: str) -> Comment:
        """The comment with this id.

        Raises:
            UnknownComment: no comment has this id.
        """
        for comment in self.comments:
            if comment.id == id:
                return comment
        raise UnknownComment(f"no comment '{id}' in this worktree's review")

    def state(self, last_change: Callable[[], float | None]) -> ReviewState:
        """The review's one word: whose turn it is and what the reviewer's last round came to.

        Args:
            last_change: When the worktree last changed (seconds since the epoch), asked only for
                a round that sent no comment: its summary is the agent's to act on until its work
                changes.
        """
        latest = self.latest_round()
        open = self.open_comments()
        unanswered = [c for c in open if not c.answered_by_agent()]
        if any(c.status == "draft" for c in self.comments):
            return "drafts"  # the reviewer's own unsent comments say more than a request
        if self.request is not None:
            return "requested"
        if latest is None:
            return "none"
        if latest.verdict == "approve" and not open:
            return "approved"
        if unanswered or (not latest.comment_ids and not _changed_since(last_change(), latest.sent_at)):
            return "sent"
        return "answered" if open else "addressed"

    def latest_round(self) -> Round | None:
        """The round sent last; None before the first is sent."""
        return self.rounds[-1] if self.rounds else None

    def open_comments(self) -> list[Comment]:
        """The comments the agent still has to deal with: sent, or reopened, and not answered."""
        return [comment for comment in self.comments if comment.status == "open"]

    def awaiting_agent(self) -> list[Comment]:
        """What asks something of the agent: the open comments, and its notes the reviewer answered
        (dismissed or not: an answer is said to be heard) that it has not answered back. Replies of
        the reviewer in their threads are news to it (`review.state.news`)."""
        return [c for c in self.comments if c.status == "open" or (c.is_note and c.answered_by_reviewer())]

    def mark_viewed(self, path: str, fingerprint: str) -> None:
        """Record that the reviewer has seen the file's diff as it is now."""
        self.viewed[path] = fingerprint

    def unmark_viewed(self, path: str) -> None:
        """Forget that the file was viewed."""
        self.viewed.pop(path, None)

    def is_viewed(self, path: str, fingerprint: str) -> bool:
        """Whether the file was marked viewed and its diff has not changed since."""
        return self.viewed.get(path) == fingerprint


def _fresh(prefix: str, counter: int, taken: set[str]) -> tuple[str, int]:
    """The next id from `counter` that is not taken (a hand-edited file may be ahead of the
    counter), and the counter after it."""
    while f"{prefix}{counter}" in taken:
        counter += 1
    return f"{prefix}{counter}", counter + 1
