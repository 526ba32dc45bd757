"""Files that several processes share: an exclusive lock, and writes a reader never sees half done."""

from __future__ import annotations

import fcntl
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from review.errors import CannotWrite, ReviewLocked, UnwritableReview


@contextmanager
def locked(path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on the file at `path` (made if missing) for the `with` block.

    Raises:
        UnwritableReview: the lock file cannot be opened.
        ReviewLocked: another holder kept the lock for `timeout` seconds.
    """
    # flock has no timeout, a thread blocked in it cannot be cancelled and SIGALRM works only
    # in the main thread, so we poll. A flock belongs to an open file description, so two
    # threads of one process exclude each other as two processes do.
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as error:
        raise UnwritableReview(f"cannot open {path}: {error.strerror}") from None
    try:
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ReviewLocked(
                        f"another process has held {path} for {timeout:g} s; try again when it has finished"
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        yield
    finally:
        os.close(fd)


def replace_atomically(target: Path, data: bytes) -> None:
    """Write `data` to `target` so that a reader sees the old file or the new one, whole.

    Every file review writes goes through here, so a full disk or a read-only folder is always
    the program's own one-line error, never an `OSError` that escapes to the user.

    Raises:
        CannotWrite: the file or its folder cannot be written.
    """
    try:
        _replace(target, data)
    except OSError as error:
        raise CannotWrite(f"cannot write {target}: {error.strerror or error}") from None


def _replace(target: Path, data: bytes) -> None:
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    # The rename itself is durable only once the folder is synced.
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
