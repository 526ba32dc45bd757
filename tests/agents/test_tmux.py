"""Delivery to an agent in tmux: finding its pane, waiting for it to be idle, and pasting a pointer.

Everything runs in real tmux on a private server. The agent is a stand-in: a small Python script
named like an agent, which prints a prompt and answers each line it reads with `got: LINE`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.agents import tmux as delivery
from review.agents.tmux import Pane, Tmux, deliver, find_agent_pane, is_idle
from review.agents.watch import Watcher
from review.errors import DeliveryFailed
from review.state import news
from review.state.store import Store
from tmux import Terminal, review_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

POINTER = "3 review comments; run `review pending`"

# It turns bracketed paste on, as agents' prompts do, and logs every line exactly as it came,
# so that a test can see the paste's brackets.
STAND_IN = """\
import json, sys, termios

log = sys.argv[1]
if "--no-echo" in sys.argv:
    attrs = termios.tcgetattr(0)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(0, termios.TCSANOW, attrs)
sys.stdout.write("\\x1b[?2004h")
while True:
    sys.stdout.write("ready> ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        break
    line = line.rstrip("\\n")
    with open(log, "a") as out:
        out.write(json.dumps(line) + "\\n")
    text = line.replace("\\x1b[200~", "").replace("\\x1b[201~", "")
    if text == "exit":
        break
    print("got: " + text)
sys.stdout.write("\\x1b[?2004l")
sys.stdout.flush()
"""

COUNTER = "import itertools, time\nfor n in itertools.count():\n    print(n, flush=True)\n    time.sleep(0.1)\n"


def stand_in(folder: Path, name: str = "claude", shebang: str = "#!/usr/bin/env python3") -> Path:
    """An executable stand-in agent called `name`."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f"{shebang}\n{STAND_IN}")
    script.chmod(0o755)
    return script


class Server:
    """A private tmux server whose panes a test opens in chosen folders."""

    def __init__(self, cwd: Path) -> None:
        self.terminal = Terminal(cwd)
        self.tmux = Tmux(self.terminal.socket)

    def open(self, folder: Path, *command: str) -> str:
        """A new window in `folder` running `command` (without a shell); its pane's id."""
        return self.terminal.tmux(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(folder), "--", *command
        ).strip()

    def shell(self, folder: Path) -> str:
        """A pane with an interactive bash in `folder`, at its prompt."""
        pane = self.open(folder, "env", "PS1=sh> ", "bash", "--norc", "--noprofile", "-i")
        self.wait_for(pane, "sh>")
        return pane

    def type(self, pane: str, line: str) -> None:
        self.terminal.tmux("send-keys", "-t", pane, "-l", line)
        self.terminal.tmux("send-keys", "-t", pane, "Enter")

    def screen(self, pane: str) -> str:
        return self.terminal.tmux("capture-pane", "-p", "-t", pane)

    def wait_for(self, pane: str, text: str, timeout: float = 5.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(pane)
            if text in screen:
                return screen
            time.sleep(0.02)
        raise AssertionError(f"{text!r} did not appear in {pane}; the screen:\n{screen}")

    def agent(self, folder: Path, script: Path, log: Path, *options: str) -> str:
        """A pane in `folder` that runs the stand-in `script`, once its prompt shows."""
        pane = self.open(folder, str(script), str(log), *options)
        self.wait_for(pane, "ready>")
        return pane


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path)
    try:
        yield started
    finally:
        started.terminal.close()


@pytest.fixture
def worktree(project: Repo) -> Path:
    return project.worktree("worktree", "agent/work").root


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    """A folder, outside every worktree, holding the stand-in agents."""
    return tmp_path / "bin"


def lines_read(log: Path) -> list[str]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def wait_for_lines(log: Path, count: int = 1, timeout: float = 30.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(lines := lines_read(log)) >= count:
            return lines
        time.sleep(0.02)
    raise AssertionError(f"the stand-in read {len(lines_read(log))} lines, not {count}, within {timeout} s")


# Finding the agent's pane


def test_the_agent_in_the_worktree_is_found_not_a_shell_in_the_same_folder(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    server.shell(worktree)
    pane = server.agent(worktree, stand_in(agents), tmp_path / "log")
    server.shell(worktree)

    found = find_agent_pane(server.tmux, worktree)

    assert found is not None
    assert (found.id, found.agent, found.path) == (pane, "claude", worktree.resolve())


def test_a_folder_inside_the_worktree_counts(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> None:
    inside = worktree / "src" / "deep"
    inside.mkdir(parents=True)
    pane = server.agent(inside, stand_in(agents), tmp_path / "log")

    found = find_agent_pane(server.tmux, worktree)

    assert found is not None and found.id == pane


def test_an_agent_in_a_sibling_worktree_whose_name_starts_alike_is_not_found(
    server: Server, project: Repo, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    sibling = project.worktree("worktree-2", "agent/two").root
    server.agent(sibling, stand_in(agents), tmp_path / "log")
    server.shell(worktree)

    assert find_agent_pane(server.tmux, worktree) is None


def test_an_agent_in_a_worktree_nested_inside_is_not_found(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    nested = worktree / ".claude" / "worktrees" / "nested"
    Repo(worktree).git("worktree", "add", "--quiet", "-b", "nested", str(nested))
    server.agent(nested, stand_in(agents), tmp_path / "log")

    assert find_agent_pane(server.tmux, worktree) is None
    assert find_agent_pane(server.tmux, nested) is not None


def test_the_worktree_is_found_through_a_symlink(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(worktree)
    pane = server.agent(worktree, stand_in(agents), tmp_path / "log")

    found = find_agent_pane(server.tmux, link)

    assert found is not None and found.id == pane


@pytest.mark.parametrize("shebang", ["#!/usr/bin/env python3", f"#!{sys.executable}"], ids=["env", "direct"])
def test_an_agent_is_found_whatever_its_shebang_makes_its_process_name(
    server: Server, worktree: Path, agents: Path, tmp_path: Path, shebang: str
) -> None:
    # Through env the process is called python3 and only its arguments name the agent; through a
    # direct interpreter Linux names the process after the script.
    pane = server.agent(worktree, stand_in(agents, shebang=shebang), tmp_path / "log")

    found = find_agent_pane(server.tmux, worktree)

    assert found is not None and found.id == pane


def test_an_agent_started_by_a_shell_is_found_among_its_descendants(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    script = stand_in(agents)
    # The command after the agent keeps bash from replacing itself with the agent.
    pane = server.open(worktree, "bash", "-c", f"{script} {tmp_path / 'log'}; echo finished")
    server.wait_for(pane, "ready>")

    found = find_agent_pane(server.tmux, worktree)

    assert found is not None
    assert (found.id, found.agent) == (pane, "claude")
    assert found.command != "claude"


def test_an_agent_in_the_background_of_a_shell_is_not_found(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    # What is typed into that pane reaches the shell, which would run the pointer as a command.
    shell = server.shell(worktree)
    server.type(shell, f"{stand_in(agents)} {tmp_path / 'log'} &")
    server.wait_for(shell, "ready>")

    assert find_agent_pane(server.tmux, worktree) is None


def test_agent_names_can_be_chosen(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> None:
    pane = server.agent(worktree, stand_in(agents, name="my-agent"), tmp_path / "log")

    assert find_agent_pane(server.tmux, worktree) is None
    found = find_agent_pane(server.tmux, worktree, agents=("my-agent",))
    assert found is not None
    assert (found.id, found.agent) == (pane, "my-agent")


def test_the_deepest_pane_wins_then_the_lowest_id(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> None:
    deep = worktree / "src"
    deep.mkdir(exist_ok=True)
    script = stand_in(agents)
    first_at_root = server.agent(worktree, script, tmp_path / "log1")
    server.agent(worktree, script, tmp_path / "log2")
    found = find_agent_pane(server.tmux, worktree)
    assert found is not None and found.id == first_at_root

    in_src = server.agent(deep, script, tmp_path / "log3")
    found = find_agent_pane(server.tmux, worktree)
    assert found is not None and found.id == in_src


def test_no_pane_is_found_when_no_agent_runs(server: Server, worktree: Path) -> None:
    server.shell(worktree)

    assert find_agent_pane(server.tmux, worktree) is None


def test_agents_are_found_through_ps_where_there_is_no_proc(
    server: Server, worktree: Path, agents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delivery, "_PROC", tmp_path / "no-proc")
    pane = server.open(worktree, "bash", "-c", f"{stand_in(agents)} {tmp_path / 'log'}; echo finished")
    server.wait_for(pane, "ready>")

    found = find_agent_pane(server.tmux, worktree)

    assert found is not None and found.id == pane


# Whether the agent is idle


@pytest.fixture
def agent_pane(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> Pane:
    server.agent(worktree, stand_in(agents), tmp_path / "log")
    found = find_agent_pane(server.tmux, worktree)
    assert found is not None
    return found


@pytest.fixture
def busy_pane(server: Server, worktree: Path) -> Pane:
    """A pane whose text changes every 0.1 s."""
    pane = server.open(worktree, sys.executable, "-c", COUNTER)
    server.wait_for(pane, "1")
    return Pane(id=pane, pid=0, command="python3", path=worktree, agent="claude")


def test_an_agent_recorded_idle_is_idle_at_once(busy_pane: Pane, server: Server) -> None:
    started = time.monotonic()

    assert is_idle(server.tmux, busy_pane, "idle", 1.0)
    assert time.monotonic() - started < 0.2


@pytest.mark.parametrize("state", ["working", "waiting"])
def test_an_agent_recorded_working_or_waiting_is_not_idle(agent_pane: Pane, server: Server, state: str) -> None:
    assert not is_idle(server.tmux, agent_pane, state, 1.0, quiet=0.3)


def test_without_a_record_a_quiet_pane_is_idle(agent_pane: Pane, server: Server) -> None:
    started = time.monotonic()

    assert is_idle(server.tmux, agent_pane, None, None, quiet=0.3)
    assert time.monotonic() - started >= 0.3


def test_without_a_record_a_changing_pane_is_not_idle(busy_pane: Pane, server: Server) -> None:
    assert not is_idle(server.tmux, busy_pane, None, None, quiet=0.3)


def test_a_stale_working_record_falls_back_to_the_pane(agent_pane: Pane, busy_pane: Pane, server: Server) -> None:
    assert is_idle(server.tmux, agent_pane, "working", 1000.0, quiet=0.3, stale=300.0)
    assert not is_idle(server.tmux, busy_pane, "working", 1000.0, quiet=0.3, stale=300.0)


# Delivering the pointer


def test_the_pointer_is_pasted_bracketed_and_entered(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    server.agent(worktree, stand_in(agents), log)
    pane = find_agent_pane(server.tmux, worktree)
    assert pane is not None

    delivered = deliver(server.tmux, pane, POINTER)

    assert delivered.arrived, delivered.detail
    assert "\n" not in delivered.detail
    server.wait_for(pane.id, f"got: {POINTER}")
    assert wait_for_lines(log) == [f"\x1b[200~{POINTER}\x1b[201~"]


def test_the_same_pointer_again_is_seen_as_new(server: Server, worktree: Path, agents: Path, tmp_path: Path) -> None:
    log = tmp_path / "log"
    server.agent(worktree, stand_in(agents), log)
    pane = find_agent_pane(server.tmux, worktree)
    assert pane is not None
    assert deliver(server.tmux, pane, POINTER).arrived
    server.wait_for(pane.id, f"got: {POINTER}")

    assert deliver(server.tmux, pane, POINTER).arrived
    deadline = time.monotonic() + 5
    while len(lines_read(log)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(lines_read(log)) == 2


def test_a_pointer_that_does_not_appear_is_not_entered(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    server.agent(worktree, stand_in(agents), log, "--no-echo")
    pane = find_agent_pane(server.tmux, worktree)
    assert pane is not None

    delivered = deliver(server.tmux, pane, POINTER, timeout=0.3)

    assert not delivered.arrived
    assert "Enter was not sent" in delivered.detail
    # Had Enter been sent, the stand-in would have read the line by now.
    time.sleep(0.3)
    assert lines_read(log) == []


@pytest.mark.parametrize("pointer", ["two\nlines", "enter\r", "escape \x1b[201~ early", "", "  "])
def test_a_pointer_that_could_submit_early_is_refused(agent_pane: Pane, server: Server, pointer: str) -> None:
    with pytest.raises(ValueError):
        deliver(server.tmux, agent_pane, pointer)


def test_nothing_is_typed_once_the_agent_has_left_its_pane(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    shell = server.shell(worktree)
    server.type(shell, f"{stand_in(agents)} {tmp_path / 'log'}")
    server.wait_for(shell, "ready>")
    pane = find_agent_pane(server.tmux, worktree)
    assert pane is not None and pane.id == shell
    server.type(shell, "exit")
    deadline = time.monotonic() + 5
    while server.screen(shell).rstrip().splitlines()[-1] != "sh>" and time.monotonic() < deadline:
        time.sleep(0.02)

    delivered = deliver(server.tmux, pane, POINTER)

    assert not delivered.arrived
    assert "no longer running" in delivered.detail
    time.sleep(0.2)
    assert "review" not in server.screen(shell)


def test_delivering_into_a_pane_that_is_gone_fails(agent_pane: Pane, server: Server) -> None:
    gone = Pane(id="%999", pid=agent_pane.pid, command="claude", path=agent_pane.path, agent="claude")

    with pytest.raises(DeliveryFailed, match="no longer exists"):
        deliver(server.tmux, gone, POINTER)


def test_capturing_a_pane_that_is_gone_fails(server: Server) -> None:
    with pytest.raises(DeliveryFailed, match="tmux pane %999 no longer exists"):
        server.tmux.capture("%999")


# tmux itself


def test_a_server_that_is_not_running_is_not_available(tmp_path: Path) -> None:
    tmux = Tmux(f"review-test-absent-{tmp_path.name}")

    assert not tmux.available()
    with pytest.raises(DeliveryFailed, match=r"^tmux: "):
        tmux.panes()


def test_a_running_server_is_available(server: Server) -> None:
    assert server.tmux.available()


def test_without_tmux_installed_delivery_fails_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    tmux = Tmux("review-test-none")

    assert not tmux.available()
    with pytest.raises(DeliveryFailed, match="tmux is not installed"):
        tmux.panes()


# What `review watch` tells


def test_watch_tells_of_the_reviewers_answer_once_and_never_interrupts_for_an_approval(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    def review(*args: str) -> None:
        subprocess.run([review_command(), *args], cwd=worktree, check=True, capture_output=True, timeout=60)

    review("comment", "src/app.py:5", "-m", "Why this line?")
    review("send")
    review("pending")
    review("reply", "c1", "-m", "Which line do you mean?")
    log = tmp_path / "log"
    pane = server.agent(worktree, stand_in(agents), log)
    agent.record(worktree, "idle", "claude", "Stop")
    said: list[str] = []
    watcher = Watcher(worktree, server.tmux, ("claude",), said.append)

    watcher.tick([worktree])
    assert lines_read(log) == [] and said == []  # the agent's own reply is no news

    review("reply", "c1", "--as", "reviewer", "-m", "Line 5.")
    watcher.tick([worktree])
    server.wait_for(pane, "got: ")
    [line] = wait_for_lines(log)
    assert " pending  # The reviewer answered you on c1. This command prints it." in line
    reply = Store(worktree).read().comment("c1").thread[1]
    assert reply.delivered_at is None and [n.channel for n in reply.notices] == ["tmux"]  # pointed to, not read

    watcher.tick([worktree])
    assert len(lines_read(log)) == 1  # not again before `again` seconds pass
    review("pending")
    review("send", "--approve", "-m", "Ship it")
    watcher.tick([worktree])
    assert len(lines_read(log)) == 1
    assert Store(worktree).read().rounds[-1].delivered_at is None  # left for `review wait` or `pending`


def test_watch_points_again_to_news_the_agent_did_not_read_at_most_three_times(
    server: Server, worktree: Path, agents: Path, tmp_path: Path
) -> None:
    """The agent got the pointer but could not run it (refused, or no `review` in its shell):
    once it is idle again, the pointer comes again; after three, the watcher leaves it."""
    subprocess.run([review_command(), "comment", "src/app.py:5", "-m", "Halve it"], cwd=worktree, check=True)
    subprocess.run([review_command(), "send"], cwd=worktree, check=True, capture_output=True)
    log = tmp_path / "log"
    pane = server.agent(worktree, stand_in(agents), log)
    agent.record(worktree, "idle", "claude", "Stop")
    watcher = Watcher(worktree, server.tmux, ("claude",), lambda line: None, again=0)
    for count in range(1, 4):
        watcher.tick([worktree])
        server.wait_for(pane, "got: ")
        assert len(wait_for_lines(log, count)) == count
    watcher.tick([worktree])
    assert len(lines_read(log)) == 3
    sent = Store(worktree).read().rounds[0]
    assert sent.delivered_at is None and len(sent.notices) == 3
    assert news.delivery(Store(worktree).read()).heard == "not read"
