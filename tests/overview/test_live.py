"""The overview kept up to date while agents work (`review.overview.live.follow`): real changes in
real worktrees, followed in a thread as the overview screen follows them."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity
from review.overview.live import follow
from review.overview.rows import ACTIVE_SECONDS, Row
from review.overview.status import Overview
from review.repo import scope
from review.repo.git import find_worktree
from review.repo.lines import FileReader
from review.state import comments, rounds
from review.state.comments import Where
from review.state.store import Store
from tmux import review_command

WAIT = 10.0
"""Seconds to wait for a report: generous, for a loaded machine; no test measures speed."""

Report = tuple[dict[str, Row], set[str]]
"""What `changed` was told: the rows and the worktrees read again, both by folder name."""


class Following:
    """`follow` running in a thread over the overview of a repository, and what it told."""

    def __init__(self, root: Path) -> None:
        self.overview = Overview(root)
        self.overview.read_all()
        self.stop = threading.Event()
        self.reports: list[Report] = []
        self.error: BaseException | None = None
        self._told = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            follow(self.overview, self.stop, self._changed)
        except BaseException as error:  # handed to the test
            self.error = error

    def _changed(self, rows: list[Row], roots: set[Path]) -> None:
        with self._told:
            self.reports.append(({row.name: row for row in rows}, {root.name for root in roots}))
            self._told.notify_all()

    def start(self) -> None:
        self.thread.start()
        # The first report comes once the folders are watched: changes from then on are seen.
        self.until(lambda rows, read: True, since=0)

    def mark(self) -> int:
        with self._told:
            return len(self.reports)

    def until(self, check: Callable[[dict[str, Row], set[str]], bool], since: int) -> Report:
        """The first report from `since` on that passes `check`; fails after WAIT seconds."""
        deadline = time.monotonic() + WAIT
        with self._told:
            while True:
                for rows, read in self.reports[since:]:
                    if check(rows, read):
                        return rows, read
                since = len(self.reports)
                left = deadline - time.monotonic()
                if left <= 0 or self.error is not None or not self.thread.is_alive():
                    raise AssertionError(f"no such report; the last: {self.reports[-3:]!r}; error: {self.error!r}")
                self._told.wait(min(left, 0.5))

    def read_since(self, since: int) -> list[set[str]]:
        """The worktrees read again in each report from `since` on."""
        with self._told:
            return [read for _, read in self.reports[since:] if read]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(WAIT)
        self.overview.close()
        assert not self.thread.is_alive(), "follow did not return after stop was set"
        if self.error is not None:
            raise self.error


@pytest.fixture
def following() -> Iterator[Callable[[Path], Following]]:
    """Follow the overview of a repository; stopped at the end of the test."""
    started: list[Following] = []

    def start(root: Path) -> Following:
        made = Following(root)
        started.append(made)
        made.start()
        return made

    yield start
    for made in started:
        made.close()


@pytest.fixture
def agents(project: Repo) -> tuple[Repo, Repo]:
    """Two agents' worktrees beside the main one."""
    return project.worktree("a", "agent/a"), project.worktree("b", "agent/b")


def edit(tree: Repo, text: str = "edited\n") -> None:
    tree.write("src/util.py", text)


def sent_review(tree: Repo) -> str:
    """Send one comment on `tree`, as the reviewer does; its id."""
    worktree = find_worktree(tree.root)
    store, read = Store(worktree.root), FileReader(worktree, scope.resolve(worktree, scope.Scope()).old)
    id = comments.add(store, Where("src/app.py", line=5), "why this?", "should", read("src/app.py", "new")).id
    rounds.send(store, worktree, "request_changes", "", read)
    return id


