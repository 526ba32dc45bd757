"""The status of every worktree of a repository, read in parallel and kept up to date one
worktree at a time: what `review status` prints and the overview shows."""

from __future__ import annotations

import os
import pickle
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from review import __version__
from review.agents.tmux import KNOWN_AGENTS, Tmux, agent_panes
from review.background import in_a_thread
from review.errors import DeliveryFailed, ReviewError
from review.overview.radar import Radar
from review.overview.rows import Repository, Row, default_of, finish, open_repository, start
from review.repo import git
from review.repo.git import WorktreeEntry
from review.repo.merge import ConflictHunk, Scratch
from review.state.model import stamp

SCHEMA = "review-status/1"
"""The schema of `review status --json`, so that a script (or another machine's review) can
tell which fields to expect."""

RENEW_AFTER = 2000
"""Rows read into one scratch store before the next refresh starts a new one."""

_WAIT_ORDER = {"reviewer": 0, "agent": 1, "nothing": 2}


class Overview:
    """The rows of one repository's worktrees. Its readings take turns: a live refresh in one
    thread and the conflicts the reviewer looks at in another never read at the same time."""

    def __init__(self, path: Path | str, *, tmux: Tmux | None = None, agents: Sequence[str] = KNOWN_AGENTS) -> None:
        """The worktrees of the repository at `path`.

        Args:
            tmux: Where to look for agents whose hooks name none (default: the tmux server this
                process runs in, else the user's, when tmux is installed).
            agents: The program names that count as agents in a pane.
        """
        self.repo, self._entries = open_repository(path)
        self.tmux = tmux if tmux is not None else Tmux() if shutil.which("tmux") else None
        self.agents = tuple(agents)
        self.scratch = Scratch(self.repo.common_dir)
        self.radar = Radar(self.repo, self.scratch)
        self._rows: dict[Path, Row] = {}
        self._reads = 0
        """Rows read into the scratch store since it was made."""
        self._turn = threading.RLock()

    def close(self) -> None:
        """Remove the scratch objects of the trial merges."""
        self.scratch.close()

    def __enter__(self) -> Overview:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def rows(self) -> list[Row]:
        """The worktrees in git's order, the main one first."""
        return [self._rows[entry.path] for entry in self._entries if entry.path in self._rows]

    def read_all(self) -> list[Row]:
        """Read every worktree, in parallel, and the radar between them."""
        with self._turn:
            self.read_rows()
            return self.read_radar()

    def read_rows(self) -> list[Row]:
        """Read every worktree, in parallel, without the radar (so that they can be shown while
        the trial merges run)."""
        with self._turn:
            self._read(self._entries)
            return self.rows

    def read_apart(self) -> Future[list[Row]]:
        """Read every worktree and the radar in a child process, and take its rows when done.

        For a program that is about to start its screen: the child starts git's many small
        processes without waiting for this process's interpreter, busy importing and starting
        Textual. Call it before any thread is started (it forks).
        """
        readable, writable = os.pipe()
        try:
            child = os.fork()
        except OSError:  # no process to spare: read here, in a thread
            os.close(readable)
            os.close(writable)
            return in_a_thread(self.read_all, "review-overview-read")
        if child == 0:  # pragma: no cover (the child's coverage is not collected)
            os.close(readable)
            try:
                self.read_all()
                found: object = (self._rows, self.radar.merges, self._reads)
            except BaseException as error:  # for the parent to raise
                found = error
            with os.fdopen(writable, "wb") as out:
                out.write(pickle.dumps(found))
            os._exit(0)
        os.close(writable)
        done: Future[list[Row]] = Future()

        def take() -> None:
            with os.fdopen(readable, "rb") as got:
                data = got.read()
            os.waitpid(child, 0)
            try:
                found = pickle.loads(data)
            except (pickle.UnpicklingError, EOFError) as error:
                done.set_exception(ReviewError(f"reading the worktrees failed: {error}"))
                return
            if isinstance(found, BaseException):
                done.set_exception(found)
                return
            with self._turn:
                self._rows, merges, self._reads = found
                self.radar.merges.update(merges)
                done.set_result(self.rows)

        threading.Thread(target=take, name="review-overview-read-apart", daemon=True).start()
        return done

    def read_radar(self) -> list[Row]:
        """Add the radar to the rows read."""
        with self._turn:
            self.radar.apply(self.rows)
            return self.rows

    def refresh(self, paths: Iterable[Path] = ()) -> list[Row]:
        """Read again the worktrees at `paths`, and any that appeared; forget those that went.

        Only those worktrees run git again, and the radar merges only their pairs; when the
        default branch itself moved, every row is measured against it again.
        """
        with self._turn:
            moved = self._default_moved() or self._renew_scratch()
            self._entries = git.list_worktrees(self.repo.home)
            known = {entry.path for entry in self._entries}
            self._rows = {path: row for path, row in self._rows.items() if path in known}
            wanted = set(paths)
            again = [e for e in self._entries if moved or e.path in wanted or e.path not in self._rows]
            self._read(again)
            self.radar.apply(self.rows)
            return self.rows

    def _default_moved(self) -> bool:
        default = default_of(self.repo.home)
        if default == (self.repo.default_branch, self.repo.default_commit):
            return False
        self.repo = self.radar.repo = Repository(self.repo.home, *default)
        return True

    def _renew_scratch(self) -> bool:
        """Start a new scratch store once the old one holds many snapshots: every edit makes
        one, and an overview may follow agents for days. Every row is read into the new one."""
        if self._reads < RENEW_AFTER:
            return False
        self.scratch.close()
        self.scratch = Scratch(self.repo.common_dir)
        self.radar = Radar(self.repo, self.scratch)
        self._reads = 0
        return True

    def _read(self, entries: list[WorktreeEntry]) -> None:
        if not entries:
            return
        workers = min(len(entries), 2 * (os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            readings = list(pool.map(lambda entry: start(entry, self.repo, self.scratch), entries))
        self._reads += len(readings)
        rows = finish(readings, self.repo, self.scratch)
        self._name_agents(rows)
        for row in rows:
            self._rows[row.path] = row

    def _name_agents(self, rows: list[Row]) -> None:
        """Name the agents no hook named from the tmux panes they run in, if any."""
        unnamed = [row for row in rows if row.agent is None and not row.problem]
        if not unnamed or self.tmux is None:
            return
        try:
            found = agent_panes(self.tmux, [row.path for row in unnamed], self.agents)
        except DeliveryFailed:
            return  # no tmux server: nothing to learn there
        for row in unnamed:
            pane = found.get(row.path)
            if pane is not None:
                row.agent = pane.agent

    def conflicts(self, row: Row, other: Row | None) -> list[tuple[str, list[ConflictHunk]]]:
        """The files and hunks that conflict between two worktrees (None: the default branch)."""
        with self._turn:
            return self.radar.conflicts(row, other)

    def as_json(self) -> dict[str, Any]:
        """What `review status --json` prints."""
        home = self.repo.common_dir.parent if self.repo.common_dir.name == ".git" else self.repo.common_dir
        return status_json(str(home), self.repo.default_branch, self.rows)


def status_json(repo: str | None, default_branch: str | None, rows: Iterable[Row]) -> dict[str, Any]:
    """`review status --json` of a repository (None: none here, only other machines asked)."""
    return {
        "schema": SCHEMA,
        "version": __version__,
        "repo": repo,
        "default_branch": default_branch,
        "worktrees": [row_json(row) for row in rows],
    }


def queue(rows: Iterable[Row]) -> list[Row]:
    """The worktrees that wait on the reviewer, the one waiting longest first."""
    return [row for row in by_wait(rows) if row.needs_reviewer]


def by_wait(rows: Iterable[Row]) -> list[Row]:
    """Rows grouped by what they wait on (the reviewer first), the longest waiting first."""
    return sorted(
        rows,
        key=lambda row: (
            bool(row.problem),
            _WAIT_ORDER[row.waits_on],
            row.review_state != "approved",  # among those that wait on nothing, ready to merge first
            row.waiting_since is None,
            row.waiting_since or 0.0,
        ),
    )


def row_json(row: Row) -> dict[str, Any]:
    """One row as `review status --json` writes it."""
    return {
        "path": str(row.path),
        "name": row.name,
        "branch": row.branch,
        "head": row.head,
        "agent": row.agent,
        "agent_state": row.agent_state,
        "last_change": stamp(row.last_change),
        "files": row.files,
        "added": row.added,
        "removed": row.removed,
        "ahead": row.ahead,
        "behind": row.behind,
        "review_state": row.review_state,
        "waits_on": row.waits_on,
        "reason": row.reason,
        "waiting_since": stamp(row.waiting_since),
        "requested": None if row.request is None else {"message": row.request, "at": stamp(row.requested_at)},
        "delivery": {
            "heard": row.delivery.heard,
            "notices": row.delivery.notices,
            "channels": list(row.delivery.channels),
            "last_notice": row.delivery.last_notice,
        },
        "open_comments": row.open_comments,
        "answered_comments": row.answered_comments,
        "addressed_comments": row.addressed_comments,
        "notes": row.notes,
        "merges_cleanly": row.merges_cleanly,
        "default_conflict_files": row.default_conflict_files,
        "overlaps": [
            {
                "worktree": str(overlap.worktree),
                "files": overlap.files,
                "conflict": overlap.conflict,
                "conflict_files": overlap.conflict_files,
            }
            for overlap in row.overlaps
        ],
        "note": row.note or None,
        "problem": row.problem or None,
    }


def age(when: float | None, now: float | None = None) -> str:
    """How long ago, in the largest unit: "12s", "5m", "3h", "2d"; "" when unknown."""
    if when is None:
        return ""
    seconds = max(0, int((now if now is not None else time.time()) - when))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
