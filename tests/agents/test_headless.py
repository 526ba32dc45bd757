"""`review watch --headless`: with no agent in tmux, the idle Claude Code or Codex session its hooks
recorded is resumed from the agent's own command line, once, in the worktree, with a pointer that
runs as written; never while the session is busy; taken back when the command cannot start."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.agents.headless import Headless
from review.agents.tmux import Tmux
from review.agents.watch import Watcher
from review.state.store import Store
from tmux import review_command

# What the stand-ins do: record how they were run, then wait while the file named by
# $HEADLESS_HOLD exists (a session still on its turn).
STAND_IN = f"""#!{sys.executable}
import json, os, pathlib, sys, time
with open(os.environ["HEADLESS_RECORD"], "a") as record:
    record.write(json.dumps({{"argv": sys.argv, "cwd": os.getcwd()}}) + "\\n")
hold = pathlib.Path(os.environ["HEADLESS_HOLD"])
deadline = time.monotonic() + 60
while hold.exists() and time.monotonic() < deadline:
    time.sleep(0.05)
"""


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`claude` and `codex` on PATH that record each run in the file returned."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("claude", "codex"):
        (folder / name).write_text(STAND_IN)
        (folder / name).chmod(0o755)
    record = tmp_path / "runs.jsonl"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HEADLESS_RECORD", str(record))
    monkeypatch.setenv("HEADLESS_HOLD", str(tmp_path / "hold"))
    return record


def runs(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def send_review(repo: Repo) -> None:
    for args in (["comment", "src/app.py:5", "-m", "Halve it"], ["send"]):
        subprocess.run([review_command(), *args], cwd=repo.root, check=True, capture_output=True)


def watcher(repo: Repo, said: list[str], headless: Headless) -> Watcher:
    # A tmux server that is not running: no agent is found in a pane.
    return Watcher(repo.root, Tmux(f"review-test-absent-{repo.root.name}"), ("claude",), said.append, 0, headless)


def notices(repo: Repo) -> list[str]:
    return [notice.channel for notice in Store(repo.root).read().rounds[0].notices]


@pytest.mark.parametrize(
    ("harness", "resume"),
    [
        ("claude", ["claude", "-p", "--resume", "SESSION", f"--allowedTools=Bash({review_command()} pending:*)"]),
        ("codex", ["codex", "exec", "resume", "-c", 'sandbox_mode="workspace-write"', "SESSION"]),
    ],
)
def test_an_idle_session_is_resumed_once_in_its_worktree_with_a_pointer_that_runs(
    agent_worktree: Repo, stand_ins: Path, harness: str, resume: list[str]
) -> None:
    send_review(agent_worktree)
    agent.record(agent_worktree.root, "idle", harness, "Stop", "0f5e-session")
    said: list[str] = []
    headless = Headless()
    watcher(agent_worktree, said, headless).tick([agent_worktree.root])
    headless.wait()
    [run] = runs(stand_ins)
    assert Path(run["cwd"]) == agent_worktree.root
    program, *args = run["argv"]
    assert [Path(program).name, *args[:-1]] == [r if r != "SESSION" else "0f5e-session" for r in resume]
    assert args[-1].startswith(f"{review_command()} pending  # 1 review comment waits for you")
    assert notices(agent_worktree) == [harness]
    assert len(said) == 1 and f"resumed {harness} session 0f5e-session headless" in said[0]
    # The prompt's command, as the agent runs it in its shell, reads the review.
    ran = subprocess.run(["bash", "-c", args[-1]], cwd=agent_worktree.root, capture_output=True, text=True)
    assert ran.returncode == 0 and "### c1" in ran.stdout, ran.stderr
    watcher(agent_worktree, said, headless).tick([agent_worktree.root])
    headless.wait()
    assert len(runs(stand_ins)) == 1  # read: nothing to point to


def test_a_busy_session_is_never_resumed(agent_worktree: Repo, stand_ins: Path) -> None:
    send_review(agent_worktree)
    agent.record(agent_worktree.root, "working", "claude", "PreToolUse", "0f5e-session")
    said: list[str] = []
    watcher(agent_worktree, said, Headless()).tick([agent_worktree.root])
    assert runs(stand_ins) == [] and notices(agent_worktree) == []
    assert said[0].endswith("no agent runs in a tmux pane here, and its claude session is working, so it waits too")


def test_a_session_review_resumed_is_not_resumed_again_while_it_runs(
    agent_worktree: Repo, stand_ins: Path, tmp_path: Path
) -> None:
    send_review(agent_worktree)
    (tmp_path / "hold").touch()
    agent.record(agent_worktree.root, "idle", "claude", "Stop", "0f5e-session")
    said: list[str] = []
    headless = Headless()
    watch = watcher(agent_worktree, said, headless)
    watch.tick([agent_worktree.root])
    agent.record(agent_worktree.root, "idle", "claude", "Stop")  # even if a hook said idle meanwhile
    watch.tick([agent_worktree.root])
    assert said[-1].endswith("and the claude session review resumed is still on it")
    (tmp_path / "hold").unlink()
    headless.wait()
    assert len(runs(stand_ins)) == 1 and notices(agent_worktree) == ["claude"]


def test_without_a_recorded_session_nothing_is_resumed(agent_worktree: Repo, stand_ins: Path) -> None:
    send_review(agent_worktree)
    agent.record(agent_worktree.root, "idle", "claude", "Stop")
    said: list[str] = []
    watcher(agent_worktree, said, Headless()).tick([agent_worktree.root])
    assert runs(stand_ins) == [] and notices(agent_worktree) == []
    assert said[0].endswith("its hooks recorded no Claude Code or Codex session to resume")


def test_a_command_that_cannot_start_takes_its_notice_back(agent_worktree: Repo, stand_ins: Path) -> None:
    send_review(agent_worktree)
    claude = stand_ins.parent / "bin" / "claude"
    claude.write_text("#!/nowhere/interpreter\n")
    agent.record(agent_worktree.root, "idle", "claude", "Stop", "0f5e-session")
    said: list[str] = []
    watcher(agent_worktree, said, Headless()).tick([agent_worktree.root])
    assert "claude could not be started" in said[0], said
    assert notices(agent_worktree) == []


def test_without_headless_an_agent_in_no_pane_is_only_said(agent_worktree: Repo, stand_ins: Path) -> None:
    send_review(agent_worktree)
    agent.record(agent_worktree.root, "idle", "claude", "Stop", "0f5e-session")
    said: list[str] = []
    Watcher(agent_worktree.root, Tmux("review-test-absent-x"), ("claude",), said.append, 0).tick([agent_worktree.root])
    assert runs(stand_ins) == [] and notices(agent_worktree) == []
    assert said and "tmux" in said[0]


def installed(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed here (npm install -g {_PACKAGES[name]}), so its flags are not checked")
    return found


_PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}


def test_the_installed_claude_code_resumes_a_session_by_id_in_print_mode() -> None:
    shown = subprocess.run([installed("claude"), "--help"], capture_output=True, text=True, timeout=120).stdout
    assert "-p, --print" in shown
    assert "-r, --resume [value]" in shown and "Resume a conversation by session ID" in shown


def test_the_installed_codex_resumes_a_session_by_id_with_a_prompt() -> None:
    done = subprocess.run([installed("codex"), "exec", "resume", "--help"], capture_output=True, text=True, timeout=120)
    assert "codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]" in done.stdout
    assert "-c, --config <key=value>" in done.stdout
