"""End to end in real tmux: a stand-in agent sits in one pane, the reviewer sends comments,
`review watch` tells the agent, and the agent fixes the code and resolves every comment."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Repo
from review.state.store import Store
from tmux import Terminal, review_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

REVIEW = review_command()

# A stand-in for a coding agent, named `claude` so that `review watch` recognises it: it reports
# its state through the Claude Code hooks, as the real one does once `review install` ran, reads a
# line of input, and then does what `review pending --json` asks.
STAND_IN = """\
import json, os, subprocess, sys

REVIEW = {review!r}


def hook(event):
    payload = json.dumps({{"hook_event_name": event, "cwd": os.getcwd(), "stop_hook_active": False}})
    subprocess.run([REVIEW, "hook", "claude"], input=payload, text=True, capture_output=True)


hook("SessionStart")
while True:
    sys.stdout.write("standin> ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        break
    hook("UserPromptSubmit")
    print("read: " + line.strip())
    pending = subprocess.run([REVIEW, "pending", "--json"], capture_output=True, text=True).stdout
    for comment in json.loads(pending)["comments"] if pending.strip() else []:
        with open(comment["path"]) as file:
            lines = file.readlines()
        number = comment["line"]
        lines[number - 1] = lines[number - 1].rstrip("\\n") + "  # fixed " + comment["id"] + "\\n"
        with open(comment["path"], "w") as file:
            file.writelines(lines)
        subprocess.run([REVIEW, "resolve", comment["id"], "-m", "fixed line %d" % number], check=True)
        print("resolved " + comment["id"])
    hook("Stop")
"""


def test_watch_delivers_and_the_agent_resolves_every_comment(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(demo), "--no-open"], check=True, capture_output=True)
    worktree = demo / "tally-currency"
    agents = tmp_path / "agents"
    agents.mkdir()
    script = agents / "claude"
    script.write_text(f"#!{sys.executable}\n" + STAND_IN.format(review=REVIEW))
    script.chmod(0o755)

    terminal = Terminal(worktree, width=160, height=40)
    try:
        terminal.run(str(script))
        terminal.wait_for("standin>")
        for target, text in (("tally/currency.py:8", "Name the parameters better"), ("tally/ledger.py:17", "Why EUR?")):
            subprocess.run([REVIEW, "comment", target, "-m", text], cwd=worktree, check=True, capture_output=True)
        subprocess.run([REVIEW, "send", "-m", "Two things"], cwd=worktree, check=True, capture_output=True)

        terminal.tmux(
            "new-window",
            "-d",
            "-n",
            "watch",
            "-c",
            str(demo / "tally"),
            f"{REVIEW} watch > {tmp_path / 'watch.log'} 2>&1",
        )
        store = Store(worktree)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(c.status == "addressed" for c in store.read().comments):
                break
            time.sleep(0.2)
        screen = terminal.screen()
        log = (tmp_path / "watch.log").read_text()
        assert all(c.status == "addressed" for c in store.read().comments), f"{log}\n{screen}"
    finally:
        terminal.close()

    review = store.read()
    assert review.rounds[0].delivered_at is not None
    assert [r.body for c in review.comments for r in c.thread] == ["fixed line 8", "fixed line 17"]
    assert "  # fixed c1" in (worktree / "tally/currency.py").read_text().splitlines()[7]
    assert "  # fixed c2" in (worktree / "tally/ledger.py").read_text().splitlines()[16]
    # the pointer the stand-in read, compared without the spaces and line breaks the pane wraps it with
    assert "read:" in screen
    assert "reviewpending#2reviewcommentswaitforyouonthisworktree." in "".join(screen.split())
    assert "tally-currency:" in log and "%0" in log


def test_watch_pastes_the_reviewers_answer_as_a_command_that_runs_where_review_is_not_on_path(
    agent_worktree: Repo, tmp_path: Path
) -> None:
    # The stand-in agent is a login shell whose PATH lacks review's virtual environment (Debian's
    # /etc/profile sets PATH anew, as Codex's `bash -lc` meets it), named an agent in the config.
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "review" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('agents = ["bash"]\n')
    worktree = agent_worktree.root
    for args in (
        ("comment", "src/app.py:5", "-m", "Why double it?"),
        ("send",),
        ("pending",),
        ("reply", "c1", "-m", "Should it be tripled instead?"),
    ):
        subprocess.run([REVIEW, *args], cwd=worktree, check=True, capture_output=True)

    terminal = Terminal(tmp_path, width=120, height=40)
    try:
        agent = terminal.tmux(
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-c",
            str(worktree),
            "env",
            "PATH=/usr/bin:/bin",
            "bash",
            "--norc",
            "-l",
        ).strip()
        terminal.tmux("send-keys", "-t", agent, "-l", "command -v review || echo no-review-$((6*7))")
        terminal.tmux("send-keys", "-t", agent, "Enter")
        wait_for_pane(terminal, agent, "no-review-42")
        log = tmp_path / "watch.log"
        terminal.tmux(
            "new-window",
            "-d",
            "-n",
            "watch",
            "-c",
            str(tmp_path),
            f"env PATH=/usr/bin:/bin {shlex.quote(REVIEW)} watch {shlex.quote(str(worktree))} > {log} 2>&1",
        )
        wait_until(lambda: "watching the worktrees" in (log.read_text() if log.exists() else ""), "watch to start")

        subprocess.run([REVIEW, "reply", "c1", "--as", "reviewer", "-m", "No, halved."], cwd=worktree, check=True)
        screen = wait_for_pane(terminal, agent, "No, halved.", timeout=30)
    finally:
        terminal.close()

    told = f"{shlex.quote(REVIEW)} pending  # The reviewer answered you on c1."
    assert "".join(told.split()) in "".join(screen.split()), screen
    assert "# Review of agent: round r1" in screen  # printed by the pasted command, as written
    assert "**New:** *reviewer, " in screen and "Should it be tripled instead?" in screen
    assert Store(worktree).read().comment("c1").thread[1].delivered_at is not None
    assert "told bash in tmux pane" in log.read_text()


def wait_for_pane(terminal: Terminal, pane: str, text: str, timeout: float = 15.0) -> str:
    screen = ""

    def shown() -> bool:
        nonlocal screen
        screen = terminal.tmux("capture-pane", "-p", "-J", "-t", pane)
        return text in screen

    wait_until(shown, f"{text!r} in pane {pane}", timeout, lambda: screen)
    return screen


def wait_until(condition, what: str, timeout: float = 15.0, show=lambda: "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s\n{show()}")
        time.sleep(0.05)
