"""git held back midway through a diff: a clean filter on one file waits for a lock the test holds,
so that what happens while git is still writing can be seen."""

from __future__ import annotations

import fcntl
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import Repo

HOLD = """
import fcntl, sys
with open(sys.argv[1]) as lock:
    fcntl.flock(lock, fcntl.LOCK_SH)
sys.stdout.buffer.write(sys.stdin.buffer.read())
"""
"""A clean filter that passes the file through once the test lets go of the lock."""

GIVE_UP = 10.0
"""Seconds after which the lock is let go of all the same, should the code tested wait for it (the
test then fails, rather than waiting for ever)."""


def hold_git_at(repo: Repo, path: str, folder: Path) -> Path:
    """Make git, in `repo` and its worktrees, read the file at `path` through a filter that waits
    for the lock returned (made in `folder`) while the test holds it (`held`)."""
    hold = folder / "hold.py"
    hold.write_text(HOLD)
    lock = folder / "lock"
    lock.touch()
    repo.git("config", "filter.hold.clean", f'"{sys.executable}" "{hold}" "{lock}"')
    (repo.root / ".git" / "info" / "attributes").write_text(f"{path} filter=hold\n")
    return lock


class Held:
    """A lock the test holds."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.let_go_of = threading.Event()
        """Set once the lock is let go of, by the test or after `GIVE_UP` seconds."""

    def let_go(self) -> None:
        self.let_go_of.set()
        fcntl.flock(self._fd, fcntl.LOCK_UN)


@contextmanager
def held(lock: Path) -> Iterator[Held]:
    """`lock` held by the test until it lets go of it (`Held.let_go`), the block ends or `GIVE_UP`
    seconds have passed."""
    with open(lock, "w") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        holding = Held(file.fileno())
        giving_up = threading.Timer(GIVE_UP, holding.let_go)
        giving_up.start()
        try:
            yield holding
        finally:
            giving_up.cancel()
