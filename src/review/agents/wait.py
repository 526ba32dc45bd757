"""`review wait`: block until there is news for the agent in this worktree.

News is a round the agent was not told of, or a reviewer's reply it has not seen (`review.state.news`).
The wait returns at once when there is some already, else as soon as some comes: it watches the
worktree's `.review/` folder for the review file to change (watchfiles: the kernel says when).
Comments that are open but already delivered do not end a wait, so an agent that asked the
reviewer a question can wait for the answer.
"""

from __future__ import annotations

import time

from watchfiles import watch

from review.state import news
from review.state.news import News
from review.state.store import Store

# A change is reported this long after the last write to the folder: the review file is replaced
# in one rename, so a short wait is enough to see it whole.
_STEP_MS = 10
# How often the watcher wakes with no change, to notice the deadline (and news that came in the
# moment before watching began).
_WAKE_MS = 250


def wait_for_news(store: Store, timeout: float | None) -> News | None:
    """The news once there is some, without marking it delivered; None when `timeout` seconds
    pass first."""
    found = news.find(store.read())
    if found:
        return found
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
        # the first wake also covers news that came just before the watcher started
        if changes or first:
            first = False
            found = news.find(store.read())
            if found:
                return found
        if deadline is not None and time.monotonic() >= deadline:
            return None
    return None
