"""The overview: every worktree of the repository, whom each waits on, and the conflicts between
them, with the detail of the one under the cursor.

The rows are read off the UI thread, one reader at a time (`Overview` is not thread-safe), and
arrive as a message with copies of the rows, so that a later refresh never changes what is drawn.
`show_rows` is the one way in: the first read, a refresh after a review, and live updates all
come through it, and the cursor stays on the same worktree. The first read, begun as the program
started, and the conflicting lines of the worktree under the cursor are waited for before the
first frame (`_show_first`), so that the overview comes whole.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future, wait
from dataclasses import replace
from functools import partial
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.cache import LRUCache
from textual.message import Message
from textual.worker import get_current_worker

from review.background import in_a_thread
from review.errors import ReviewError
from review.overview import attention, hosts, live
from review.overview.hosts import Gathered, Host
from review.overview.rows import Row
from review.overview.status import Overview
from review.repo.merge import ConflictHunk
from review.repo.text import visible
from review.state.opening import FIRST_SCREEN_WAIT
from review.tui.compact import OVERVIEW_KEYS
from review.tui.first_frame import FirstFrameOnly
from review.tui.widgets.overview_summary import Fact, OverviewSummary
from review.tui.widgets.radar_detail import Conflicts, RadarDetail
from review.tui.widgets.review_footer import ReviewFooter
from review.tui.widgets.worktree_table import WorktreeTable

LOADING_AFTER = 0.4
"""Seconds the first read may take before the table says it is reading."""

QUIT_WAIT = 3.0
"""Seconds the app waits, when it closes, for the threads reading the overview to stop."""

TICK_SECONDS = 5.0
"""How often the ages are drawn again."""

CONFLICTS_AHEAD = 16
"""Rows whose conflicting hunks are read before the cursor comes to them, at most."""

_ConflictKey = tuple[str | None, tuple[tuple[Path, str | None], ...], bool]


class OverviewScreen(FirstFrameOnly[None]):
    """Every worktree of a repository; `enter` opens one's review."""

    BINDINGS = [
        Binding("enter", "open_review", "Review", id="open_review"),
        Binding("i", "show_detail", "Detail", show=False, id="show_detail"),
    ]

    DEFAULT_CSS = """
    OverviewScreen {
        WorktreeTable { height: auto; max-height: 60%; }
        RadarDetail { height: 1fr; border-top: hkey $panel-lighten-2; }
        /* a small screen: the table alone, the detail a pop-up (i) */
        &.-compact WorktreeTable { height: 1fr; max-height: 100%; }
        &.-compact RadarDetail { display: none; }
    }
    """

    class RowsRead(Message):
        """Every row as read now (copies), and the worktrees that changed."""

        def __init__(self, rows: list[Row], changed: Collection[Path]) -> None:
            super().__init__()
            self.rows = rows
            self.changed = changed

    class ConflictsRead(Message):
        """The conflicting hunks of a worktree with the others, read off the UI thread."""

        def __init__(self, key: _ConflictKey, found: Conflicts) -> None:
            super().__init__()
            self.key = key
            self.found = found

    class Open(Message):
        """The reviewer asks for the review of the worktree at `path` (the app opens it)."""

        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    class HostsRead(Message):
        """What the other machines said, asked all at once."""

        def __init__(self, gathered: list[Gathered]) -> None:
            super().__init__()
            self.gathered = gathered

    class Called(Message):
        """Worktrees newly call for the reviewer: the app tells the terminal."""

        def __init__(self, calls: Sequence[attention.Call]) -> None:
            super().__init__()
            self.calls = list(calls)

    class Failed(Message):
        """Reading the worktrees failed as a whole (a single worktree's trouble is its row's)."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(
        self,
        overview: Overview | None,
        *,
        watch: bool = True,
        now: Callable[[], float] = time.time,
        first: Future[list[Row]] | None = None,
        hosts: Sequence[Host] = (),
        poll: float = 30.0,
    ) -> None:
        """The overview of `overview`'s repository.

        Args:
            overview: Read here, in worker threads, one at a time; None for none here, only `hosts`.
            watch: Follow the worktrees' changes live (`review.overview.live`).
            now: The clock the ages are measured with.
            first: The first read, already under way (`overview.read_rows()`); None: read here.
            hosts: Repositories on other machines, shown below this one's, asked over ssh.
            poll: Seconds between two askings of the other machines, while following.
        """
        super().__init__()
        self.overview = overview
        self.hosts = {host.name: host for host in hosts}
        self.poll = poll
        self._local: list[Row] = []
        """This machine's rows, as last read."""
        self._remote: dict[str, Gathered] = {}
        """What each other machine said last."""
        self._ask_now = threading.Event()
        """Set to ask the other machines at once, without waiting for the next poll."""
        self.watching = watch
        self.now = now
        self._first = first
        self._reading = threading.Lock()
        """Held by whoever reads the overview here: the first read, refreshes, conflicts."""
        self._stop = threading.Event()
        self._following = threading.Event()
        """Clear while the live updates run."""
        self._following.set()
        self.live = False
        """Whether the live updates are on (they read the rows again after every change)."""
        self.loaded = False
        """Whether the first rows arrived."""
        self.rows: dict[Path, Row] = {}
        self._conflicts: LRUCache[_ConflictKey, Conflicts] = LRUCache(64)
        self._said: str | None = None
        self._first_conflicts: list[Future[OverviewScreen.ConflictsRead]] | None = None
        """While the first rows are shown: the conflicts being read for the first frame."""
        self._popup: RadarDetail | None = None
        """The detail shown as a pop-up (`i`), kept current with the one below the table."""

    def compose(self) -> ComposeResult:
        yield OverviewSummary(id="summary")
        yield WorktreeTable(now=self.now, id="worktrees")
        yield RadarDetail(now=self.now, id="detail")
        yield ReviewFooter()

    @property
    def table(self) -> WorktreeTable:
        return self.query_one(WorktreeTable)

    @property
    def detail(self) -> RadarDetail:
        return self.query_one(RadarDetail)

    def on_mount(self) -> None:
        self.table.default_branch = self._default_branch
        self.table.focus()
        self.watch(self.table, "moved_to", lambda _: self._show_detail(), init=False)
        if hasattr(type(self.app), "compact"):
            self.watch(self.app, "compact", self._compact)
        self._show_summary()
        self._show_first()
        if self._first is not None:  # waited for in vain: long enough already to say so
            self._say_loading()
        else:
            self.set_timer(LOADING_AFTER, self._say_loading)
        self.read_first()
        if self.hosts:
            self.ask_hosts()
        self.set_interval(TICK_SECONDS, self._tick)

    async def on_unmount(self) -> None:
        # the caller closes the overview once the app is done: nothing may still be reading it
        self.stop()
        await asyncio.to_thread(self._wait_for_readers, QUIT_WAIT)

    def _wait_for_readers(self, seconds: float) -> None:
        if self._following.wait(seconds) and self._reading.acquire(timeout=seconds):
            self._reading.release()

    @property
    def following(self) -> bool:
        """Whether the live updates are running."""
        return not self._following.is_set()

    def stop(self) -> None:
        """Stop following the worktrees."""
        self._stop.set()
        self._ask_now.set()

    def _say_loading(self) -> None:
        if not self.loaded:
            self.table.empty_message = "Reading the worktrees…"
            self.table.refresh()

    def _tick(self) -> None:
        """Tell the ages again, as time passed."""
        self.table.tick()
        for pane in self._details():
            pane.tick()
        self._show_detail()

    # -- reading -------------------------------------------------------------------------------

    def _show_first(self) -> None:
        """Show the rows read while Textual started, and the conflicting lines of the one under
        the cursor, waited for here so that the first frame has them; a reading that takes
        longer is shown when it comes (`read_first`, `read_conflicts`)."""
        first = self._first
        if first is None:
            return
        until = time.monotonic() + FIRST_SCREEN_WAIT
        wait([first], timeout=FIRST_SCREEN_WAIT)
        if not first.done() or first.exception() is not None:
            return
        # the reading thread is not started yet: nothing changes these rows while copied
        self._first = None
        self._local = [row.copied() for row in first.result()]
        self._first_conflicts = []
        try:
            self.show_rows(self._local)
        finally:
            coming, self._first_conflicts = self._first_conflicts, None
        wait(coming, timeout=max(0.0, until - time.monotonic()))
        for read in coming:
            if read.done() and read.exception() is None:
                self._conflicts_read(read.result())

    @work(thread=True, group="overview-read")
    def read_first(self) -> None:
        """Read every worktree (or wait for the read under way, unless shown already), then
        follow them live."""
        first, self._first = self._first, None
        if self.overview is None:  # only other machines: their rows come as they answer
            self.post_message(self.RowsRead([], set()))
            return
        with self._reading:
            try:
                if first is not None or not self.loaded:
                    rows = first.result() if first is not None else self.overview.read_rows()
                    self.post_message(self.RowsRead([row.copied() for row in rows], set()))
                # the rows first, then their radar: the trial merges take a while on many worktrees
                self.post_message(self.RowsRead([row.copied() for row in self.overview.read_radar()], set()))
            except ReviewError as error:
                self.post_message(self.Failed(str(error)))
                return
        if not self.watching or self._stop.is_set():
            return
        self.live = True
        self._following.clear()

        def changed(rows: list[Row], paths: set[Path]) -> None:
            # copies already, which the live updates never change afterwards
            self.post_message(self.RowsRead(rows, paths))

        try:
            live.follow(self.overview, self._stop, changed)
        except (ReviewError, OSError) as error:
            self.live = False
            self.post_message(self.Failed(f"The overview stopped following the worktrees: {error}"))
        finally:
            self._following.set()

    @work(thread=True, group="overview-read")
    def refresh_rows(self, paths: Sequence[Path]) -> None:
        """Read these worktrees again (and any that appeared or went), off the UI thread.

        While the live updates are on they read every change; a refresh from here could race
        with theirs, so it is left to them.
        """
        if self.live or self.overview is None:
            return
        with self._reading:
            try:
                rows = self.overview.refresh(paths)
            except ReviewError as error:
                self.post_message(self.Failed(str(error)))
                return
            self.post_message(self.RowsRead([row.copied() for row in rows], set(paths)))

    @on(RowsRead)
    def _rows_read(self, message: RowsRead) -> None:
        # The live updates look again every second; what did not change is not drawn again.
        if self.loaded and message.rows == self._local:
            return
        self._local = message.rows
        self.show_rows(self._local + self._remote_rows())

    @work(thread=True, group="hosts")
    def ask_hosts(self) -> None:
        """Ask the other machines, all at once, now and every `poll` seconds while following
        (or when asked to, `ask_again`)."""
        while not self._stop.is_set():
            self.post_message(self.HostsRead(hosts.gather(list(self.hosts.values()))))
            if not self.watching:
                return
            self._ask_now.wait(self.poll)
            self._ask_now.clear()

    def ask_again(self) -> None:
        """Ask the other machines at once (the reviewer came back from one)."""
        self._ask_now.set()

    @on(HostsRead)
    def _hosts_read(self, message: HostsRead) -> None:
        for gathered in message.gathered:
            self._remote[gathered.host.name] = gathered
        # a host's problem is said by its one row
        self.table.hosts = {name: hosts.heading(gathered, problem=False) for name, gathered in self._remote.items()}
        if self.loaded:
            self.show_rows(self._local + self._remote_rows())

    def _remote_rows(self) -> list[Row]:
        return [row for name in self.hosts if name in self._remote for row in hosts.rows_of(self._remote[name])]

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        if not self.loaded:
            self.table.empty_message = f"Cannot read the worktrees: {visible(message.reason)}"
            self.table.refresh()
        if message.reason != self._said:
            self._said = message.reason
            self.notify(message.reason, title="review", severity="error", timeout=10)

    def show_rows(self, rows: Sequence[Row]) -> None:
        """Show these rows (every worktree), the cursor staying on the same worktree; mark those
        that newly call for the reviewer, and tell the terminal."""
        if self.loaded:
            self.call(attention.calls(self.rows, rows))
        self.loaded = True
        self._said = None
        self.rows = {row.path: row for row in rows}
        self.table.default_branch = self._default_branch
        if not rows:
            asking = len(self._remote) < len(self.hosts)
            self.table.empty_message = "Asking the other machines…" if asking else "No worktrees."
        self.table.show(rows)
        self._show_summary()
        self._show_detail()
        # once this is drawn: the lines the cursor will show on the other rows
        self.call_after_refresh(self._read_conflicts_ahead)

    def _show_summary(self) -> None:
        """The summary's facts, ranked: on a narrow terminal the least needed give way whole
        (the default branch, the count of worktrees, the name, ...); what waits on the reviewer
        always stays."""
        rows = list(self.rows.values())
        facts: list[Fact] = []
        if self.overview is not None:
            repo = self.overview.repo
            name = repo.root.name if repo.root.name != ".git" else repo.root.parent.name
            facts.append(Fact(visible(name), "bold", rank=4))
            if repo.default_branch:
                facts.append(Fact(visible(repo.default_branch), "italic", rank=1))
        if self.hosts:
            reached = sum(1 for name in self.hosts if name in self._remote and not self._remote[name].problem)
            facts.append(Fact(f"{reached}/{len(self.hosts)} hosts", "bold", rank=3, before="  + "))
        if self.loaded:
            waiting = sum(row.needs_reviewer for row in rows)
            conflicts = sum(1 for row in rows for overlap in row.overlaps if overlap.conflict) // 2
            ready = sum(row.review_state == "approved" and not row.problem for row in rows)
            counts = [
                Fact(f"{len(rows)} worktree{'s' * (len(rows) != 1)}", rank=2),
                Fact(f"{waiting} wait{'s' * (waiting == 1)} on you"),
            ]
            if conflicts:
                counts.append(Fact(f"{conflicts} conflicting pair{'s' * (conflicts != 1)}", rank=6))
            if ready:
                counts.append(Fact(f"{ready} ready to merge", rank=5))
            facts += [replace(fact, before=" · ") if index else fact for index, fact in enumerate(counts)]
        self.query_one(OverviewSummary).show(facts)

    # -- the detail of the row under the cursor -----------------------------------------------

    def _show_detail(self) -> None:
        row = self.table.row
        if row is None:
            self.detail.show(None, self.rows, default_branch=None, conflicts={})
            return
        read = self._conflicts_to_read(row)
        conflicts: Conflicts | None = {} if read is None else self._conflicts.get(read[0])
        if read is not None and conflicts is None:
            if self._first_conflicts is None:
                self.read_conflicts(*read)
            else:  # before the first frame, which waits for them: Textual's workers start after it
                self._first_conflicts.append(
                    in_a_thread(partial(self._read_conflicts, *read), "review-overview-conflicts")
                )
        for pane in self._details():
            pane.show(row, self.rows, default_branch=self._default_branch, conflicts=conflicts)

    def _details(self) -> list[RadarDetail]:
        """The detail below the table, and the one in the pop-up while it is open."""
        popup = self._popup
        return [self.detail] + ([popup] if popup is not None and popup.is_attached else [])

    @property
    def _default_branch(self) -> str | None:
        return self.overview.repo.default_branch if self.overview is not None else None

    def _conflict_key(self, row: Row) -> _ConflictKey:
        """What the row's conflicting hunks depend on: its work and that of each worktree it
        conflicts with, and whether it conflicts with the default branch."""
        others = tuple(
            (overlap.worktree, other.snapshot if (other := self.rows.get(overlap.worktree)) else None)
            for overlap in row.overlaps
            if overlap.conflict
        )
        return row.snapshot, others, row.merges_cleanly is False

    def _conflicts_to_read(self, row: Row) -> tuple[_ConflictKey, Row, list[Row], bool] | None:
        """What `_read_conflicts` takes to read the conflicting hunks of `row`; None when it has
        none to read (none, or another machine's, which are not here)."""
        key = self._conflict_key(row)
        if row.host is not None or (not key[1] and not key[2]):
            return None
        others = [other for path, _ in key[1] if (other := self.rows.get(path)) is not None]
        return key, row, others, key[2]

    def _read_conflicts_ahead(self) -> None:
        """Read the conflicting hunks of the rows that have some and are not read yet, below the
        cursor first, so that the cursor shows them at once when it comes."""
        rows = self.table.rows
        at = rows.index(self.table.row) if self.table.row in rows else 0
        wanted = []
        for row in rows[at + 1 :] + rows[:at]:
            read = self._conflicts_to_read(row)
            if read is not None and self._conflicts.get(read[0]) is None:
                wanted.append(read)
        if wanted:
            self.read_conflicts_ahead(wanted[:CONFLICTS_AHEAD])

    @work(thread=True, exclusive=True, group="conflicts-ahead")
    def read_conflicts_ahead(self, wanted: list[tuple[_ConflictKey, Row, list[Row], bool]]) -> None:
        worker = get_current_worker()
        for read in wanted:
            if worker.is_cancelled or self._stop.is_set():
                return
            self._read_conflicts(*read)

    @work(thread=True, exclusive=True, group="conflicts")
    def read_conflicts(self, key: _ConflictKey, row: Row, others: list[Row], with_default: bool) -> None:
        self._read_conflicts(key, row, others, with_default)

    def _read_conflicts(self, key: _ConflictKey, row: Row, others: list[Row], with_default: bool) -> ConflictsRead:
        """Read the conflicting hunks (in a thread: git merges), and post them."""
        found: dict[Path | None, list[tuple[str, list[ConflictHunk]]]] = {}
        assert self.overview is not None  # only this machine's rows have hunks to read
        with self._reading:
            try:
                for other in others:
                    found[other.path] = list(self.overview.conflicts(row, other))
                if with_default:
                    found[None] = list(self.overview.conflicts(row, None))
            except ReviewError as error:
                self.post_message(self.Failed(str(error)))
        read = self.ConflictsRead(key, found)
        self.post_message(read)
        return read

    @on(ConflictsRead)
    def _conflicts_read(self, message: ConflictsRead) -> None:
        self._conflicts[message.key] = message.found
        row = self.table.row
        if row is not None and self._conflict_key(row) == message.key:
            self._show_detail()

    # -- going through the worktrees ----------------------------------------------------------

    def _compact(self, compact: bool) -> None:
        """Lay the overview out for a small screen (`review.tui.compact`), or for a wide one
        again: the table alone, the detail a pop-up, the footer the keys that matter."""
        self.set_class(compact, "-compact")
        self.query_one(ReviewFooter).compact = OVERVIEW_KEYS if compact else None

    def action_show_detail(self) -> None:
        """The detail of the worktree under the cursor as a pop-up: on a small screen it has no
        room below the table."""
        from review.tui.dialogs.worktree_detail import WorktreeDetail

        if self.table.row is None:
            return

        def shown(detail: RadarDetail) -> None:
            self._popup = detail
            self._show_detail()

        def closed(review: bool | None) -> None:
            self._popup = None
            if review:
                self.action_open_review()

        self.app.push_screen(WorktreeDetail(now=self.now, shown=shown), closed)

    def action_open_review(self) -> None:
        row = self.table.row
        if row is not None:
            self._open(row)

    @on(WorktreeTable.Chosen)
    def _chosen(self, message: WorktreeTable.Chosen) -> None:
        self._open(message.row)

    def _open(self, row: Row) -> None:
        if row.problem:
            self.notify(f"{visible(row.name)} cannot be reviewed: {visible(row.problem)}", severity="warning")
            return
        self.post_message(self.Open(row.path))

    @property
    def queue(self) -> list[Path]:
        """The worktrees that wait on the reviewer, the longest waiting first, as numbered."""
        return [row.path for row in self.table.queue]

    def next_waiting(self, after: Path | None) -> Path | None:
        """The worktree to review next: the first in the queue, or the one after `after` (the
        queue starting again at its beginning), never `after` itself."""
        queue = self.queue
        if after in queue:
            at = queue.index(after)
            queue = queue[at + 1 :] + queue[:at]
        return next((path for path in queue if path != after), None)

    def select(self, path: Path) -> None:
        """Put the cursor on the worktree at `path`."""
        if self.table.select(path):
            self._show_detail()

    def came_back(self, path: Path) -> None:
        """The reviewer comes back from the review of the worktree at `path`: the cursor goes to
        it, and it is read again (the review may have changed it)."""
        self.select(path)
        self.refresh_rows([path])

    # -- attention -----------------------------------------------------------------------------

    def mark(self, paths: Iterable[Path]) -> None:
        """Mark these worktrees for the reviewer's attention, until the cursor moves onto them."""
        self.table.mark(paths)

    def call(self, calls: Sequence[attention.Call]) -> None:
        """Mark the worktrees that call for the reviewer, and tell the terminal (bell or a
        desktop notification, as the config file says)."""
        if not calls:
            return
        self.mark(call.path for call in calls)
        self.post_message(self.Called(calls))
