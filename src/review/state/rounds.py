"""Sending a review: the drafts become one round, recorded with a snapshot of the worktree, and
the round is written out as instructions for an agent that reads files."""

from __future__ import annotations

from collections.abc import Callable

from review import command
from review.errors import NothingToSend, PartlySent, ReviewError
from review.repo import git
from review.repo.git import Worktree
from review.repo.scope import Since
from review.state import requests
from review.state.files import replace_atomically
from review.state.model import Review, Round, Side, Verdict
from review.state.store import Store

INSTRUCTIONS = "instructions.md"


def sends_something(drafts: int, summary: str, verdict: Verdict) -> bool:
    """Whether a round would tell the agent anything: comments, a summary, or an approval."""
    return bool(drafts or summary.strip() or verdict == "approve")


def send(
    store: Store,
    worktree: Worktree,
    verdict: Verdict,
    summary: str,
    read: Callable[[str, Side], list[str] | None],
) -> Round:
    """Send the drafts as one round: they become open, and the round records a snapshot of the
    worktree so that what changes afterwards can be shown. It answers the agent's request for a
    review, if one stands.

    `read` gives a file's current lines, for the code quoted in the instructions file.

    Raises:
        NothingToSend: no drafts, no summary, and not an approval.
    """
    drafts = [c for c in store.read().comments if c.status == "draft"]
    if not sends_something(len(drafts), summary, verdict):
        raise NothingToSend("nothing to send: write a comment, a summary, or approve")
    snapshot = git.snapshot(worktree, "review: the worktree as it was reviewed")

    def change(review: Review) -> tuple[Review, Round]:
        sent = Round(id=review.new_round_id(), verdict=verdict, summary=summary, snapshot=snapshot)
        for comment in review.comments:
            if comment.status == "draft":
                comment.status = "open"
                comment.round = sent.id
                comment.updated_at = sent.sent_at
                sent.comment_ids.append(comment.id)
        review.rounds.append(sent)
        requests.answer(review)  # the agent asked for this review, if it asked
        return review, sent

    review, sent = store.update(change)
    try:
        git.keep(worktree, f"refs/review/{git.worktree_name(worktree)}/{sent.id}", snapshot)
        write_instructions(store, worktree, review, sent, read)
    except ReviewError as error:
        # The round is in the review file, so the agent can read it: say so, lest it be sent twice.
        raise PartlySent(f"review {sent.id} was sent, but {error}") from None
    return sent


def write_instructions(
    store: Store, worktree: Worktree, review: Review, sent: Round, read: Callable[[str, Side], list[str] | None]
) -> None:
    """`.review/instructions.md`: the round as an agent that reads files rather than running
    commands finds it."""
    from review.state import instructions  # only as a review is sent: off the path to the first screen

    items = instructions.gather(review, read)
    text = instructions.markdown(worktree.root, sent, items, review=command.runnable(), always=True)
    replace_atomically(store.folder / INSTRUCTIONS, text.encode("utf-8", "surrogateescape"))


def last_sent(store: Store) -> Since | None:
    """The review sent last, for comparing against (`--since-review`); None before the first."""
    sent = store.read().latest_round()
    return None if sent is None else Since(sent.id, sent.snapshot)
