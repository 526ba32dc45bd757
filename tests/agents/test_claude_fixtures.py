"""`review hook claude` on the hook inputs a real Claude Code sent (tests/agents/fixtures/claude,
see its README): every event records the agent's state and session, and the issue's case plays
out as it did: the Stop hook blocks with the pointer, the continued stop is let through, and the
round stays unread with one notice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.state import news
from review.state.store import Store
from tmux import review_command

FIXTURES = Path(__file__).with_name("fixtures") / "claude"
SESSION = "5e3c1f0a-7d2b-4c8e-9f61-2a4b6c8d0e1f"


def recorded(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return event


def hook(repo: Repo, event: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [review_command(), "hook", "claude"],
        input=json.dumps({**event, "cwd": str(repo.root)}),
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def send_review(repo: Repo) -> None:
    for args in (["comment", "src/app.py:5", "-m", "Halve it"], ["send"]):
        subprocess.run([review_command(), *args], cwd=repo.root, check=True, capture_output=True)


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("SessionStart", "idle"),
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("PostToolUse", "working"),
        ("Stop", "idle"),
        ("Stop-continued", "idle"),
        ("SessionEnd", "idle"),
    ],
)
def test_each_recorded_event_records_the_agents_state_and_session(agent_worktree: Repo, name: str, state: str) -> None:
    done = hook(agent_worktree, recorded(name))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    found = agent.read(agent_worktree.root)
    assert found is not None
    assert (found.state, found.agent, found.session_id) == (state, "claude", SESSION)


def test_the_recorded_session_of_a_refused_review_pending_plays_out_as_it_did(agent_worktree: Repo) -> None:
    send_review(agent_worktree)
    for name in ("SessionStart", "UserPromptSubmit", "PreToolUse"):
        assert hook(agent_worktree, recorded(name)).stdout == ""
    blocked = json.loads(hook(agent_worktree, recorded("Stop")).stdout)
    assert blocked["decision"] == "block"
    assert blocked["reason"].startswith(f"{review_command()} pending  # 1 review comment waits for you")
    assert agent.read(agent_worktree.root).state == "working"  # type: ignore[union-attr]
    assert hook(agent_worktree, recorded("Stop-continued")).stdout == ""  # let through
    assert hook(agent_worktree, recorded("SessionEnd")).stdout == ""
    review = Store(agent_worktree.root).read()
    assert review.rounds[0].delivered_at is None
    assert [notice.channel for notice in review.rounds[0].notices] == ["stop-hook"]
    assert news.delivery(review).heard == "notified"
    assert agent.read(agent_worktree.root).session_id == SESSION  # type: ignore[union-attr]


def test_the_recorded_tool_call_ran_the_pointer_as_the_stop_hook_gives_it(agent_worktree: Repo) -> None:
    """What Claude Code ran is the pointer, word for word (review's path neutralised)."""
    send_review(agent_worktree)
    reason = json.loads(hook(agent_worktree, recorded("Stop")).stdout)["reason"]
    ran = recorded("PostToolUse")["tool_input"]["command"]
    assert ran == reason.replace(review_command(), "review")
