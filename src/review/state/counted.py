"""What each file's diff came to when git last read it, remembered between runs in the user's cache
folder, so that a review opens as fast on a diff of a million lines as on one of ten.

The file list, the header's totals and the layout of the whole diff need each file's counts, not
its patch. When git's raw records (its files without their patches, which git lists in
milliseconds) are all known here, git reads the patches of the files on the first screen alone
before it is drawn, and the whole diff behind it: a file counted here takes its patch from there
when first asked for it (`FileDiff.counted`). The whole diff is then checked against what was
counted, and the screen reads the diff again in the rare case they differ.

With thousands of untracked files, git takes a while even for its raw records: it adds the files
to a copy of the index, then looks among them for copies of the files changed. What its diff is
made of is read in a few milliseconds, though (`View`), and the same makes the same diff: the
diff is remembered whole too, each file's record and counts in git's order, with what it was
made of, and opens from that alone when it is made of the same again.

A file is known by its raw record (paths, modes, blobs and status) and, when its new side is the
working tree, by the file's size, times and inode, as git's index knows a file unchanged. A file
written just before the diff was read may be written again within the same tick of the clock,
unseen by its times: it is not remembered. It is a cache: a file that cannot be read or written is
left alone.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import suppress
from pathlib import Path
from typing import Any, NamedTuple

from review.errors import ReviewError
from review.repo import file_states, git, scope
from review.repo.diff import (
    SUBMODULE_MODE,
    Counts,
    Diff,
    FileDiff,
    Later,
    Record,
    Summary,
    from_summaries,
    records,
    same_file,
)
from review.repo.git import Running, Worktree
from review.repo.scope import Sides
from review.state.files import user_cache_file, write_cache

_SCHEMA = 4
"""(4: the new side's size of a binary file in the working tree, which 3 left out when git named
its blob.)"""

FIRST_ROWS = 200
"""Rows of the diff git reads before the first screen: more than a screen holds."""
UNKNOWN_AT_MOST = 64
"""Files not known here that git may read before the first screen; with more, the whole diff is
read first."""
RECENT_SECONDS = 2.0
"""A working tree file changed this shortly before the diff was read is not remembered."""
WHOLE_AT_ONCE_BYTES = 4 << 20
WHOLE_AT_ONCE_FILES = 1_000
"""A diff whose remembered patches come to less, in fewer files, is read whole before the first
screen: git reads it in a few milliseconds, and reading the first screen's files on their own
would add a git. (The patches of 10,000 new files come to 2.5 MB, yet git writes them in 0.2 s
and Python parses them in 0.2 s more: there the raw records and the counts are quicker.)"""
WAIT_FOR_SCREEN = 3.0
"""Seconds the whole diff waits for the first screen to be drawn before it is parsed (the parse
would take the time the screen is drawn in)."""

BOTTOM_BYTES = 256 << 10
"""Bytes of patch of the files at the bottom of the diff that git reads before the first screen
at most (a few milliseconds of git): a larger bottom waits for the jump there."""

READ_ALONE_AT_MOST = 8
"""Times git reads files on their own while the whole diff is read (`_Later.read_alone`): enough
for the jumps of a reviewer who has just opened the diff; a search through every file waits for
the whole diff rather than start a git for each."""

_ASKED_EVERY = 0.02
"""Seconds between two looks, while the whole diff waits for the screen, at whether a file asked
for its patch."""

_ZEROS = frozenset("0")


def cache_file(worktree: Worktree) -> Path:
    """Where the counts of `worktree`'s files are remembered."""
    return user_cache_file("counts", worktree.root)


def _size_file(worktree: Worktree) -> Path:
    return cache_file(worktree).with_suffix(".size")


class Size(NamedTuple):
    """What the patches of a diff came to."""

    bytes: int
    files: int


def remembered_size(worktree: Worktree) -> Size:
    """What the patches of `worktree`'s diff came to when it was last read; nothing when nothing
    is remembered. (Kept apart from the counts, which take a while to read for 10,000 files, and
    which a small diff does without.)"""
    try:
        size, files = map(int, _size_file(worktree).read_bytes().split())
        return Size(size, files)
    except (OSError, ValueError):
        return Size(0, 0)


def _opens_from_counts(size: Size) -> bool:
    """Whether a diff of this size opens from its counts (see `WHOLE_AT_ONCE_BYTES`)."""
    return size.bytes >= WHOLE_AT_ONCE_BYTES or size.files >= WHOLE_AT_ONCE_FILES


