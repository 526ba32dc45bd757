"""The agent asks for a review: `review request` records it in the review file, and the worktree
waits on the reviewer until a round answers it.

One request stands at a time: asking again replaces it (with the newer message and time, from
which the reviewer's queue counts). Sending a round answers it (`review.state.rounds.send`), so a
request never outlives the review it asked for.
"""

from __future__ import annotations

from review.state.model import Request, Review
from review.state.store import Store


def ask(store: Store, message: str) -> Request:
    """Record that the agent asks for a review, saying `message` (may be ""), in place of any
    request made before."""

    def change(review: Review) -> Request:
        review.request = Request(message=message.strip())
        return review.request

    return store.update(change)


def answer(review: Review) -> None:
    """The standing request, if any, is answered: called as a round is sent."""
    review.request = None
