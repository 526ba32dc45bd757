"""One worktree as the overview shows it: a row, read from git, the review file and the hooks.

A row is read on its own (`read_row`), so that the overview reads again only the worktree that
changed; what depends on the other worktrees (the conflict radar) is added by `radar`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, get_args

from review.agents import activity
from review.errors import NotARepository, ReviewError
from review.repo import git, merge
from review.repo.git import Worktree, WorktreeEntry
from review.state import news, notes
from review.state.model import Review, ReviewState, seconds
from review.state.store import Store

AgentState = Literal["working", "idle", "waiting", "active", "unknown"]
"""From the hooks: working, idle, waiting (for the user: a permission). Without hooks: active
while files changed in the last minute, else unknown."""
WaitsOn = Literal["agent", "reviewer", "nothing"]
AGENT_STATES: tuple[AgentState, ...] = get_args(AgentState)
WAITS_ON: tuple[WaitsOn, ...] = get_args(WaitsOn)

ACTIVE_SECONDS = 60
"""Without hooks, an agent counts as active while files changed this recently."""
REQUEST_CHARS = 60
"""How much of the agent's request a row's reason quotes: its first line, cut to this."""


@dataclass(frozen=True)
class Repository:
    """What every row is measured against: the repository and its default branch."""

    home: Worktree
    """A worktree of the repository (or its bare folder) for git to run in."""
    default_branch: str | None
    default_commit: str | None

    @property
    def root(self) -> Path:
        return self.home.root

    @property
    def common_dir(self) -> Path:
        return self.home.common_dir


@dataclass
class Overlap:
    """Another worktree that changes some of the same files."""

    worktree: Path
    files: list[str]
    conflict: bool | None
    """Whether merging both would conflict; None when git could not try."""
    conflict_files: list[str] = field(default_factory=list)


@dataclass
class Row:
    """One worktree of the repository."""

    path: Path
    name: str
    """The folder's name, as the overview shows it."""
    branch: str | None
    head: str | None
    agent: str | None = None
    """The program, when its hooks said (claude, codex)."""
    agent_state: AgentState = "unknown"
    last_change: float | None = None
    """Seconds since the epoch of the newest edit or commit of its work."""
    files: int = 0
    added: int = 0
    removed: int = 0
    ahead: int | None = None
    behind: int | None = None
    review_state: ReviewState = "none"
    waits_on: WaitsOn = "nothing"
    reason: str = ""
    """Why it waits on whom it waits on, in a few words."""
    waiting_since: float | None = None
    """Since when the reviewer's turn began, for the queue (oldest first)."""
    request: str | None = None
    """What the agent said when it asked for a review (`review request`; "" when it said nothing),
    while no round has answered it; None when it has not asked."""
    requested_at: float | None = None
    """When it asked."""
    delivery: news.Delivery = news.NOTHING_SENT
    """Whether the agent has read what was sent to it, and how often it was pointed to it."""
    open_comments: int = 0
    answered_comments: int = 0
    addressed_comments: int = 0
    notes: int = 0
    """The agent's notes that wait on the reviewer: not dismissed, and not answered since the
    agent last spoke in them (`review.state.notes.standing`)."""
    merges_cleanly: bool | None = None
    """Whether it merges into the default branch as it is now; None when not asked (it is the
    default branch) or git could not tell."""
    default_conflict_files: list[str] = field(default_factory=list)
    overlaps: list[Overlap] = field(default_factory=list)
    note: str = ""
    """A state worth knowing that does not stop the row: locked, in the middle of a rebase."""
    problem: str = ""
    """What is wrong, in one line, when the row cannot be read in full."""
    snapshot: str | None = None
    """A commit of the worktree as it is now (in the overview's scratch store)."""
    changed: frozenset[str] = frozenset()
    """The paths its diff touches, on either side of a rename."""
    host: str | None = None
    """The machine it is on, as the overview's hosts name it; None for this one (its `path` is
    then `HOST:PATH`, so that the same path on two machines is two worktrees)."""

    def copied(self) -> Row:
        """A copy that later readings, which change the rows they keep, leave alone: for
        handing rows from a reading thread to the screen."""
        return replace(self, overlaps=list(self.overlaps), default_conflict_files=list(self.default_conflict_files))

    @property
    def needs_reviewer(self) -> bool:
        return self.waits_on == "reviewer" and not self.problem


