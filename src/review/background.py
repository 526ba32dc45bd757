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
    started = WhenAsked(work, name)
    started.start()
    return started


class WhenAsked(Future[_T]):
    """`work`, started in a daemon thread called `name` only once asked for: by `start`, or by
    waiting for its result. (git reading a whole diff, say, that the first screen may not need:
    on two cores, the screen's thread is drawn sooner without git beside it.)"""

    def __init__(self, work: Callable[[], _T], name: str) -> None:
        super().__init__()
        self._work = work
        self._name = name
        self._starting = threading.Lock()
        self._started = False

    def start(self) -> None:
        with self._starting:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name=self._name, daemon=True).start()

    def result(self, timeout: float | None = None) -> _T:
        self.start()
        return super().result(timeout)

    def _run(self) -> None:
        try:
            self.set_result(self._work())
        except BaseException as error:  # for whoever waits for it
            self.set_exception(error)
