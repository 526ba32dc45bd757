"""`review hook claude|codex`: the Stop hook points to a review until the agent reads it, at most
three times; every event records the agent's state and session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.state import news
from review.state.store import Store
from tmux import review_command

# As Claude Code sends them (recorded; the paths are filled in per test).
CLAUDE_STOP = {
    "session_id": "5e3c1f0a-7d2b-4c8e-9f61-2a4b6c8d0e1f",
    "transcript_path": "/home/dev/.claude/projects/-work-app/5e3c1f0a.jsonl",
    "cwd": "",
    "permission_mode": "default",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
}
CLAUDE_PROMPT = {**CLAUDE_STOP, "hook_event_name": "UserPromptSubmit", "prompt": "add a test"}
CLAUDE_TOOL = {**CLAUDE_STOP, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
CLAUDE_PERMISSION = {
    **CLAUDE_STOP,
    "hook_event_name": "Notification",
    "message": "Claude needs your permission to use Bash",
    "notification_type": "permission_prompt",
}
CLAUDE_IDLE = {
    **CLAUDE_STOP,
    "hook_event_name": "Notification",
    "message": "Claude is waiting for your input",
    "notification_type": "idle_prompt",
}


def hook(repo: Repo, event: dict, harness: str = "claude", raw: str | None = None) -> subprocess.CompletedProcess[str]:  # type: ignore[type-arg]
    payload = raw if raw is not None else json.dumps({**event, "cwd": str(repo.root)})
    return subprocess.run(
        [review_command(), "hook", harness],
        input=payload,
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def send_review(repo: Repo, *lines: int) -> None:
    for line in lines:
        subprocess.run(
            [review_command(), "comment", f"src/app.py:{line}", "-m", f"on {line}"],
            cwd=repo.root,
            check=True,
            capture_output=True,
        )
    subprocess.run([review_command(), "send"], cwd=repo.root, check=True, capture_output=True)


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_stop_points_to_an_unread_review_and_records_the_notice_not_a_delivery(
    agent_worktree: Repo, harness: str
) -> None:
    send_review(agent_worktree, 5, 30)
    done = hook(agent_worktree, CLAUDE_STOP, harness)
    assert done.returncode == 0 and done.stderr == ""
    answer = json.loads(done.stdout)
    assert answer["decision"] == "block"
    assert "2 review comments" in answer["reason"] and "review pending" in answer["reason"]
    assert "review skill" in answer["reason"]
    sent = Store(agent_worktree.root).read().rounds[0]
    assert sent.delivered_at is None  # pointed to, not read
    assert [notice.channel for notice in sent.notices] == ["stop-hook"]
    assert agent.read(agent_worktree.root).state == "working"  # type: ignore[union-attr]


def test_a_stop_the_hook_continued_is_let_through_and_a_later_stop_points_again(agent_worktree: Repo) -> None:
    """The agent was refused `review pending` (or its shell had no `review`): it stops again at
    once, and is let stop; at its next stop after the user's next prompt it is pointed again."""
    send_review(agent_worktree, 5)
    assert json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["decision"] == "block"
    continued = hook(agent_worktree, {**CLAUDE_STOP, "stop_hook_active": True})
    assert (continued.returncode, continued.stdout) == (0, "")
    assert agent.read(agent_worktree.root).state == "idle"  # type: ignore[union-attr]
    hook(agent_worktree, CLAUDE_PROMPT)
    assert json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["decision"] == "block"
    assert len(Store(agent_worktree.root).read().rounds[0].notices) == 2


def test_an_unread_review_is_pointed_to_three_times_then_shown_as_not_read(agent_worktree: Repo) -> None:
    send_review(agent_worktree, 5)
    for _ in range(3):
        assert json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["decision"] == "block"
    assert hook(agent_worktree, CLAUDE_STOP).stdout == ""  # the agent may stop now
    review = Store(agent_worktree.root).read()
    assert review.rounds[0].delivered_at is None and len(review.rounds[0].notices) == 3
    assert news.delivery(review).heard == "not read"


def test_a_new_review_blocks_again(agent_worktree: Repo) -> None:
    send_review(agent_worktree, 5)
    assert json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["decision"] == "block"
    send_review(agent_worktree, 30)
    assert "2 review comments" in json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["reason"]


