"""What the viewer opens: a worktree's diff and its review, read in a thread of their own while
the screen is made, so that the screen draws them whole in its first frame."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import NamedTuple

from review.repo import scope
from review.repo.diff import Diff
from review.repo.git import Worktree
from review.repo.scope import Scope, Sides
from review.state import comments, rounds
from review.state.model import Review
from review.state.store import Store


class FirstDiff(NamedTuple):
    """The sides, and the diff and the review being read (the review once the diff is)."""

    sides: Sides
    reading: Future[Diff]
    anchoring: Future[Review]
    started: float
    """When the reading started (`file_time`): a file written after may not be in the diff."""


FIRST_SCREEN_WAIT = 1.0
"""Seconds a new review screen waits for its diff: it is drawn once, whole, when the reading is
done; a reading that takes longer shows the screen first, and the diff when it comes."""


def file_time() -> float:
    """Now, on the clock files are stamped with: on Linux the kernel's coarse clock, a few ms
    behind `time.time()`, by which a file written just after could seem written before."""
    coarse = getattr(time, "CLOCK_REALTIME_COARSE", None)
    return time.time() if coarse is None else time.clock_gettime(coarse)


def read_apart(worktree: Worktree, chosen: Scope) -> FirstDiff:
    """Start reading the diff of `chosen` and its review, with its comments found in the diff, in
    a thread of its own.

    Raises:
        ReviewError: the scope cannot be resolved (a bad revision, say): said here, before any
            screen is shown.
    """
    store = Store(worktree.root)
    sides = scope.resolve(worktree, chosen, rounds.last_sent(store) if chosen.since_review else None)
    reading: Future[Diff] = Future()
    anchoring: Future[Review] = Future()
    started = file_time()

    def read() -> None:
        try:
            reading.set_result(scope.read(worktree, sides))
            anchoring.set_result(comments.reanchor_on(store, worktree, sides.old, reading.result()))
        # whatever went wrong is raised where the results are taken
        except Exception as error:
            for future in (reading, anchoring):
                if not future.done():
                    future.set_exception(error)

    threading.Thread(target=read, name="review-read", daemon=True).start()
    return FirstDiff(sides, reading, anchoring, started)
