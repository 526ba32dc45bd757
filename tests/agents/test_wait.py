"""`review wait`: returns on news (a review sent, a reviewer's reply, an approval), at once when
there is some the agent was not told of, and not for comments it was already told of."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import Repo
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60, check=False
    )


def start_waiting(repo: Repo, *args: str) -> subprocess.Popen[str]:
    """`review wait` in the background, once it watches the review folder (so that what the test
    does next is news that comes during the wait, not before it)."""
    waiting = subprocess.Popen(
        [review_command(), "wait", *args], cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while not watching(waiting.pid):
        assert waiting.poll() is None, "it returned without waiting"
        assert time.monotonic() < deadline, "it never began to watch the review folder"
        time.sleep(0.01)
    return waiting


def watching(pid: int) -> bool:
    """Whether the process has an inotify watch set: the kernel will wake it on a change."""
    fds = Path(f"/proc/{pid}/fd")
    try:
        for fd in fds.iterdir():
            if (
                os.readlink(fd) == "anon_inode:inotify"
                and "inotify wd:" in (Path(f"/proc/{pid}/fdinfo") / fd.name).read_text()
            ):
                return True
    except (FileNotFoundError, PermissionError):
        return False
    return False


def test_wait_returns_when_the_review_is_sent(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    waiting = start_waiting(agent_worktree, "--json", "--timeout", "30")
    assert review(agent_worktree, "send", "-m", "Look at this").returncode == 0
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0
    data = json.loads(out)
    assert data["round"]["summary"] == "Look at this"
    assert [c["body"] for c in data["comments"]] == ["Why double it?"]
    assert data["news"] == ["round"]
    assert Store(agent_worktree.root).read().rounds[0].delivered_at is not None


def test_a_review_not_yet_told_of_returns_at_once(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "send")
    done = review(agent_worktree, "wait", "--timeout", "30")
    assert done.returncode == 0
    assert "Why double it?" in done.stdout and "resolve c1" in done.stdout


def test_comments_already_told_of_do_not_end_the_wait(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "send")
    review(agent_worktree, "pending")
    done = review(agent_worktree, "wait", "--timeout", "0.5")
    assert done.returncode == 1 and done.stdout == ""
    said, failed = done.stderr.splitlines()
    assert said.startswith("review wait: 1 comment still open (") and " pending` shows it)" in said
    assert failed == "review: nothing new from the reviewer within 0.5 seconds; run it again to keep waiting"


def test_wait_returns_on_the_reviewers_answer_to_a_question(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "send")
    review(agent_worktree, "pending")
    review(agent_worktree, "reply", "c1", "-m", "Should it be tripled instead?")
    waiting = start_waiting(agent_worktree, "--json", "--timeout", "30")
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0
    data = json.loads(out)
    assert data["news"] == ["reply"]
    [comment] = data["comments"]
    assert [(r["author"], r["body"], r["new"]) for r in comment["thread"]] == [
        ("agent", "Should it be tripled instead?", False),
        ("reviewer", "No, halved.", True),
    ]
    assert Store(agent_worktree.root).read().comment("c1").thread[1].delivered_at is not None


def test_an_approval_ends_the_wait_with_nothing_to_change(agent_worktree: Repo) -> None:
    waiting = start_waiting(agent_worktree, "--timeout", "30")
    review(agent_worktree, "send", "--approve", "-m", "Ship it")
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0
    assert "approved" in out and "> Ship it" in out and "Nothing to change." in out


def test_a_timeout_is_one_line_and_status_1(agent_worktree: Repo) -> None:
    done = review(agent_worktree, "wait", "--timeout", "0.5")
    assert done.returncode == 1
    assert done.stderr == "review: nothing new from the reviewer within 0.5 seconds; run it again to keep waiting\n"
    assert done.stdout == ""
