"""The skill teaches the loop: its format is valid, and every command it shows runs."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.state.store import Store
from tmux import review_command

SKILL = Path(__file__).parents[2] / "skills" / "review" / "SKILL.md"


def frontmatter() -> tuple[dict[str, str], str]:
    text = SKILL.read_text()
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL)
    assert match, "SKILL.md starts with YAML frontmatter between --- lines"
    fields = {}
    for line in match.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, match.group(2)


def commands() -> list[str]:
    _, body = frontmatter()
    return [line for block in re.findall(r"```sh\n(.*?)```", body, re.DOTALL) for line in block.splitlines() if line]


def test_the_frontmatter_follows_the_agent_skills_format() -> None:
    fields, body = frontmatter()
    assert set(fields) == {"name", "description", "allowed-tools"}
    assert fields["name"] == SKILL.parent.name == "review"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fields["name"]) and len(fields["name"]) <= 64
    assert 50 < len(fields["description"]) <= 1024
    assert "Use it when" in fields["description"]
    assert fields["allowed-tools"] == "Bash(review:*)"
    assert len(body.splitlines()) < 500


def test_it_shows_the_whole_loop() -> None:
    shown = " ".join(commands())
    for command in ("review pending", "review pending --json", "review resolve", "review reply", "review wait"):
        assert command in shown


def test_every_command_it_shows_runs(agent_worktree: Repo) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [review_command(), *args], cwd=agent_worktree.root, capture_output=True, text=True, timeout=60, check=False
        )

    for line in (2, 5, 30, 55):
        assert run("comment", f"src/app.py:{line}", "-m", f"comment on {line}").returncode == 0
    assert run("send").returncode == 0
    for command in commands():
        argv = shlex.split(command)
        assert argv[0] == "review"
        if argv[1] == "wait":
            # what it waits for: the reviewer answering the agent's reply
            assert run("reply", "c4", "--as", "reviewer", "-m", "Fair enough").returncode == 0
        done = run(*argv[1:])
        assert done.returncode == 0, f"{command}: {done.stderr}"
    statuses = {c.id: c.status for c in Store(agent_worktree.root).read().comments}
    assert statuses["c3"] == "addressed"
    assert [r.author for r in Store(agent_worktree.root).read().comment("c4").thread] == ["agent", "reviewer"]


def test_it_says_to_use_the_full_path_a_message_names() -> None:
    # The skill is one file linked into every agent's folder, so it cannot name this machine's
    # path; the messages from review do when plain `review` would not run (tests/test_command.py).
    _, body = frontmatter()
    assert "full path" in body and "in place of `review`" in body


def test_it_says_what_wait_returns_on() -> None:
    _, body = frontmatter()
    for news in ("a review sent", "the reviewer's answer", "an approval", "already read"):
        assert news in body


def test_it_says_to_wait_in_bounded_steps_and_only_when_asked() -> None:
    _, body = frontmatter()
    waiting = body[body.index("## Waiting for the reviewer") :]
    assert "Wait only when the person asked you" in waiting and "not after every task" in waiting
    timeout = int(waiting.split("review wait --timeout ")[1].split()[0])
    assert timeout < 120  # below the two minutes after which Claude Code moves a command away
    assert "run the same command again" in " ".join(waiting.split())


@pytest.mark.parametrize("command", ["review pending", "review wait --timeout 100"])
def test_commands_it_names_in_prose_exist(command: str) -> None:
    done = subprocess.run(
        [review_command(), *shlex.split(command)[1:], "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