def open_repository(path: Path | str) -> tuple[Repository, list[WorktreeEntry]]:
    """The repository around `path` and its worktrees, the main one first.

    Raises:
        NotARepository: `path` is not in a git repository.
    """
    home = _find(Path(path))
    entries = git.list_worktrees(home)
    return Repository(home, *default_of(home)), entries


def default_of(home: Worktree) -> tuple[str | None, str | None]:
    """The default branch and the commit it is at; None for what there is not."""
    default = git.default_branch(home)
    if default is None:
        return None, None
    try:
        return default, git.resolve_commit(home, default)
    except ReviewError:
        return default, None


def _find(path: Path) -> Worktree:
    """The worktree at `path`, or, for a bare repository, a stand-in that git can run in."""
    try:
        return git.find_worktree(path)
    except NotARepository as error:
        # A bare main repository still has linked worktrees to show.
        if not path.is_dir():
            raise
        try:
            common = git.run_git(path, "rev-parse", "--absolute-git-dir").decode().strip()
        except ReviewError:
            raise error from None  # what is wrong with the path, as the worktree's reading said
        folder = Path(common)
        return Worktree(root=folder, git_dir=folder, common_dir=folder, branch=None, head=None)


@dataclass
class Reading:
    """A row half read: what each worktree gives on its own, before the parts that one git
    process reads for many worktrees at once (`finish`)."""

    row: Row
    worktree: Worktree | None = None
    tree: str | None = None
    """The tree of the worktree as it is now."""
    base: str | None = None
    """Where its diff starts: where the branch left the default branch, or HEAD."""
    committed: float | None = None
    """When its newest commit of its own was made."""
    review: Review | None = None
    approved_then_changed: bool = False
    """The last round approved the work, and the work changed since."""


def read_row(entry: WorktreeEntry, repo: Repository, scratch: merge.Scratch) -> Row:
    """The row of one worktree. What cannot be read becomes the row's `problem`, never an error."""
    return finish([start(entry, repo, scratch)], repo, scratch)[0]


def start(entry: WorktreeEntry, repo: Repository, scratch: merge.Scratch) -> Reading:
    """Read what one worktree gives on its own (safe to run for many worktrees in parallel)."""
    row = Row(path=entry.path, name=entry.path.name, branch=entry.branch, head=entry.head)
    reading = Reading(row)
    if entry.bare:
        row.problem = "bare repository: it has no working tree to review"
        return reading
    if not entry.path.is_dir():
        row.problem = "its folder is gone; `git worktree prune` forgets it"
        return reading
    if entry.locked is not None:
        row.note = f"locked: {entry.locked}" if entry.locked else "locked"
    try:
        reading.worktree = _worktree(entry, repo)
    except ReviewError as error:
        row.problem = str(error)
        return reading
    doing = _operation(reading.worktree.git_dir)
    if not doing and entry.detached:
        # Work on no branch is easily lost, and the row has no branch to name; a rebase
        # detaches HEAD too, but saying it is a rebase says more.
        doing = "detached HEAD"
    row.note = "; ".join(filter(None, (row.note, doing)))
    try:
        _read_git(reading, repo, scratch)
    except ReviewError as error:
        row.problem = f"git: {error}"
    try:
        reading.review = Store(entry.path).read()
    except ReviewError as error:
        row.problem = row.problem or str(error)
    reading.approved_then_changed = _changed_since_approval(reading, repo)
    return reading


def finish(readings: Sequence[Reading], repo: Repository, scratch: merge.Scratch) -> list[Row]:
    """Complete the rows: snapshot commits and diff sizes for all of them from one git process
    each, then what follows from those (the last change, the agent's activity, the wait)."""
    measured = [r for r in readings if r.tree is not None and r.base is not None and r.row.head is not None]
    try:
        commits = merge.snapshot_commits(repo.root, [(str(r.tree), str(r.row.head)) for r in measured], scratch)
        stats = merge.numstats(repo.root, [(str(r.base), c) for r, c in zip(measured, commits, strict=True)], scratch)
    except ReviewError as error:
        for reading in measured:
            reading.row.problem = reading.row.problem or f"git: {error}"
        commits, stats = [], []
    for reading, commit, numstat in zip(measured, commits, stats, strict=False):
        row = reading.row
        row.snapshot = commit
        changed, row.added, row.removed, row.files = _count(numstat)
        row.changed = frozenset(changed)
        edited = git.last_edit(reading.worktree, changed) if reading.worktree else None
        row.last_change = max(filter(None, (edited, reading.committed)), default=None)
    for reading in readings:
        said = _read_agent(reading.row) if reading.worktree is not None else None
        if reading.review is not None:
            _read_review(reading.row, reading.review)
        # Also for a row with no worktree to read (its folder gone, a bare repository), so that
        # its reason says what is wrong, as every other row's does.
        _decide_wait(reading.row, reading.review, said, reading.approved_then_changed)
    return [reading.row for reading in readings]


