"""Review's extension for Pi, run under node with a stand-in of Pi's extension API: it records
Pi's state through `review hook pi`, and hands Pi the pointer to a round sent to its worktree, as
a message that starts a turn when Pi is idle and as a follow-up when it is busy; and Pi's own
loader accepts it, when Pi is installed."""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.agents.install import install, pi_extension, skill_folder
from review.state import news
from review.state.store import Store
from tmux import review_command

NODE = shutil.which("node")
HARNESS = Path(__file__).with_name("pi_harness.mjs")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: Pi's extension cannot be run")


class Pi:
    """The stand-in Pi, running review's extension as `review install pi` wrote it."""

    def __init__(self, extension: Path, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [str(NODE), str(HARNESS), str(extension), str(cwd)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.said: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.loaded = self.next("loaded")["loaded"]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.said.put(json.loads(line))
        self.said.put({"exited": self.process.wait()})

    def next(self, key: str) -> dict[str, Any]:
        """The next thing the stand-in says with `key`; what it said before is dropped."""
        while True:
            said = self.said.get(timeout=60)
            if key in said:
                return said
            if "exited" in said:
                assert self.process.stderr is not None
                raise AssertionError(f"the stand-in Pi exited: {self.process.stderr.read()}")

    def fire(self, event: str) -> list[dict[str, Any]]:
        """Run the extension's handlers of `event`; what it sent Pi meanwhile."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"fire": event}) + "\n")
        self.process.stdin.flush()
        return self._until({"fired": event})

    def leave(self) -> list[dict[str, Any]]:
        """Pi exits: the extension's last calls to review finish; what it sent Pi meanwhile."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        sent = self._until({"fired": "session_shutdown"})
        self.process.wait(timeout=60)
        return sent

    def _until(self, end: dict[str, Any]) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        while (said := self.said.get(timeout=60)) != end:
            assert "exited" not in said, said
            sent += [said] if "sent" in said else []
        return sent


@pytest.fixture
def pi(agent_worktree: Repo) -> Iterator[Pi]:
    install(["pi"], root=None, skill=skill_folder(), command=shlex.quote(review_command()))
    running = Pi(pi_extension(None), agent_worktree.root)
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.wait()


def send_review(repo: Repo, line: int = 5) -> None:
    for args in (["comment", f"src/app.py:{line}", "-m", f"on {line}"], ["send"]):
        subprocess.run([review_command(), *args], cwd=repo.root, check=True, capture_output=True)


def notices(repo: Repo) -> list[str]:
    return [notice.channel for notice in Store(repo.root).read().rounds[-1].notices]


@needs_node
def test_the_extension_listens_to_pis_session_and_agent_events(pi: Pi) -> None:
    assert pi.loaded == ["agent_end", "agent_start", "session_shutdown", "session_start"]


@needs_node
def test_a_round_sent_to_an_idle_pi_reaches_it_as_a_message_that_starts_a_turn(pi: Pi, agent_worktree: Repo) -> None:
    pi.fire("session_start")
    send_review(agent_worktree)
    sent = pi.next("sent")
    assert (sent["options"], sent["idle"]) == (None, True)
    assert sent["sent"].startswith(f"{review_command()} pending  # 1 review comment waits for you")
    assert notices(agent_worktree) == ["pi"]
    assert Store(agent_worktree.root).read().rounds[0].delivered_at is None  # pointed to, not read
    recorded = agent.read(agent_worktree.root)
    assert recorded is not None
    assert (recorded.agent, recorded.session_id) == ("pi", "pi-session-7f3a")
    # The pointer runs as written in Pi's shell, and reading the review delivers it.
    ran = subprocess.run(["bash", "-c", sent["sent"]], cwd=agent_worktree.root, capture_output=True, text=True)
    assert ran.returncode == 0 and "### c1" in ran.stdout, ran.stderr
    assert Store(agent_worktree.root).read().rounds[0].read_by == "pending"
    assert pi.leave() == []


@needs_node
def test_a_round_sent_to_a_busy_pi_is_queued_as_a_follow_up_and_its_stop_is_let_through(
    pi: Pi, agent_worktree: Repo
) -> None:
    pi.fire("session_start")
    pi.fire("agent_start")
    send_review(agent_worktree)
    sent = pi.next("sent")
    assert (sent["options"], sent["idle"]) == ({"deliverAs": "followUp"}, False)
    # The extension calls review in the order of Pi's events: agent_start was recorded first.
    assert agent.read(agent_worktree.root).state == "working"  # type: ignore[union-attr]
    # The run that took the follow-up ends: the agent may stop, as after stop_hook_active.
    assert pi.fire("agent_end") == []
    assert pi.leave() == []
    assert notices(agent_worktree) == ["pi"]
    assert agent.read(agent_worktree.root).state == "idle"  # type: ignore[union-attr]


@needs_node
def test_an_unread_round_is_pointed_to_again_when_the_users_next_turn_ends_at_most_three_times(
    pi: Pi, agent_worktree: Repo
) -> None:
    pi.fire("session_start")
    send_review(agent_worktree)
    pi.next("sent")
    for event in ("agent_start", "agent_end"):  # the turn the pointer started: not read
        assert pi.fire(event) == []
    for count in (2, 3):
        pi.fire("agent_start")  # the user's next prompt
        pi.fire("agent_end")
        sent = pi.next("sent")
        assert "review comment waits" in sent["sent"] and sent["idle"]
        assert len(notices(agent_worktree)) == count
        pi.fire("agent_start")
        pi.fire("agent_end")
    assert pi.leave() == []
    assert news.delivery(Store(agent_worktree.root).read()).heard == "not read"


@needs_node
def test_a_round_sent_before_pi_started_reaches_it_when_its_session_starts(agent_worktree: Repo) -> None:
    send_review(agent_worktree)
    install(["pi"], root=None, skill=skill_folder(), command=shlex.quote(review_command()))
    pi = Pi(pi_extension(None), agent_worktree.root)
    pi.fire("session_start")
    assert pi.next("sent")["idle"]
    pi.leave()
    assert notices(agent_worktree) == ["pi"]


@needs_node
def test_without_review_the_extension_says_nothing_and_pi_goes_on(agent_worktree: Repo, tmp_path: Path) -> None:
    extension = tmp_path / "review.js"
    installed = pi_extension(None)
    install(["pi"], root=None, skill=skill_folder(), command="/nowhere/review")
    shutil.copy(installed, extension)
    pi = Pi(extension, agent_worktree.root)
    pi.fire("session_start")
    send_review(agent_worktree)
    assert pi.fire("agent_start") == [] and pi.fire("agent_end") == []
    assert pi.leave() == []
    assert notices(agent_worktree) == []


def pi_package() -> Path | None:
    """Pi's own package (`@mariozechner/pi-coding-agent`), if it is installed: named by
    $PI_CODING_AGENT, or found beside the `pi` on PATH, or among npm's global packages."""
    named = os.environ.get("PI_CODING_AGENT")
    candidates = [Path(named)] if named else []
    pi = shutil.which("pi")
    if pi:
        candidates.append(Path(os.path.realpath(pi)).parents[1])
    npm = shutil.which("npm")
    if npm:
        root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, check=False).stdout.strip()
        if root:
            candidates.append(Path(root) / "@mariozechner" / "pi-coding-agent")
    return next((path for path in candidates if (path / "dist" / "index.js").is_file()), None)


@needs_node
def test_pis_own_loader_finds_and_accepts_the_installed_extension(agent_worktree: Repo) -> None:
    package = pi_package()
    if package is None:
        pytest.skip("Pi (@mariozechner/pi-coding-agent) is not installed; set PI_CODING_AGENT to its folder")
    install(["pi"], root=None, skill=skill_folder(), command=shlex.quote(review_command()))
    script = (
        f"const pi = await import({json.dumps((package / 'dist' / 'index.js').as_uri())});"
        f"const found = await pi.discoverAndLoadExtensions([], {json.dumps(str(agent_worktree.root))},"
        f" {json.dumps(str(Path.home() / '.pi' / 'agent'))});"
        "console.log(JSON.stringify({errors: found.errors.map(e => String(e.error)),"
        " loaded: found.extensions.map(e => [e.path, [...e.handlers.keys()].sort()])}));"
    )
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {
        "errors": [],
        "loaded": [[str(pi_extension(None)), ["agent_end", "agent_start", "session_shutdown", "session_start"]]],
    }
