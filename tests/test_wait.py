"""`review wait`: returns when a review is sent, at once when one is open, 1 on timeout."""

from __future__ import annotations

import json
import subprocess
import time

from conftest import Repo
from review.store import Store
from tmux import review_command


def review(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60)


def test_wait_returns_when_the_review_is_sent(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    waiting = subprocess.Popen(
        [review_command(), "wait", "--json", "--timeout", "30"], cwd=agent_worktree.root, stdout=subprocess.PIPE, text=True
    )
    time.sleep(1.0)
    assert waiting.poll() is None, "it waits while nothing is sent"
    assert review(agent_worktree, "send", "-m", "Look at this").returncode == 0
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0
    data = json.loads(out)
    assert data["round"]["summary"] == "Look at this"
    assert [c["body"] for c in data["comments"]] == ["Why double it?"]
    assert Store(agent_worktree.root).read().rounds[0].delivered_at is not None


def test_an_open_review_returns_at_once(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "send")
    done = review(agent_worktree, "wait", "--timeout", "30")
    assert done.returncode == 0
    assert "Why double it?" in done.stdout and "review resolve c1" in done.stdout


def test_an_approval_ends_the_wait_with_nothing_to_change(agent_worktree: Repo) -> None:
    waiting = subprocess.Popen(
        [review_command(), "wait", "--timeout", "30"], cwd=agent_worktree.root, stdout=subprocess.PIPE, text=True
    )
    time.sleep(1.0)
    review(agent_worktree, "send", "--approve", "-m", "Ship it")
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0
    assert "approved" in out and "> Ship it" in out and "Nothing to change." in out


def test_a_timeout_is_one_line_and_status_1(agent_worktree: Repo) -> None:
    done = review(agent_worktree, "wait", "--timeout", "0.5")
    assert done.returncode == 1
    assert done.stderr == "review: no review was sent within 0.5 seconds\n"
    assert done.stdout == ""
