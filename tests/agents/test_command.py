"""What agents are told to run runs as written: plain `review` only where every shell of the agent
finds this very program, else its full path, quoted for the shell.

Each test runs the real `review` with a chosen PATH (and a chosen login profile in the test's HOME),
takes the pointer the Stop hook gives, and runs it in a login shell with the same PATH, as Codex
runs commands (`bash -lc`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.state.store import Store
from tmux import review_command

REVIEW = Path(review_command())
BARE = "/usr/bin:/bin"
"""A PATH without review's virtual environment, as an agent started outside it has."""


@pytest.fixture
def sent(agent_worktree: Repo) -> Repo:
    """A worktree with a review of two comments sent."""
    for line in (5, 30):
        run(agent_worktree, REVIEW, "comment", f"src/app.py:{line}", "-m", f"on {line}", path=BARE)
    run(agent_worktree, REVIEW, "send", path=BARE)
    return agent_worktree


def run(repo: Repo, program: Path | str, *args: str, path: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(program), *args],
        cwd=repo.root,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def pointer(repo: Repo, program: Path, path: str) -> str:
    """What the Stop hook tells the agent, with review run as `program` under `path`."""
    stop = json.dumps({"hook_event_name": "Stop", "cwd": str(repo.root), "stop_hook_active": False})
    return str(json.loads(run(repo, program, "hook", "claude", path=path, stdin=stop))["reason"])


def in_login_shell(repo: Repo, line: str, path: str) -> str:
    """`line` run as written in `bash -lc`, as Codex runs commands."""
    return run(repo, "/bin/bash", "-lc", line, path=path)


def profile(text: str) -> None:
    """The login profile of the test's HOME (conftest gives every test its own)."""
    (Path(os.environ["HOME"]) / ".bash_profile").write_text(text)


def test_without_review_on_path_the_agent_is_told_its_full_path(sent: Repo) -> None:
    told = pointer(sent, REVIEW, BARE)
    assert told.startswith(f"{shlex.quote(str(REVIEW))} pending  # 2 review comments wait")
    assert f"{shlex.quote(str(REVIEW))} resolve ID" in told
    printed = in_login_shell(sent, told, BARE)
    assert printed.startswith("# Review of agent: round r1") and "on 30" in printed


def test_on_every_shells_path_the_agent_is_told_plain_review(sent: Repo) -> None:
    folder = str(REVIEW.parent)
    profile(f'PATH="{folder}:$PATH"\nexport PATH\n')
    told = pointer(sent, REVIEW, f"{folder}:{BARE}")
    assert told.startswith("review pending  # 2 review comments wait")
    assert "review resolve ID" in told and str(REVIEW) not in told
    assert "on 30" in in_login_shell(sent, told, f"{folder}:{BARE}")


def test_on_the_agents_path_but_reset_by_its_login_profile_the_full_path(sent: Repo) -> None:
    # Debian's /etc/profile sets PATH anew, and Codex runs every command in a login shell.
    profile(f'PATH="{BARE}"\nexport PATH\n')
    folder = str(REVIEW.parent)
    told = pointer(sent, REVIEW, f"{folder}:{BARE}")
    assert told.startswith(f"{shlex.quote(str(REVIEW))} pending  #")
    assert "on 30" in in_login_shell(sent, told, f"{folder}:{BARE}")


def test_a_full_path_with_a_space_is_quoted_and_runs(sent: Repo, tmp_path: Path) -> None:
    # Through a link, as pipx and uv install it: the link is what is written, since it outlives
    # upgrades that replace the folder it points into.
    folder = tmp_path / "my tools"
    folder.mkdir()
    (folder / "review").symlink_to(REVIEW)
    told = pointer(sent, folder / "review", BARE)
    assert told.startswith(f"'{folder}/review' pending  #")
    assert "on 30" in in_login_shell(sent, told, BARE)


def test_every_command_in_the_instructions_runs_as_written(sent: Repo) -> None:
    printed = run(sent, REVIEW, "pending", path=BARE)
    written = (sent.root / ".review" / "instructions.md").read_text()
    for text in (printed, written):
        commands = re.findall(r"`([^`]* (?:resolve|reply) c\d [^`]*)`", text)
        assert commands and all(command.startswith(shlex.quote(str(REVIEW))) for command in commands)
    for command in re.findall(r"`([^`]* reply c\d [^`]*)`", printed):
        in_login_shell(sent, command, BARE)
    assert [r.body for c in Store(sent.root).read().comments for r in c.thread] == ["...", "..."]
