"""What the agent has not read yet: news, and how often a channel pointed the agent to it.

News is a round the agent has not read, or a reviewer's reply it has not read. **Delivered means
read**: a piece of news is delivered only when the agent reads it (`review pending`, `review
wait`, the MCP tool), which marks exactly what was shown to it (`mark_read`). A channel that can
only point the agent to the news (the Stop hook, `review watch` in tmux, Pi's extension) records a
notice instead (`notify`): the news stays unread, so a pointer that never arrived, a command the
agent was refused, or a `review` its shell could not find leaves it to be pointed to again at a
later stop, at most `POINTERS` times, after which the overview says it was not read.

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

from review.state.model import Comment, Notice, Reply, Review, Round, now
from review.state.store import Store

Kind = Literal["round", "approval", "reply"]

Reader = Literal["pending", "wait", "mcp"]
"""What the agent read news with."""

POINTERS = 3
"""How many times the channels point the agent to one piece of news it does not read; after
that they leave it be (an agent that cannot run `review` would be stopped from stopping for ever)
and the overview shows it as not read."""


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
    """The news in `review`: what the agent has not read."""
    still_open = review.awaiting_agent()
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


Heard = Literal["none", "read", "unread", "notified", "not read"]
"""Whether the agent has read what was sent to it: nothing was sent; all of it is read; some is
unread and no channel pointed to it yet; pointed to, not read yet; pointed to `POINTERS` times and
still not read (the channels gave up: look at the agent)."""


@dataclass(frozen=True)
class Delivery:
    """How the news of a review reached the agent, for the overview."""

    heard: Heard
    notices: int = 0
    """The most times one piece of unread news was pointed to."""
    channels: tuple[str, ...] = ()
    """The channels that pointed to the unread news, first one first."""
    last_notice: str | None = None


NOTHING_SENT = Delivery("none")


def delivery(review: Review) -> Delivery:
    """How far the agent has heard of what the reviewer sent it."""
    unread = find(review).interrupting()
    if not unread:
        return Delivery("read") if review.rounds else NOTHING_SENT
    notices = [item.notices for item in _items(review, unread)]
    flat = sorted((notice for some in notices for notice in some), key=lambda notice: notice.at)
    most = max(map(len, notices), default=0)
    heard: Heard = "not read" if most >= POINTERS else "notified" if most else "unread"
    channels = tuple(dict.fromkeys(notice.channel for notice in flat))
    return Delivery(heard, most, channels, flat[-1].at if flat else None)


def mark_read(store: Store, told: News, by: Reader) -> None:
    """Record that the agent read `told` with `by`, and nothing that came since."""
    if told:
        store.update(lambda review: _mark_read(review, told, by))


def notify(store: Store, channel: str, *, limit: int = POINTERS) -> News:
    """Take the news worth interrupting the agent for that `channel` may point it to: unread, and
    pointed to fewer than `limit` times by any channel. A notice of `channel` is recorded on each,
    in the same locked step, so two channels never point to the same news at once. Empty when
    there is none."""

    def change(review: Review) -> News:
        found = _pointable(review, find(review).interrupting(), limit)
        at = now()
        for item in _items(review, found):
            item.notices.append(Notice(channel=channel, at=at))
        return found

    return store.update(change)


def withdraw(store: Store, told: News, channel: str) -> None:
    """Take back the notices `notify` recorded for `told` when the pointer did not arrive."""

    def change(review: Review) -> None:
        for item in _items(review, told):
            for index in range(len(item.notices) - 1, -1, -1):
                if item.notices[index].channel == channel:
                    del item.notices[index]
                    break

    store.update(change)


def pointable(review: Review, limit: int = POINTERS) -> News:
    """The interrupting news that a channel may still point the agent to (see `notify`)."""
    return _pointable(review, find(review).interrupting(), limit)


def _pointable(review: Review, found: News, limit: int) -> News:
    rounds = {sent.id: sent for sent in review.rounds}
    fresh_rounds = tuple(id for id in found.rounds if len(rounds[id].notices) < limit)
    fresh_replies = tuple(
        (id, index) for id, index in found.replies if len(review.comment(id).thread[index].notices) < limit
    )
    if not fresh_rounds and not fresh_replies:
        return News()
    return News(
        rounds=fresh_rounds,
        asking=tuple(id for id in found.asking if id in fresh_rounds),
        approvals=tuple(id for id in found.approvals if id in fresh_rounds),
        replies=fresh_replies,
        open=found.open,
    )


def _items(review: Review, told: News) -> list[Round | Reply]:
    """The rounds and replies `told` is made of."""
    items: list[Round | Reply] = [sent for sent in review.rounds if sent.id in told.rounds]
    for comment in review.comments:
        items += [reply for index, reply in enumerate(comment.thread) if told.is_new(comment.id, index)]
    return items


def _mark_read(review: Review, told: News, by: Reader) -> None:
    at = now()
    for item in _items(review, told):
        if item.delivered_at is None:
            item.delivered_at = at
            if isinstance(item, Round):
                item.read_by = by