def test_stop_hook_active_is_never_blocked(agent_worktree: Repo) -> None:
    send_review(agent_worktree, 5)
    done = hook(agent_worktree, {**CLAUDE_STOP, "stop_hook_active": True})
    assert (done.returncode, done.stdout) == (0, "")
    sent = Store(agent_worktree.root).read().rounds[0]
    assert (sent.delivered_at, sent.notices) == (None, [])


def test_nothing_sent_means_no_block(agent_worktree: Repo) -> None:
    subprocess.run([review_command(), "comment", "src/app.py:5", "-m", "a draft"], cwd=agent_worktree.root, check=True)
    assert hook(agent_worktree, CLAUDE_STOP).stdout == ""


def test_a_review_read_with_pending_is_delivered_and_not_pointed_to_again(agent_worktree: Repo) -> None:
    send_review(agent_worktree, 5)
    assert json.loads(hook(agent_worktree, CLAUDE_STOP).stdout)["decision"] == "block"
    subprocess.run([review_command(), "pending"], cwd=agent_worktree.root, check=True, capture_output=True)
    sent = Store(agent_worktree.root).read().rounds[0]
    assert sent.delivered_at is not None and sent.read_by == "pending"
    assert hook(agent_worktree, CLAUDE_STOP).stdout == ""
    assert news.delivery(Store(agent_worktree.root).read()).heard == "read"


def test_the_pointer_runs_as_written_in_a_login_shell_without_review_on_its_path(
    agent_worktree: Repo, tmp_path: Path
) -> None:
    """Codex runs commands with `bash -lc`, whose profile may set a PATH without review: the
    pointer names review by a path that runs there, and running it reads the review."""
    send_review(agent_worktree, 5)
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    done = subprocess.run(
        [review_command(), "hook", "codex"],
        input=json.dumps({**CLAUDE_STOP, "cwd": str(agent_worktree.root)}),
        cwd=agent_worktree.root,
        capture_output=True,
        text=True,
        env=bare,
        timeout=60,
        check=True,
    )
    command = json.loads(done.stdout)["reason"].partition("  #")[0]
    assert command.endswith(" pending") and command.startswith("/")
    ran = subprocess.run(
        ["bash", "-lc", command], cwd=agent_worktree.root, capture_output=True, text=True, env=bare, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert "### c1" in ran.stdout
    assert Store(agent_worktree.root).read().rounds[0].read_by == "pending"


@pytest.mark.parametrize(
    ("event", "state"),
    [(CLAUDE_PROMPT, "working"), (CLAUDE_TOOL, "working"), (CLAUDE_PERMISSION, "waiting"), (CLAUDE_IDLE, "idle")],
)
def test_events_record_the_agents_state(agent_worktree: Repo, event: dict, state: str) -> None:  # type: ignore[type-arg]
    done = hook(agent_worktree, event)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    recorded = agent.read(agent_worktree.root)
    assert recorded is not None
    assert (recorded.state, recorded.agent, recorded.event) == (state, "claude", event["hook_event_name"])
    assert recorded.session_id == CLAUDE_STOP["session_id"]
    assert recorded.age() < 60
    assert agent_worktree.git("status", "--porcelain", "--", ".review") == ""


def test_input_that_is_not_json_is_one_line_on_stderr_and_nothing_else(agent_worktree: Repo) -> None:
    done = hook(agent_worktree, {}, raw="{not json")
    assert (done.returncode, done.stdout) == (0, "")
    assert len(done.stderr.splitlines()) == 1 and "not valid JSON" in done.stderr


def test_a_hook_outside_any_repository_does_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [review_command(), "hook", "claude"],
        input=json.dumps({**CLAUDE_STOP, "cwd": str(tmp_path)}),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_an_unreadable_review_never_breaks_the_agent(agent_worktree: Repo) -> None:
    (agent_worktree.root / ".review").mkdir()
    (agent_worktree.root / ".review" / "review.json").write_text("{broken")
    done = hook(agent_worktree, CLAUDE_STOP)
    assert (done.returncode, done.stdout) == (0, "")
    assert "review.json" in done.stderr and len(done.stderr.splitlines()) == 1
