"""`review request`: the agent asks for a review. The request shows in `review status`, `--wait`
returns with the round the reviewer sends from another process, and outside tmux `--open` says
how to open the viewer."""

from __future__ import annotations

import json
import os
import subprocess
import time

from test_wait import watching

from conftest import Repo
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60, check=False, env=env
    )


def outside_tmux() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in ("TMUX", "TMUX_PANE")}


def test_a_request_shows_in_status_as_waiting_on_the_reviewer(project: Repo, agent_worktree: Repo) -> None:
    done = review(agent_worktree, "request", "-m", "The doubling is done; check line 30")
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[0] == "Asked the reviewer for a review: the overview shows that this worktree waits on them."
    assert said[1].endswith(" wait --timeout 100` waits for their review.")

    status = json.loads(review(project, "status", "--json").stdout)
    (row,) = [row for row in status["worktrees"] if row["path"] == str(agent_worktree.root)]
    assert (row["review_state"], row["waits_on"]) == ("requested", "reviewer")
    assert row["requested"]["message"] == "The doubling is done; check line 30"
    assert row["requested"]["at"] == Store(agent_worktree.root).read().request.at  # type: ignore[union-attr]


def test_outside_tmux_open_says_how_to_open_the_viewer_and_still_asks(agent_worktree: Repo) -> None:
    done = review(agent_worktree, "request", "--open", env=outside_tmux())
    assert done.returncode == 0, done.stderr
    assert "Not inside tmux, so no viewer was opened: the reviewer opens the review with `" in done.stdout
    assert f" {agent_worktree.root}`." in done.stdout
    assert Store(agent_worktree.root).read().request is not None


def test_timeout_and_json_go_with_wait(agent_worktree: Repo) -> None:
    done = review(agent_worktree, "request", "--timeout", "5")
    assert done.returncode == 2
    assert done.stderr == "review request: --timeout and --json go with --wait\n"
    assert Store(agent_worktree.root).read().request is None


def test_wait_returns_with_the_round_the_reviewer_sends_from_another_process(agent_worktree: Repo) -> None:
    waiting = subprocess.Popen(
        [review_command(), "request", "-m", "ready", "--wait", "--json", "--timeout", "30"],
        cwd=agent_worktree.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not watching(waiting.pid):
        assert waiting.poll() is None, "it returned without waiting"
        assert time.monotonic() < deadline, "it never began to watch the review folder"
        time.sleep(0.01)
    assert Store(agent_worktree.root).read().request is not None  # asked before waiting

    assert review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?").returncode == 0
    assert review(agent_worktree, "send", "-m", "One question").returncode == 0
    out, err = waiting.communicate(timeout=30)

    assert waiting.returncode == 0, err
    data = json.loads(out)  # standard output is the review alone
    assert (data["round"]["summary"], data["news"]) == ("One question", ["round"])
    assert [comment["body"] for comment in data["comments"]] == ["Why double it?"]
    assert err.startswith("Asked the reviewer for a review")
    review_now = Store(agent_worktree.root).read()
    assert review_now.request is None  # the round answered it
    assert review_now.rounds[0].delivered_at is not None


def test_wait_that_times_out_is_one_line_and_the_request_stands(agent_worktree: Repo) -> None:
    done = review(agent_worktree, "request", "-m", "ready", "--wait", "--timeout", "0.5")
    assert done.returncode == 1
    assert done.stdout == ""
    *_, last = done.stderr.splitlines()
    assert last.startswith("review: no review within 0.5 seconds; the request stands, and `")
    assert last.endswith(" wait --timeout 100` goes on waiting")
    assert Store(agent_worktree.root).read().request is not None