def _worktree(entry: WorktreeEntry, repo: Repository) -> Worktree:
    """The worktree of a `git worktree list` entry, read without running git."""
    dot_git = entry.path / ".git"
    if dot_git.is_dir():
        git_dir = dot_git
    else:
        try:
            text = dot_git.read_text(encoding="utf-8", errors="surrogateescape").strip()
        except OSError:
            raise ReviewError("its .git file is missing: not a worktree any more") from None
        target = text.removeprefix("gitdir: ")
        git_dir = (entry.path / target).resolve() if not os.path.isabs(target) else Path(target)
    return Worktree(root=entry.path, git_dir=git_dir, common_dir=repo.common_dir, branch=entry.branch, head=entry.head)


_OPERATIONS = (
    ("rebase-merge", "in the middle of a rebase"),
    ("rebase-apply/applying", "in the middle of git am"),  # am keeps its patches where rebase did
    ("rebase-apply", "in the middle of a rebase"),
    ("MERGE_HEAD", "in the middle of a merge"),
    ("CHERRY_PICK_HEAD", "in the middle of a cherry-pick"),
    ("REVERT_HEAD", "in the middle of a revert"),
    ("BISECT_LOG", "bisecting"),
)


def _operation(git_dir: Path) -> str:
    """What git operation the worktree is in the middle of, if any."""
    for name, says in _OPERATIONS:
        if (git_dir / name).exists():
            return says
    return ""


def _read_git(reading: Reading, repo: Repository, scratch: merge.Scratch) -> None:
    worktree, row = reading.worktree, reading.row
    assert worktree is not None
    if worktree.head is None:
        row.problem = "no commits yet"
        return
    reading.tree = merge.snapshot_tree(worktree, scratch)
    reading.base = worktree.head
    if repo.default_commit is not None and worktree.branch != repo.default_branch:
        reading.base, reading.committed = _history(row, worktree, repo.default_commit)
    else:
        row.ahead = row.behind = 0


def _history(row: Row, worktree: Worktree, default: str) -> tuple[str, float | None]:
    """Commits behind and ahead of the default branch, where the branch left it, and when the
    newest commit of its own was made: all from one `git log` of the two sides."""
    head = str(worktree.head)
    out = git.run_git(worktree.root, "log", "--left-right", "--boundary", "--format=%m %H %ct", f"{default}...{head}")
    behind = ahead = 0
    bases: list[str] = []
    committed: float | None = None
    for line in out.decode().splitlines():
        mark, commit, when = line.split(" ")
        if mark == "<":
            behind += 1
        elif mark == ">":
            ahead += 1
            committed = max(committed or 0.0, float(when))
        elif mark == "-":
            bases.append(commit)
    row.behind, row.ahead = behind, ahead
    if len(bases) == 1:
        return bases[0], committed
    if not behind and not ahead:
        return head, committed  # the same commit
    # Several boundaries (criss-cross merges) or none (unrelated histories): ask git.
    start = git.merge_base(worktree, default, head)
    if start is None and git.is_shallow(worktree):
        missing = "shallow clone: where it left the default branch is not fetched (`git fetch --unshallow`)"
        row.note = "; ".join(filter(None, (row.note, missing)))
    return start or head, committed


def _count(numstat: bytes) -> tuple[set[str], int, int, int]:
    """The paths, lines added, lines removed and files of `git diff --numstat -z`."""
    fields = numstat.split(b"\0")
    paths: set[str] = set()
    added = removed = files = 0
    at = 0
    while at < len(fields):
        record = fields[at]
        at += 1
        if not record:
            continue
        plus, minus, name = record.split(b"\t", 2)
        files += 1
        added += int(plus) if plus.isdigit() else 0
        removed += int(minus) if minus.isdigit() else 0
        if name:
            paths.add(os.fsdecode(name))
        else:  # a rename: the old and the new path follow in their own fields
            paths.update(os.fsdecode(f) for f in fields[at : at + 2])
            at += 2
    return paths, added, removed, files


