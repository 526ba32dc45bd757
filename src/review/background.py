"""Work started in a thread of its own, its outcome in a future: what a screen needs read while
Textual starts (a worktree's diff, the overview's rows)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

_T = TypeVar("_T")


def in_a_thread(work: Callable[[], _T], name: str) -> Future[_T]:
    """Start `work` in a daemon thread called `name`; what it returns, or raises, in a future."""
    done: Future[_T] = Future()

    def run() -> None:
        try:
            done.set_result(work())
        except BaseException as error:  # for whoever waits for it
            done.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return done
