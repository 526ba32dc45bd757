"""What the agent has not been told of yet: news, delivered once whichever way it reaches the agent.

News is a round the agent was not told of, or a reviewer's reply it has not seen. Every channel
(the Stop hook, `review watch`, `review pending`, `review wait`) finds the news, tells the agent,
and marks exactly what it told as delivered, so that no other channel repeats it.

A reviewer's reply is news on an open comment only. A comment's status says whose move it is:
on an addressed comment it is the reviewer's (resolve it, or reopen it to ask for more, and then a
reply is news), on a resolved one a reply is a closing remark, and on a draft it goes out with its
round. Keeping to open comments also keeps every pointer honest: `review pending` always shows the
open comments, so the agent finds the reply it was told of, whichever channel told it.

A round sent without comments (an approval, or a summary alone) asks nothing to be fixed: `review
wait` and `review pending` tell of it, but the Stop hook and `review watch` do not interrupt an
agent for it (`News.interrupting`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from review.state.model import Comment, Review, now
from review.state.store import Store

Kind = Literal["round", "approval", "reply"]


@dataclass(frozen=True)
class News:
    """What the agent has not been told of, as found in one reading of the review."""

    rounds: tuple[str, ...] = ()
    """Ids of the rounds not delivered that ask something of the agent: those with open comments,
    and the latest one when it was sent without comments. A round whose comments are all answered
    is not news: the agent knew of it."""
    asking: tuple[str, ...] = ()
    """Those of `rounds` with open comments."""
    approvals: tuple[str, ...] = ()
    """Those of `rounds` that approve the work."""
    replies: tuple[tuple[str, int], ...] = ()
    """The reviewer's replies not delivered: (comment id, index in the comment's thread)."""
    open: int = 0
    """How many comments are open: what the agent has to do, though it is not all news."""

    def __bool__(self) -> bool:
        return bool(self.rounds or self.replies)

    def interrupting(self) -> News:
        """The news worth interrupting an agent for: comments to fix, and answers."""
        return News(
            rounds=self.asking,
            asking=self.asking,
            approvals=tuple(id for id in self.approvals if id in self.asking),
            replies=self.replies,
            open=self.open,
        )

    def kinds(self) -> list[Kind]:
        """What the news is, for `review wait --json`."""
        found: list[Kind] = []
        if self.approvals:
            found.append("approval")
        if len(self.rounds) > len(self.approvals):
            found.append("round")
        if self.replies:
            found.append("reply")
        return found

    def answered(self) -> list[str]:
        """Ids of the comments the reviewer answered on, in the order of the review."""
        return list(dict.fromkeys(id for id, _ in self.replies))

    def is_new(self, comment: str, index: int) -> bool:
        """Whether the reply at `index` of the comment's thread is news."""
        return (comment, index) in self.replies


def find(review: Review) -> News:
    """The news in `review`."""
    still_open = review.open_comments()
    asking = {c.round for c in still_open}
    latest = review.latest_round()
    rounds = [
        r for r in review.rounds if r.delivered_at is None and (r.id in asking or (r is latest and not r.comment_ids))
    ]
    return News(
        rounds=tuple(r.id for r in rounds),
        asking=tuple(r.id for r in rounds if r.id in asking),
        approvals=tuple(r.id for r in rounds if r.verdict == "approve"),
        replies=tuple((c.id, index) for c in still_open for index in _unseen(c)),
        open=len(still_open),
    )


def unanswered(comment: Comment) -> list[int]:
    """Which replies of the thread (by index) are the reviewer's since the agent's last word: what
    the agent has yet to answer, shown to it as new."""
    answered = max((i for i, reply in enumerate(comment.thread) if reply.author == "agent"), default=-1)
    return [i for i, reply in enumerate(comment.thread) if i > answered and reply.author == "reviewer"]


def _unseen(comment: Comment) -> list[int]:
    # The agent has seen whatever it answered after, even if no channel recorded telling it
    # (a file written before replies were delivered, or an answer given without being told).
    return [i for i in unanswered(comment) if comment.thread[i].delivered_at is None]


def mark_delivered(store: Store, told: News) -> None:
    """Record that the agent has been told of `told`, and of nothing that came since."""
    if told:
        store.update(lambda review: _mark(review, told))


def deliver(store: Store, *, interrupting: bool = False) -> News:
    """Take the news (only what is worth `interrupting` an agent for, when asked): find it and
    mark it delivered in one step, so two channels never both tell the agent. Empty when there
    is none."""

    def change(review: Review) -> News:
        found = find(review)
        if interrupting:
            found = found.interrupting()
        _mark(review, found)
        return found

    return store.update(change)


def _mark(review: Review, told: News) -> None:
    at = now()
    for sent in review.rounds:
        if sent.id in told.rounds and sent.delivered_at is None:
            sent.delivered_at = at
    for comment in review.comments:
        for index, reply in enumerate(comment.thread):
            if told.is_new(comment.id, index) and reply.delivered_at is None:
                reply.delivered_at = at