def load(worktree: Worktree) -> dict[str, Counts]:
    """The counts of `worktree`'s files remembered, by `key`."""
    try:
        data = json.loads(cache_file(worktree).read_bytes())
        if not isinstance(data, dict) or data.get("schema") != _SCHEMA:
            return {}
        return {key: Counts(*fields) for key, fields in data["files"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _view_file(worktree: Worktree) -> Path:
    """Where `worktree`'s diff is remembered whole, with what it was made of (`View`)."""
    return cache_file(worktree).with_suffix(".view")


def remembered_whole(worktree: Worktree) -> bool:
    """Whether `worktree`'s diff is remembered whole, to open from that alone if it is made of
    the same files (`View`) again."""
    return _view_file(worktree).exists()


def _listed(worktree: Worktree, sides: Sides, read_at: float, later: Later) -> list[FileDiff] | None:
    """The files of the diff between `sides`, counted, in git's order, when it is made of what
    it was made of when it was remembered whole (`View`); else None.

    Raises:
        ReviewError: git failed.
    """
    listing = remembered_listing(worktree)
    if listing is None:
        return None
    made_of, summaries = listing
    view = View.read(worktree, sides, read_at)
    if view is None or view.made_of != made_of:
        return None
    try:
        return from_summaries(summaries, later)
    except ValueError:
        return None


_LISTING_SCHEMA = 2
"""(2: as `_SCHEMA` 4.)"""


def remembered_listing(worktree: Worktree) -> tuple[str, Iterator[Sequence[Any]]] | None:
    """What `worktree`'s diff remembered whole was made of (`View`), and its files' summaries
    (`FileDiff.summary`) in git's order; None when none is remembered, or it cannot be read."""
    try:
        schema, made_of, fields = marshal.loads(_view_file(worktree).read_bytes())
        if schema != _LISTING_SCHEMA or not isinstance(made_of, str):
            return None
        # (fields of fewer files than others, read, raise ValueError: see `_listed`)
        return made_of, zip(*fields, strict=True)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def remember_listing(worktree: Worktree, made_of: str, summaries: Sequence[Summary]) -> None:
    """Remember `worktree`'s diff whole: what it was made of, and its files' summaries."""
    # Kept a field at a time, as marshal writes Python's own values: 10,000 files' summaries are
    # read back in 4 ms, where JSON's 10,000 lists took 11.
    fields = [list(field) for field in zip(*summaries, strict=True)]
    write_cache(_view_file(worktree), marshal.dumps((_LISTING_SCHEMA, made_of, fields)))


def remember(worktree: Worktree, sides: Sides, diff: Diff, read_at: float) -> None:
    """Remember the counts of `diff`'s files, read from the time `read_at` on, in place of those
    remembered before (the diff of other sides forgets them: one comparison at a time is kept),
    and what the diff was made of when that can be known to be what git read."""
    known = {}
    for file in diff.files:
        found = key(worktree, sides, file.record, read_at)
        if found is not None:
            known[found] = file.counts
    size = Size(sum(f.patch_size for f in diff.files), len(diff.files))
    made_of = None
    if len(known) == len(diff.files) and _opens_from_counts(size):
        view = View.read(worktree, sides, read_at)
        # A file gone since git read the diff leaves no time of its own behind: the files of the
        # view are those of the diff's new side, or it may not be the diff's.
        if view is not None and view.paths == set(map(os.fsencode, _new_paths(f.record for f in diff.files))):
            made_of = view.made_of
    write_cache(cache_file(worktree), json.dumps({"schema": _SCHEMA, "files": known}).encode())
    write_cache(_size_file(worktree), f"{size.bytes} {size.files}".encode())
    if made_of is not None:
        remember_listing(worktree, made_of, [f.summary for f in diff.files])
    else:
        with suppress(OSError):
            _view_file(worktree).unlink(missing_ok=True)


class View(NamedTuple):
    """What the diff of the working tree, untracked files included, is made of: the raw records
    of the tracked files alone (git writes them in milliseconds, where the untracked files take
    it a while), the untracked files, and the size, times and inode of every working tree file
    among them; as a digest, which changes when any of them does."""

    made_of: str
    paths: frozenset[bytes]
    """The working tree's files in it, as raw bytes: the tracked files on the new side, and the
    untracked."""

    @classmethod
    def read(cls, worktree: Worktree, sides: Sides, read_at: float) -> View | None:
        """The view of the diff between `sides`; None when they are not the working tree with
        its untracked files, or when a file in it, or the index, changed lately (on the clock of
        `read_at`, as for `key`): it may change again within the same tick.

        Raises:
            ReviewError: git failed.
        """
        if not sides.working_tree or not sides.untracked:
            return None
        # (git lists the untracked files while it writes the tracked ones' records)
        listing = git.start_diff(worktree, sides.old, patch=False)
        try:
            untracked = git.untracked_files(worktree, folders=False)
            with listing.whole() as output:
                tracked = output.read()
        finally:
            listing.stop()
        paths = [*map(os.fsencode, _new_paths(records(tracked))), *untracked]
        try:
            if _recent(os.stat(git.index_path(worktree)), read_at):
                return None
        except OSError:
            return None
        states = file_states.read(worktree.root, paths)
        if states is None or states.newest >= read_at - RECENT_SECONDS:
            return None
        made_of = hashlib.sha256()
        for part in (os.fsencode(sides.old), tracked, b"\0".join(untracked), states.text):
            made_of.update(b"%d:" % len(part))
            made_of.update(part)
        return cls(made_of.hexdigest(), frozenset(paths))


def _new_paths(found: Iterable[Record]) -> list[str]:
    """The paths of the files on the new side of a diff (in a view, the working tree's)."""
    return [paths[-1] for meta, paths in found if not meta[4].startswith("D")]


def _in_working_tree(sides: Sides, record: Record) -> bool:
    """Whether the file of `record` is read from the working tree (git leaves its blob unnamed)."""
    meta = record[0]
    return set(meta[3]) == _ZEROS and not meta[4].startswith("D") and sides.working_tree


def _recent(found: os.stat_result, read_at: float) -> bool:
    return max(found.st_mtime, found.st_ctime) >= read_at - RECENT_SECONDS


def key(worktree: Worktree, sides: Sides, record: Record, read_at: float) -> str | None:
    """What a file's counts are remembered by: its raw record, and the state of its file when it
    is the working tree's. None for a file that cannot be known this way: a submodule (its
    changes inside are not in the record), or a working tree file gone or changed lately."""
    meta, paths = record
    if SUBMODULE_MODE in meta[:2]:
        return None
    state = ""
    if _in_working_tree(sides, record):
        try:
            # (a path joined as text: 2,000 Path objects took a few milliseconds)
            found = os.lstat(os.path.join(worktree.root, paths[-1]))
        except OSError:
            return None
        if _recent(found, read_at):
            return None
        state = f"{found.st_size} {found.st_mtime_ns} {found.st_ctime_ns} {found.st_ino}"
    return "\0".join((" ".join(meta), *paths, state))


class _Later(Later):
    """The whole diff by path, which the counted files take their patches from once git has read
    it (`finish`). A file asking for its patch before then (a jump far down a huge diff just
    opened) has git read it on its own, in a few tens of milliseconds rather than the seconds
    the whole diff may still take; one that git reads otherwise on its own (a rename paired
    anew, say) waits for the whole diff, and has git's reading start at once if the first
    screen is not shown yet, rather than wait for a screen that would be waiting for it."""

    def __init__(self, worktree: Worktree, sides: Sides) -> None:
        super().__init__()
        self.asked = threading.Event()
        self._worktree, self._sides = worktree, sides
        self._files: dict[int, tuple[int, Sequence[FileDiff]]] = {}
        self._alone_left = READ_ALONE_AT_MOST
        self._lock = threading.Lock()

    def opened(self, files: Sequence[FileDiff]) -> None:
        """The files of the diff opened, in order: a file read alone brings the next ones."""
        self._files = {id(file): (index, files) for index, file in enumerate(files)}

    def read_alone(self, file: FileDiff) -> bool:
        # The file and those after it that a screen shows with it, in one git: a screen at the
        # bottom of the diff asks for the files on it one after the other.
        index, files = self._files.get(id(file), (0, [file]))
        wanted, rows = [], 0
        for next_file in files[index:]:
            if rows >= FIRST_ROWS:
                break
            if not next_file.ready:
                wanted.append(next_file)
                rows += 2 + next_file.body_lines
        with self._lock:
            if not wanted or not self._alone_left:
                return file.ready
            self._alone_left -= 1
        try:
            read = scope.read(self._worktree, self._sides, paths=sorted({p for f in wanted for p in f.paths}))
        except ReviewError:
            return False
        by_path = {f.path: f for f in read.files}
        for counted in wanted:
            alone = by_path.get(counted.path)
            # (a file changed since it was counted has other counts: the screen reads the diff
            # again once the whole is read, as for any file that differs from its count)
            if alone is not None and same_file(alone.record, counted.record):
                counted.take_patch(alone)
        return file.ready

    def result(self, timeout: float | None = None) -> Mapping[str, FileDiff]:
        self.asked.set()
        return super().result(timeout)


class Opened(NamedTuple):
    """A diff opened from what was counted: its files on the first screen read by git, the others
    known by their counts until git has read the whole diff (`finish`)."""

    diff: Diff
    running: Future[Running]
    """git reading the whole diff."""
    later: _Later
    """The whole diff by path, which the counted files take their patches from."""
    unchanged: frozenset[str]
    """The paths of the files counted before: unchanged since then, and since the comments on
    them were last looked for (which that opening did before it counted them)."""


def open_counted(worktree: Worktree, sides: Sides, running: Future[Running], read_at: float) -> Opened | None:
    """The diff that `running` (git, reading the whole diff, once started) is reading, with its
    files on the first screen and those not counted before read by git on their own and the
    others counted; None when it has too many files not counted before, or is small enough to be
    read whole. `read_at` is when the reading started, on the clock files are stamped with.

    Raises:
        ReviewError: git failed.
    """
    if not _opens_from_counts(remembered_size(worktree)):
        return None
    later = _Later(worktree, sides)
    listed = _listed(worktree, sides, read_at, later)
    by_counts: list[FileDiff | None]
    if listed is not None:
        found: list[Record | None] = [None] * len(listed)
        by_counts = list(listed)
    else:
        known = load(worktree)
        # git writes its raw records first, in milliseconds, where the patches of a huge diff
        # take it a second
        read_first = records(running.result())
        keys = [key(worktree, sides, record, read_at) for record in read_first]
        counts = [known.get(k) if k is not None else None for k in keys]
        if sum(c is None for c in counts) > UNKNOWN_AT_MOST:
            return None
        found = list(read_first)
        by_counts = [
            FileDiff.counted(record, c, later) if c is not None else None
            for record, c in zip(read_first, counts, strict=True)
        ]
    wanted: set[str] = set()
    rows = 0
    for record, counted in zip(found, by_counts, strict=True):
        if counted is None or rows < FIRST_ROWS:
            wanted.update(_paths(record, counted))
        if rows < FIRST_ROWS:
            rows += _fewest_rows(counted)
    # and the bottom's, when small, for the jump there to be drawn ahead as the first screen is
    # read (it waited for a git of its own)
    rows = size = 0
    for record, counted in zip(reversed(found), reversed(by_counts), strict=True):
        size += counted.patch_size if counted is not None else 0
        if rows >= FIRST_ROWS or size > BOTTOM_BYTES:
            break
        wanted.update(_paths(record, counted))
        rows += _fewest_rows(counted)
    read = {f.path: f for f in scope.read(worktree, sides, paths=sorted(wanted)).files} if wanted else {}
    files = []
    for record, counted in zip(found, by_counts, strict=True):
        file = read.get(_paths(record, counted)[-1])
        if file is None:
            file = counted
        elif file.record != (record if counted is None else counted.record):
            return None  # git paired the files read alone otherwise (a rename, a copy): read the whole diff
        if file is None:
            return None  # a file not known that git did not read alone: read the whole diff
        files.append(file)
    unchanged = frozenset(counted.path for counted in by_counts if counted is not None)
    later.opened(files)
    return Opened(Diff(files=files, size=sum(f.patch_size for f in files)), running, later, unchanged)


def _fewest_rows(counted: FileDiff | None) -> int:
    """The fewest rows a file can take: a file not known may be one line, and one shown as a note
    (large, binary) is its header. The first screen then finds every file it shows read, however
    the files not known turn out."""
    return 2 + (counted.body_lines if counted is not None and counted.hunks_shown_unasked else 0)


def _paths(record: Record | None, counted: FileDiff | None) -> tuple[str, ...]:
    """The paths of a file: of its record, or else of the file counted."""
    if record is not None:
        return record[1]
    assert counted is not None
    return counted.paths


def wait_for_screen(opened: Opened, shown: threading.Event) -> None:
    """Wait for the screen of an opened diff to be shown, or for a counted file to ask for its
    patch if that comes first (at most `WAIT_FOR_SCREEN`): the whole diff is read after it."""
    waited = 0.0
    while not shown.wait(_ASKED_EVERY) and not opened.later.asked.is_set() and waited < WAIT_FOR_SCREEN:
        waited += _ASKED_EVERY


def finish(worktree: Worktree, sides: Sides, opened: Opened) -> tuple[Diff, bool]:
    """Read the whole diff behind an opened one, for the counted files to take their patches
    from; and whether it is the diff opened (else it is to be read again).

    Raises:
        ReviewError: git failed.
    """
    try:
        whole = scope.read(worktree, sides, running=opened.running.result())
    except BaseException as error:
        opened.later.set_exception(error)
        raise
    opened.later.set_result({f.path: f for f in whole.files})
    same = len(whole.files) == len(opened.diff.files) and all(
        a.record == b.record and a.counts == b.counts for a, b in zip(whole.files, opened.diff.files, strict=True)
    )
    return whole, same
