"""`review wait`: block until the reviewer sends a review to this worktree.

It watches the worktree's `.review/` folder for the review file to change (watchfiles: the kernel
says when), and returns as soon as a new round is there, or at once when comments sent earlier are
still open.
"""

from __future__ import annotations

import time

from watchfiles import watch

from review.store import Review, Store

# A change is reported this long after the last write to the folder: the review file is replaced
# in one rename, so a short wait is enough to see it whole.
_STEP_MS = 10
# How often the watcher wakes with no change, to notice the deadline (and a round sent in the
# moment before watching began).
_WAKE_MS = 250


def has_open(review: Review) -> bool:
    return any(c.status == "open" for c in review.comments)


def wait_for_review(store: Store, timeout: float | None) -> Review | None:
    """The review once there is something for the agent: open comments already, or a round sent
    after the wait began. None when `timeout` seconds pass first."""
    review = store.read()
    if has_open(review):
        return review
    latest = review.latest_round()
    seen = latest.id if latest is not None else None
    store.make_folder()
    deadline = None if timeout is None else time.monotonic() + timeout
    first = True
    for changes in watch(
        store.folder,
        debounce=_STEP_MS * 5,
        step=_STEP_MS,
        rust_timeout=_WAKE_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        # the first wake also covers a round sent just before the watcher started
        if changes or first:
            first = False
            review = store.read()
            latest = review.latest_round()
            if has_open(review) or (latest is not None and latest.id != seen):
                return review
        if deadline is not None and time.monotonic() >= deadline:
            return None
    return None
