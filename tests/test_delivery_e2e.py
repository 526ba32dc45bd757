"""End to end in real tmux: a stand-in agent sits in one pane, the reviewer sends comments,
`review watch` tells the agent, and the agent fixes the code and resolves every comment."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from review.store import Store
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

        terminal.tmux("new-window", "-d", "-n", "watch", "-c", str(demo / "tally"), f"{REVIEW} watch > {tmp_path / 'watch.log'} 2>&1")
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
    assert "read: 2 review comments on this worktree wait for you" in screen
    assert "tally-currency:" in log and "%0" in log
