"""Files that several processes share: an exclusive lock, writes a reader never sees half done, and
reads and writes that never follow a symbolic link out of the review folder.

A repository can commit `.review`, or a file in it, as a symbolic link to anywhere (`~/.ssh`, another
project). Followed, it would make review write its state there, or read a private file into a
draft that is then sent to an agent. So the folder must be a real folder and its files real
files: a link is refused with one line naming it, and nothing is read or written through it.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from review.errors import CannotWrite, ReviewLocked, UnreadableReview, UnsafeReview, UnwritableReview

_NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC


def own_folder(folder: Path) -> None:
    """Check that `folder`, if it is there, is a real folder and not a symbolic link.

    Raises:
        UnsafeReview: it is a link, or not a folder.
        UnreadableReview: it cannot be looked at.
    """
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return
    except OSError as error:
        raise UnreadableReview(f"cannot look at {folder}: {error.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeReview(_refused(folder, "a symbolic link"))
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeReview(_refused(folder, "not a folder"))


def read_own(path: Path) -> bytes:
    """The bytes of a file in a review folder, read only if both are real (no symbolic link,
    and a plain file: a FIFO would block the reader for good).

    Raises:
        FileNotFoundError: there is no such file.
        UnsafeReview: the folder or the file is a link, or the file is not a plain file.
        UnreadableReview: it cannot be read.
    """
    own_folder(path.parent)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NO_LINK)
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeReview(_refused(path, "a symbolic link")) from None
        raise UnreadableReview(f"{path} cannot be read: {error.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeReview(_refused(path, "not a plain file"))
        try:
            return file.read()
        except OSError as error:
            raise UnreadableReview(f"{path} cannot be read: {error.strerror}") from None


def open_own(path: Path, flags: int) -> int:
    """`os.open` of a file in a review folder, refusing a symbolic link at its place.

    Raises:
        UnsafeReview: the folder or the file is a symbolic link.
        UnwritableReview: it cannot be opened.
    """
    own_folder(path.parent)
    try:
        return os.open(path, flags | _NO_LINK, 0o666)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeReview(_refused(path, "a symbolic link")) from None
        raise UnwritableReview(f"cannot open {path}: {error.strerror}") from None


def _refused(path: Path, what: str) -> str:
    # Saying where a link points tells the user what the repository was aiming at.
    try:
        where = f" (to {os.readlink(path)})" if what == "a symbolic link" else ""
    except OSError:
        where = ""
    return (
        f"{path} is {what}{where}, which a repository can commit to aim review elsewhere;"
        " review neither reads nor writes through it: remove it"
    )


LOCK_POLL = 0.001
"""Seconds between two tries for a lock another holds. The same however long a writer has
waited: pauses that grew with the wait (to 20 ms) let writers that had just come take the lock
again and again before one that had waited long, which tried least often; eight busy writers
then waited up to 2-5 s for a write (p99 0.9-2.1 s), 0.8-1.4 s (p99 0.6-0.8 s) with this."""


@contextmanager
def locked(path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on the file at `path` (made if missing) for the `with` block.

    Raises:
        UnsafeReview: the lock file or its folder is a symbolic link.
        UnwritableReview: the lock file cannot be opened.
        ReviewLocked: another holder kept the lock for `timeout` seconds.
    """
    # flock has no timeout, a thread blocked in it cannot be cancelled and SIGALRM works only
    # in the main thread, so we poll. A flock belongs to an open file description, so two
    # threads of one process exclude each other as two processes do.
    fd = open_own(path, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ReviewLocked(
                        f"another process has held {path} for {timeout:g} s; try again when it has finished"
                    ) from None
                time.sleep(LOCK_POLL)
        yield
    finally:
        os.close(fd)


def xdg_folder(variable: str, default: str, home: Path | None = None) -> Path:
    """The folder an XDG variable names (`XDG_CACHE_HOME`, say), or `default` under `home` (by
    default the user's) when it is unset, empty or relative: the XDG spec holds a relative path
    invalid, and one taken would put review's files wherever it runs, in an agent's worktree say."""
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path(home or os.path.expanduser("~"), default)


def user_cache_folder() -> Path:
    """review's folder in the user's cache folder (`$XDG_CACHE_HOME`, by default `~/.cache`)."""
    return xdg_folder("XDG_CACHE_HOME", ".cache") / "review"


def user_cache_file(kind: str, of: Path) -> Path:
    """Where review keeps its cache of `kind` for the folder `of`: in `user_cache_folder`, a file
    named by a hash of the folder's path."""
    name = hashlib.sha256(os.fsencode(of)).hexdigest()[:24]
    return user_cache_folder() / kind / f"{name}.json"


def write_cache(path: Path, data: bytes) -> None:
    """Write a cache file, unless it holds `data` already; one that cannot be written is left
    alone (a cache that is not kept costs time, nothing else)."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, data)
    except (OSError, CannotWrite):
        pass


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
    fd, temporary = _new_beside(target)
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


def remove_leftovers(target: Path) -> None:
    """Remove the temporary files of `target` that writers killed before their rename left.

    Call it only while holding the lock that every writer of `target` holds: then none of them
    is another writer's file in the making. A leftover harms no one (readers read `target`
    alone, and git ignores the review folder), but each is as large as the file was, and
    writers killed again and again would pile them up.
    """
    leftover = re.compile(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if leftover.fullmatch(name):
            with suppress(OSError):
                os.unlink(target.parent / name)


def _new_beside(target: Path) -> tuple[int, Path]:
    """A new temporary file beside `target`, open for writing, and its path."""
    # O_EXCL never follows a link at the name: a name already taken, by a leftover or by a link
    # planted there, is passed over for another.
    for _ in range(3):
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")  # see remove_leftovers
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "every name tried for a temporary file was taken", str(target.parent))