def _read_agent(row: Row) -> activity.AgentState | None:
    """The agent's state from its hooks (what they said, returned), else from file activity."""
    said = activity.read(row.path)
    if said is not None:
        row.agent = said.agent or None
        row.agent_state = said.state
    elif row.last_change is not None and time.time() - row.last_change < ACTIVE_SECONDS:
        row.agent_state = "active"
    return said


def _changed_since_approval(reading: Reading, repo: Repository) -> bool:
    latest = reading.review.latest_round() if reading.review else None
    if latest is None or latest.verdict != "approve" or not latest.snapshot or reading.tree is None:
        return False
    try:
        approved = git.run_git(repo.root, "rev-parse", "--verify", "--quiet", f"{latest.snapshot}^{{tree}}", ok=(0, 1))
    except ReviewError:
        return False
    return bool(approved.strip()) and approved.decode().strip() != reading.tree


def _read_review(row: Row, review: Review) -> None:
    open = review.open_comments()
    row.answered_comments = sum(c.answered_by_agent() for c in open)
    row.open_comments = len(open) - row.answered_comments
    row.addressed_comments = sum(c.status == "addressed" for c in review.comments)
    row.notes = len(notes.standing(review))
    row.delivery = news.delivery(review)
    row.review_state = review.state(lambda: row.last_change)
    if review.request is not None:
        row.request = review.request.message
        row.requested_at = seconds(review.request.at)


def _decide_wait(
    row: Row, review: Review | None, said: activity.AgentState | None = None, approved_then_changed: bool = False
) -> None:
    """Whom the worktree waits on, why, and since when (`said`: what the agent's hooks said)."""
    agent_busy = row.agent_state in ("working", "active")
    since = _agent_acted(review, row, said)
    if row.problem:
        row.waits_on, row.reason = "nothing", row.problem
    elif row.agent_state == "waiting":
        row.waits_on, row.reason = "reviewer", "the agent asks for permission"
    elif row.request is not None:
        # Asked for, the review is the reviewer's to give, whatever else the agent does meanwhile.
        row.waits_on, row.reason = "reviewer", asking(row.request)
    elif row.review_state == "drafts":
        row.waits_on, row.reason = "reviewer", "drafts not sent"
    elif row.review_state == "sent" and row.delivery.heard == "not read":
        # Pointed to again and again, never read: the agent cannot (or will not) run review.
        row.waits_on, row.reason = "reviewer", f"not read: the agent was pointed to it {row.delivery.notices} times"
    elif row.review_state == "sent":
        row.waits_on, row.reason = "agent", "comments to address" if row.open_comments else "a review to act on"
        if row.delivery.heard == "notified":
            row.reason += f", pointed to {row.delivery.notices}×, not read yet"
    elif row.review_state == "answered":
        row.waits_on, row.reason = "reviewer", "the agent answered"
    elif row.review_state == "addressed":
        row.waits_on, row.reason = "reviewer", "the agent addressed every comment"
    elif row.review_state == "approved" and approved_then_changed:
        row.waits_on, row.reason = "reviewer", "changed since it was approved"
    elif row.review_state == "approved":
        row.waits_on, row.reason = "nothing", "approved: ready to merge"
    elif not row.files and not row.ahead:
        row.waits_on, row.reason = "nothing", "no changes"
    elif agent_busy:
        row.waits_on, row.reason = "agent", "the agent is at work"
    else:
        row.waits_on, row.reason = "reviewer", "ready for review"
    if row.waits_on == "reviewer":
        # A request counts from when it was made, not from what the agent did after it.
        row.waiting_since = row.requested_at if row.requested_at is not None else since


def asking(message: str) -> str:
    """The reason of a worktree whose agent asks for a review: the first line of what it said."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    if len(first) > REQUEST_CHARS:
        first = first[: REQUEST_CHARS - 1] + "…"
    return f"the agent asks for a review: {first}" if first else "the agent asks for a review"


def _agent_acted(review: Review | None, row: Row, said: activity.AgentState | None) -> float | None:
    """When the agent last did something: edited, committed, answered, resolved, stopped."""
    times: list[float | None] = [row.last_change]
    if review is not None:
        for comment in review.comments:
            times.extend(seconds(reply.at) for reply in comment.thread if reply.author == "agent")
            if comment.status == "addressed":
                times.append(seconds(comment.updated_at))
    if said is not None:
        times.append(seconds(said.at))
    known = [t for t in times if t is not None]
    return max(known) if known else None
