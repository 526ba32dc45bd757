"""`review request --open` in tmux: the viewer opens beside the agent's pane, in the worktree, and a
viewer that already shows the worktree (opened so, or by hand) is brought to the front instead of
a second one (`review.agents.viewer`).

Everything runs in real tmux on a private server; `review request` is typed into a shell in the
agent's pane, so that it finds tmux through the variables tmux gives the pane, as an agent's would.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Repo
from review.agents.tmux import Tmux
from review.agents.viewer import OPTION, viewer_pane
from tmux import Terminal, review_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

PANES = "#{window_index} #{pane_id} #{pane_left} #{pane_current_command} #{pane_current_path}"


@pytest.fixture
def terminal(agent_worktree: Repo) -> Iterator[Terminal]:
    """A tmux server whose one pane, the agent's, runs a shell in the worktree."""
    started = Terminal(agent_worktree.root, width=200, height=40)
    try:
        yield started
    finally:
        started.close()


def panes(terminal: Terminal) -> list[list[str]]:
    """Every pane: its window's index, id, left edge, current command and current path."""
    return [line.split(" ", 4) for line in terminal.tmux("list-panes", "-a", "-F", PANES).splitlines()]


def until(condition, what: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{what} never came")


def agent_pane(terminal: Terminal) -> str:
    """The pane the session started with: the agent's, whichever pane is active now."""
    return terminal.tmux("list-panes", "-t", "main:0", "-F", "#{pane_id}").split()[0]


def screen(terminal: Terminal, pane: str) -> str:
    return terminal.tmux("capture-pane", "-p", "-t", pane)


def request_open(terminal: Terminal, says: str) -> str:
    """Type `review request --open` into the agent's pane; its screen once it says `says`."""
    agent = agent_pane(terminal)
    terminal.tmux("send-keys", "-t", agent, "-l", f"{review_command()} request --open -m 'ready for you'")
    terminal.tmux("send-keys", "-t", agent, "Enter")
    return until(lambda: says in (shown := screen(terminal, agent)) and shown, f"{says!r} in the agent's pane")


def active_pane(terminal: Terminal) -> str:
    """The active pane of the session's current window: where the reviewer's keys go."""
    return terminal.tmux("display-message", "-p", "-t", "main", "#{pane_id}").strip()


def viewer_drawn(terminal: Terminal, pane: str) -> str:
    """The viewer's screen in `pane` once it shows the worktree's diff."""
    return until(lambda: "app.py" in (shown := screen(terminal, pane)) and shown, f"the viewer's diff in {pane}")


def test_open_splits_the_agents_pane_and_runs_the_viewer_beside_it_in_the_worktree(
    terminal: Terminal, agent_worktree: Repo
) -> None:
    ((_, agent, _, shell, _),) = panes(terminal)
    said = request_open(terminal, "Opened the review beside this pane")

    found = until(lambda: len(panes(terminal)) == 2 and panes(terminal), "a second pane")
    by_id = {each[1]: each for each in found}
    (pane,) = set(by_id) - {agent}
    window, _, left, _, _ = by_id[agent]
    window_of_viewer, _, right, viewer, where = by_id[pane]
    assert window == window_of_viewer and int(right) > int(left)  # in the agent's window, to its right
    assert Path(where) == agent_worktree.root and viewer != shell
    assert f"(tmux pane {pane})" in said
    assert active_pane(terminal) == pane  # the reviewer's keys go to the viewer
    drawn = viewer_drawn(terminal, pane)
    assert "ready for you" not in drawn and "$" not in drawn.splitlines()[-1]  # the viewer, not a shell


def test_a_second_open_brings_the_viewer_to_the_front_and_opens_no_other(terminal: Terminal) -> None:
    request_open(terminal, "Opened the review beside this pane")
    (pane,) = [p[1] for p in until(lambda: len(panes(terminal)) == 2 and panes(terminal), "the viewer") if p[2] != "0"]
    terminal.tmux("select-pane", "-t", agent_pane(terminal))  # the reviewer goes back to the agent

    said = request_open(terminal, "already open")

    assert len(panes(terminal)) == 2
    assert f"The review is already open in tmux pane {pane}: brought it to the front." in said
    assert active_pane(terminal) == pane


def test_a_viewer_the_reviewer_started_by_hand_is_found_in_another_window(
    terminal: Terminal, agent_worktree: Repo, tmp_path: Path
) -> None:
    by_hand = terminal.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(tmp_path), f"{review_command()} {agent_worktree.root}"
    ).strip()
    viewer_drawn(terminal, by_hand)
    until(lambda: viewer_pane(Tmux(terminal.socket), agent_worktree.root) == by_hand, "the viewer's mark on its pane")

    request_open(terminal, "already open")

    assert len(panes(terminal)) == 2  # no third pane
    assert active_pane(terminal) == by_hand  # its window is shown


def test_the_config_can_open_the_viewer_in_a_new_window(terminal: Terminal, agent_worktree: Repo) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "review" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[request]\nopen = "window"\n')

    request_open(terminal, "Opened the review in a new window")

    found = until(lambda: len(panes(terminal)) == 2 and panes(terminal), "a new window")
    assert sorted(p[0] for p in found) == ["0", "1"]
    (viewer,) = [p for p in found if p[0] == "1"]
    assert Path(viewer[4]) == agent_worktree.root
    viewer_drawn(terminal, viewer[1])


def test_a_viewer_that_quit_leaves_no_mark(terminal: Terminal, agent_worktree: Repo, tmp_path: Path) -> None:
    shell = terminal.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(tmp_path), "bash --norc --noprofile -i"
    ).strip()
    terminal.tmux("send-keys", "-t", shell, "-l", f"{review_command()} {agent_worktree.root}")
    terminal.tmux("send-keys", "-t", shell, "Enter")
    tmux = Tmux(terminal.socket)
    until(lambda: viewer_pane(tmux, agent_worktree.root) == shell, "the viewer's mark")

    terminal.tmux("send-keys", "-t", shell, "q")

    until(lambda: viewer_pane(tmux, agent_worktree.root) is None and not tmux.marked(OPTION), "the mark gone")


def test_a_mark_whose_process_is_gone_or_of_another_worktree_counts_for_nothing(
    terminal: Terminal, agent_worktree: Repo, tmp_path: Path
) -> None:
    tmux = Tmux(terminal.socket)
    ((_, agent, *_),) = panes(terminal)
    tmux.mark(agent, OPTION, f"{2**22 + 12345} {agent_worktree.root}")  # above the largest pid Linux gives
    assert viewer_pane(tmux, agent_worktree.root) is None
    tmux.mark(agent, OPTION, f"{os.getpid()} {tmp_path}")
    assert viewer_pane(tmux, agent_worktree.root) is None
    tmux.mark(agent, OPTION, f"{os.getpid()} {agent_worktree.root}")
    assert viewer_pane(tmux, agent_worktree.root) == agent