def test_an_edit_reads_again_that_worktree_only(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    live = following(project.root)
    since = live.mark()
    edit(a)
    rows, read = live.until(lambda rows, read: "a" in read and rows["a"].files == 1, since)
    assert read == {"a"}
    assert rows["b"].files == 0
    assert all(read == {"a"} for read in live.read_since(since))


def test_an_agent_writing_all_the_time_has_its_row_read_twice_a_second_and_its_last_write_shown(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    from review.overview.live import GAP

    a, _ = agents
    live = following(project.root)
    since = live.mark()
    began = time.monotonic()
    for number in range(40):  # a write every 50 ms for two seconds
        edit(a, "".join(f"line {n}\n" for n in range(number + 1)))
        time.sleep(0.05)
    written = time.monotonic() - began
    rows, _ = live.until(lambda rows, read: "a" in read and rows["a"].added == 40, since)
    reads = sum("a" in read for read in live.read_since(since))
    assert reads <= written / GAP + 2  # not once a write: at most once a GAP, and the last one
    assert rows["a"].added == 40


def test_an_edit_in_a_nested_worktree_is_that_worktree_s(project: Repo, following: Callable[[Path], Following]) -> None:
    nested = project.root / ".worktrees" / "n"
    project.git("worktree", "add", "--quiet", "-b", "agent/n", str(nested))
    live = following(project.root)
    since = live.mark()
    edit(Repo(nested))
    live.until(lambda rows, read: "n" in read and rows["n"].files == 1, since)
    assert all(read == {"n"} for read in live.read_since(since))


def test_a_reply_with_the_command_shows_the_review_answered(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    id = sent_review(a)
    live = following(project.root)
    assert live.until(lambda rows, read: True, 0)[0]["a"].review_state == "sent"
    since = live.mark()
    subprocess.run([review_command(), "reply", id, "-m", "because"], cwd=a.root, check=True, capture_output=True)
    rows, _ = live.until(lambda rows, read: rows["a"].review_state == "answered", since)
    assert (rows["a"].waits_on, rows["a"].answered_comments) == ("reviewer", 1)
    assert all(read == {"a"} for read in live.read_since(since))


def test_a_resolution_shows_the_review_addressed(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    id = sent_review(a)
    live = following(project.root)
    since = live.mark()
    comments.resolve(Store(a.root), id, "renamed")
    rows, _ = live.until(lambda rows, read: rows["a"].review_state == "addressed", since)
    assert rows["a"].addressed_comments == 1


def test_a_hook_s_state_shows(project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]) -> None:
    _, b = agents
    live = following(project.root)
    since = live.mark()
    activity.record(b.root, "waiting", "claude", "Notification")
    rows, _ = live.until(lambda rows, read: rows["b"].agent_state == "waiting", since)
    assert (rows["b"].agent, rows["b"].waits_on) == ("claude", "reviewer")
    assert all(read == {"b"} for read in live.read_since(since))


def test_a_commit_reads_again_the_worktree_on_that_branch(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    live = following(project.root)
    since = live.mark()
    edit(a)
    a.commit("an agent's commit")
    rows, _ = live.until(lambda rows, read: rows["a"].ahead == 1 and rows["a"].files == 1, since)
    assert rows["a"].head == a.head()
    assert all(read == {"a"} for read in live.read_since(since))


def test_switching_branch_in_the_main_worktree_reads_it_again(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    live = following(project.root)
    since = live.mark()
    project.git("switch", "--quiet", "-c", "side")
    live.until(lambda rows, read: rows["repo"].branch == "side", since)
    assert all(read == {"repo"} for read in live.read_since(since))


def test_a_new_worktree_appears_and_is_watched(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    live = following(project.root)
    since = live.mark()
    c = project.worktree("c", "agent/c")
    live.until(lambda rows, read: "c" in rows, since)
    since = live.mark()
    edit(c)
    live.until(lambda rows, read: "c" in read and rows["c"].files == 1, since)


def test_a_removed_worktree_disappears_and_the_others_are_still_watched(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, b = agents
    live = following(project.root)
    since = live.mark()
    project.git("worktree", "remove", str(b.root))
    live.until(lambda rows, read: "b" not in rows, since)
    since = live.mark()
    edit(a)
    live.until(lambda rows, read: "a" in read and rows["a"].files == 1, since)


def test_a_worktree_folder_deleted_while_watched_becomes_a_problem_row(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, b = agents
    live = following(project.root)
    since = live.mark()
    shutil.rmtree(b.root)
    live.until(lambda rows, read: "b" in rows and "folder is gone" in rows["b"].problem, since)
    since = live.mark()
    edit(a)
    live.until(lambda rows, read: "a" in read and rows["a"].files == 1, since)


def test_caches_and_other_review_files_are_not_changes(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    (a.root / ".review").mkdir()
    live = following(project.root)
    since = live.mark()
    a.write("node_modules/left-pad/index.js", "module.exports = 1\n")
    a.write("src/__pycache__/util.cpython-311.pyc", b"\x00")
    a.write(".review/instructions.md", "# notes\n")
    # Two reports after the writes that read nothing: the watcher has gone past them.
    live.until(lambda rows, read: not read, since)
    live.until(lambda rows, read: not read, live.mark())
    assert live.read_since(since) == []


def test_an_active_worktree_becomes_ready_for_review_when_its_minute_is_over(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following]
) -> None:
    a, _ = agents
    edited = a.write("src/util.py", "edited\n")
    almost = time.time() - ACTIVE_SECONDS + 5
    os.utime(edited, (almost, almost))
    live = following(project.root)
    first = live.until(lambda rows, read: True, 0)[0]
    assert first["a"].agent_state == "active"
    rows, read = live.until(lambda rows, read: rows["a"].agent_state != "active", live.mark())
    assert (read, rows["a"].waits_on, rows["a"].reason) == ({"a"}, "reviewer", "ready for review")


def test_where_the_system_sends_no_events_the_folders_are_polled(
    project: Repo, agents: tuple[Repo, Repo], following: Callable[[Path], Following], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCHFILES_FORCE_POLLING", "1")  # as on WSL's Windows drives
    a, _ = agents
    live = following(project.root)
    since = live.mark()
    edit(a)
    live.until(lambda rows, read: "a" in read and rows["a"].files == 1, since)


def test_it_returns_once_stop_is_set(project: Repo) -> None:
    live = Following(project.root)
    live.start()
    live.close()  # fails when the thread is still running after WAIT seconds
