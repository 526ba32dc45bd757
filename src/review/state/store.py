"""The review state of one worktree, kept in `<worktree>/.review/review.json`.

Every process that changes a review (the TUI, an agent's `review resolve`, a hook) goes through
`Store.update`: it takes an exclusive lock, re-reads the file, applies its change and replaces the
file atomically. Two writers therefore never lose each other's change, and a reader, which takes
no lock, sees the old file or the new one, never part of one. A file that cannot be understood is
never overwritten: the user is told which file and why, and a copy of it is kept.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from review.errors import CannotWrite, ReviewError, UnreadableReview, UnwritableReview
from review.repo.git import STATE_FOLDER
from review.state import codec
from review.state.files import locked, own_folder, read_own, remove_leftovers, replace_atomically
from review.state.model import SCHEMA, Review

FOLDER = STATE_FOLDER
LOCK_TIMEOUT = 10.0
"""Seconds a writer waits for another to finish before giving up."""

_T = TypeVar("_T")


class Store:
    """The review state of the worktree at `root`, in `root/.review/`."""

    def __init__(self, root: Path, *, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.root = Path(root)
        self.folder = self.root / FOLDER
        self.path = self.folder / "review.json"
        self.lock_path = self.folder / "lock"
        self.lock_timeout = lock_timeout

    def read(self) -> Review:
        """The review as it is on disk; an empty one when nothing was written yet.

        Raises:
            UnreadableReview: the file cannot be read or understood.
        """
        return self._load()[0]

    def update(self, change: Callable[[Review], _T]) -> _T:
        """Apply `change` to the review on disk and write the result; returns what it returns.

        Holding the lock from the re-read to the write is what lets two processes change the
        review at the same moment without losing either change. If `change` raises, nothing
        is written.

        Raises:
            UnreadableReview: the file cannot be read or understood; it is left untouched.
            ReviewLocked: another process held the lock for `lock_timeout` seconds.
            UnwritableReview: the folder or the file cannot be written.
        """
        self.make_folder()
        with locked(self.lock_path, self.lock_timeout):
            remove_leftovers(self.path)
            review, before = self._load()
            result = change(review)
            after = codec.dump(review)
            # An unchanged file is not rewritten, so watchers are not woken for nothing.
            if after != before:
                try:
                    replace_atomically(self.path, after)
                except CannotWrite as error:
                    raise UnwritableReview(str(error)) from None
        return result

    def make_folder(self) -> None:
        """Create `.review/` with its `.gitignore`, if they are not there yet.

        Raises:
            UnsafeReview: the folder is a symbolic link, or not a folder.
            UnwritableReview: the folder cannot be written.
        """
        own_folder(self.folder)
        # The .gitignore comes first, so git never sees the state, whatever happens next.
        try:
            self.folder.mkdir(exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not os.path.lexists(ignore):
                replace_atomically(ignore, b"*\n")
        except CannotWrite as error:
            raise UnwritableReview(str(error)) from None
        except OSError as error:
            raise UnwritableReview(f"cannot write in {self.folder}: {error.strerror}") from None

    def _load(self) -> tuple[Review, bytes | None]:
        try:
            data = read_own(self.path)
        except FileNotFoundError:
            return Review(), None
        try:
            return codec.parse(data), data
        except codec.Newer as newer:
            raise UnreadableReview(
                f"{self.path} was written by a newer version of review (schema '{newer}';"
                f" this one reads '{SCHEMA}'); upgrade review to use it"
            ) from None
        except codec.Invalid as invalid:
            raise UnreadableReview(
                f"{self.path} cannot be read ({invalid}); {self._keep_copy(data)}; fix it or remove it to start again"
            ) from None

    def _keep_copy(self, data: bytes) -> str:
        # One copy per distinct broken content, named after when it was written, so that
        # reading the same broken file again (or from another process) makes no new copy.
        for existing in sorted(self.folder.glob(f"{self.path.name}.broken-*")):
            try:
                if read_own(existing) == data:
                    return f"a copy is kept at {existing}"
            except (OSError, ReviewError):
                continue
        try:
            written = os.lstat(self.path).st_mtime
        except OSError:
            written = time.time()
        stamp = datetime.fromtimestamp(written, UTC).strftime("%Y%m%dT%H%M%S")
        copy = self.folder / f"{self.path.name}.broken-{stamp}"
        number = 2
        while copy.exists():
            copy = self.folder / f"{self.path.name}.broken-{stamp}-{number}"
            number += 1
        try:
            replace_atomically(copy, data)
        except CannotWrite as error:
            return f"no copy could be kept ({error})"
        return f"a copy is kept at {copy}"
