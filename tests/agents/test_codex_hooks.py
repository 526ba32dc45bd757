"""`review hook codex` on the hook inputs real Codex sent (tests/agents/fixtures/codex): each event
records the agent's state and session, and a Stop points to unread news once a turn."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.state.store import Store
from tmux import review_command

FIXTURES = Path(__file__).parent / "fixtures" / "codex"
SESSION = "019a3c5e-7d1f-7a20-9c44-5b8e2f6a0d13"


def hook(repo: Repo, fixture: str) -> subprocess.CompletedProcess[str]:
    event = json.loads((FIXTURES / f"{fixture}.json").read_text())
    return subprocess.run(
        [review_command(), "hook", "codex"],
        input=json.dumps({**event, "cwd": str(repo.root)}),
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def send_review(repo: Repo) -> None:
    review = review_command()
    subprocess.run([review, "comment", "src/app.py:5", "-m", "why?"], cwd=repo.root, check=True, capture_output=True)
    subprocess.run([review, "send"], cwd=repo.root, check=True, capture_output=True)


@pytest.mark.parametrize(
    ("fixture", "state"),
    [
        ("SessionStart", "idle"),
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("PermissionRequest", "waiting"),
        ("PostToolUse", "working"),
        ("Stop", "idle"),
        ("Stop-continued", "idle"),
        ("Interrupt", "idle"),
        ("SessionEnd", "idle"),
    ],
)
def test_each_event_codex_sends_records_the_agents_state_and_session(
    agent_worktree: Repo, fixture: str, state: str
) -> None:
    done = hook(agent_worktree, fixture)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    recorded = agent.read(agent_worktree.root)
    assert recorded is not None
    assert (recorded.state, recorded.agent, recorded.session_id) == (state, "codex", SESSION)
    assert recorded.event == fixture.partition("-")[0]


def test_codexs_stop_is_blocked_with_the_pointer_and_its_continued_stop_let_through(agent_worktree: Repo) -> None:
    send_review(agent_worktree)
    done = hook(agent_worktree, "Stop")
    answer = json.loads(done.stdout)
    assert answer["decision"] == "block" and "review pending" in answer["reason"]
    assert agent.read(agent_worktree.root).state == "working"  # type: ignore[union-attr]
    # Codex asks again with stop_hook_active: an agent that did not read is let stop.
    assert hook(agent_worktree, "Stop-continued").stdout == ""
    assert [notice.channel for notice in Store(agent_worktree.root).read().rounds[0].notices] == ["stop-hook"]
