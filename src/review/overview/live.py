"""Keeping the overview up to date while agents work: a change in a worktree, its `.review/`
folder or its git state reads that worktree again, and only that one.

The folders of every worktree and the repository's git folder are watched. Each changed path is
taken to the worktree it belongs to: a file to the deepest worktree that holds it (worktrees may
be nested), `<git>/worktrees/NAME/` to the linked worktree whose git folder it is, `<git>/HEAD`
and `<git>/index` to the main worktree, `refs/heads/BRANCH` to the worktrees on that branch.
A worktree added or removed changes what is watched. Once a second, rows that looked active
(files changed in the last minute) and are no longer are read again, so that the state decays.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from watchfiles._rust_notify import RustNotify  # documented as watchfiles' direct interface
from watchfiles.main import _default_force_polling  # watchfiles is pinned: this stays

from review.overview import rows as row_module
from review.overview.rows import Row
from review.overview.status import Overview
from review.repo.git import STATE_FOLDER

Changed = Callable[[list[Row], set[Path]], None]

TICK_SECONDS = 1.0
"""How often `changed` is called with no change, for the ages, and active rows decay."""

GAP = 0.5
"""Seconds between two readings of one worktree: an agent that writes all the time has its row
read twice a second, not after every write, and the first change after a quiet spell is read at
once."""

_QUIET = frozenset({".git", "__pycache__", ".venv", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders in a worktree whose changes say nothing of the work: caches, environments, and a
linked worktree's own `.git` file."""
_STATE_FILES = frozenset({"review.json", "agent.json"})
"""The files in a worktree's `.review/` that rows are read from."""
_WORKTREE_STATE = frozenset(
    {"HEAD", "index", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply"}
)
"""What a worktree's git folder holds that a row shows: its commit, its staged work, an
operation under way."""


def follow(overview: Overview, stop: threading.Event, changed: Changed, *, debounce_ms: int = 50) -> None:
    """Keep `overview` up to date until `stop` is set; call `changed` after each change.

    Blocks: run it in a thread. It reads the rows first if they were never read. `changed`
    is called in that thread, with copies of every row (which this thread never changes
    afterwards) and the paths of the worktrees that were read again; other rows' conflict marks
    may have changed with them. Once a second it is called with no paths, so that ages can be
    drawn again.

    Args:
        overview: The overview to keep up to date; nothing else may refresh it meanwhile.
        stop: Set it to make `follow` return, within a fraction of a second.
        changed: Told of every change.
        debounce_ms: How long to gather the changes of one burst before reading.

    Raises:
        ReviewError: git could not list the worktrees any more (the repository is gone).
        OSError: the folders cannot be watched, not even by polling them.
    """
    if not overview.rows:
        overview.read_all()
    keeper = _Keeper(overview, changed)
    watcher = _Watcher(debounce_ms)
    try:
        while not stop.is_set():
            try:
                keeper.take(watcher.changes(_folders(overview), stop, keeper.wait_ms()))
            except FileNotFoundError:
                # A folder went between listing and watching: look again.
                if stop.wait(0.1):
                    return
                keeper.take(set(), relist=True)
                continue
            keeper.catch_up()
            keeper.tick()
    finally:
        watcher.close()


class _Watcher:
    """A watch on some folders and all within them, started afresh when the folders change."""

    def __init__(self, debounce_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.step_ms = max(1, min(20, debounce_ms))
        self.poll = _default_force_polling(None)  # as watchfiles decides: WSL, or asked to
        self.folders: list[Path] = []
        self.notify: RustNotify | None = None

    def changes(self, folders: list[Path], stop: threading.Event, wait_ms: int) -> set[Path]:
        """The paths that changed in `folders`, waiting at most `wait_ms` (none once `stop` is set).

        Raises:
            FileNotFoundError: one of `folders` is gone.
        """
        seen = self._start(folders) if self.notify is None or folders != self.folders else set()
        assert self.notify is not None
        try:
            got = self.notify.watch(self.debounce_ms, self.step_ms, wait_ms, stop)
        except RuntimeError:
            self.close()  # notify gave up on a folder: watch afresh next time
            return seen
        return seen | _paths(got)

    def _start(self, folders: list[Path]) -> set[Path]:
        """Watch `folders`; what the watch it replaces saw meanwhile."""
        try:
            fresh = RustNotify([str(folder) for folder in folders], False, self.poll, 300, True, True)
        except OSError as error:
            if isinstance(error, FileNotFoundError) or self.poll:
                raise
            self.poll = True  # the system would not watch so many folders (inotify's limit)
            fresh = RustNotify([str(folder) for folder in folders], False, True, 300, True, True)
        seen: set[Path] = set()
        if self.notify is not None:
            # The new watch is in place before the old one ends, so that no change falls between
            # them.
            seen = _paths(self.notify.watch(self.debounce_ms, self.step_ms, 1, None))
            self.notify.close()
        self.notify, self.folders = fresh, folders
        return seen

    def close(self) -> None:
        if self.notify is not None:
            self.notify.close()
            self.notify = None


def _paths(got: set[tuple[int, str]] | str) -> set[Path]:
    """The paths in what a watch returned ("timeout", "stop" or "signal" when there were none)."""
    return {Path(path) for _, path in got} if isinstance(got, set) else set()


def _folders(overview: Overview) -> list[Path]:
    """The folders to watch: every worktree that is there and the git folder, less those inside
    another (watching is recursive)."""
    wanted = {row.path for row in overview.rows if row.path.is_dir()} | {overview.repo.common_dir}
    return sorted(path for path in wanted if not any(parent in wanted for parent in path.parents))


class _Keeper:
    """Reads again what changed, and tells."""

    def __init__(self, overview: Overview, changed: Changed) -> None:
        self.overview = overview
        self.changed = changed
        self.next_tick = time.monotonic() + TICK_SECONDS
        self.unsettled: set[Path] = set()
        """Worktrees that appeared: read again at the next tick, for what they did before their
        folder was watched."""
        self.read_at: dict[Path, float] = {}
        self.waiting: set[Path] = set()
        """Worktrees that changed again soon after they were read: read once `GAP` is over."""

    def take(self, paths: set[Path], *, relist: bool = False) -> None:
        """Read again the worktrees that `paths` belong to; with `relist`, look for worktrees that
        came or went too."""
        known = {row.path for row in self.overview.rows}
        roots: set[Path] = set()
        for path in paths:
            found = self._owners(path, known)
            if found is None:
                relist = True
            else:
                roots |= found
        now = time.monotonic()
        soon = {root for root in roots if now - self.read_at.get(root, -GAP) < GAP}
        self.waiting |= soon
        if roots - soon or relist:
            self._refresh(roots - soon)

    def wait_ms(self) -> int:
        """How long to wait for changes: until the next tick, or until a waiting worktree is due."""
        due = self.next_tick
        if self.waiting:
            due = min(due, min(self.read_at.get(root, 0.0) for root in self.waiting) + GAP)
        return max(1, int((due - time.monotonic()) * 1000))

    def catch_up(self) -> None:
        """Read the waiting worktrees whose `GAP` is over."""
        now = time.monotonic()
        due = {root for root in self.waiting if now - self.read_at.get(root, -GAP) >= GAP}
        if due:
            self.waiting -= due
            self._refresh(due)

    def tick(self) -> None:
        """Once a second: read again the rows whose activity has expired, and tell."""
        now = time.monotonic()
        if now < self.next_tick:
            return
        self.next_tick = now + TICK_SECONDS
        expired = {row.path for row in self.overview.rows if _expired(row)}
        again = expired | self.unsettled
        self.unsettled = set()
        if again:
            self._refresh(again)
        else:
            self.changed([row.copied() for row in self.overview.rows], set())

    def _refresh(self, roots: Iterable[Path]) -> None:
        roots = set(roots)
        now = time.monotonic()
        self.read_at.update(dict.fromkeys(roots, now))
        self.waiting -= roots
        before = {row.path: row for row in self.overview.rows}
        after = self.overview.refresh(roots)
        # The rows read again are new objects; when the default branch moved that is every row.
        read = {row.path for row in after if before.get(row.path) is not row}
        self.unsettled |= {row.path for row in after if row.path not in before}
        self.changed([row.copied() for row in after], read)

    def _owners(self, path: Path, known: set[Path]) -> set[Path] | None:
        """The worktrees (of those `known`) a changed path belongs to: none for noise; None when
        it may mean that worktrees came or went."""
        common = self.overview.repo.common_dir
        for folder in (path, *path.parents):
            if folder == common:
                return self._git_owners(path.relative_to(common).parts, known)
            if folder in known:
                inside = path.relative_to(folder).parts
                return set() if _quiet(inside) else {folder}
        return set()

    def _git_owners(self, parts: tuple[str, ...], known: set[Path]) -> set[Path] | None:
        """The worktrees a change at `parts` in the git folder belongs to."""
        if not parts or parts[-1].endswith(".lock"):
            return set()
        rows = self.overview.rows
        if parts[0] == "worktrees":
            if len(parts) <= 2:
                return None  # a linked worktree's git folder came or went
            if parts[2] not in _WORKTREE_STATE:
                return set()
            root = _linked_root(self.overview.repo.common_dir / "worktrees" / parts[1])
            return {root} if root in known else None
        if parts[0] in _WORKTREE_STATE:
            main = rows[0].path if rows else None
            return {main} if main is not None else set()
        if parts[:2] == ("refs", "heads"):
            branch = "/".join(parts[2:])
            return {row.path for row in rows if row.branch == branch}
        if parts[0] in ("packed-refs", "reftable"):
            return {row.path for row in rows}  # which branch moved is not said: read them all
        if parts[0] in ("refs", "config"):
            return None  # the default branch may have moved (a remote's, or review.base)
        return set()


def _quiet(inside: tuple[str, ...]) -> bool:
    """Whether a change at `inside` (a path within a worktree) says nothing of its row."""
    if inside and inside[0] == STATE_FOLDER:
        return len(inside) > 1 and inside[1] not in _STATE_FILES
    return any(part in _QUIET for part in inside)


def _linked_root(git_dir: Path) -> Path | None:
    """The worktree whose git folder is `git_dir`: its `gitdir` file names the worktree's `.git`."""
    try:
        target = (git_dir / "gitdir").read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        return None
    return Path(os.path.normpath(git_dir / target)).parent if target else None


def _expired(row: Row) -> bool:
    """Whether a row shown as active has had no change for a minute, so reads otherwise now."""
    return (
        row.agent_state == "active"
        and row.last_change is not None
        and time.time() - row.last_change >= row_module.ACTIVE_SECONDS
    )
