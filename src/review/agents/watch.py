"""`review watch [REPO]`: when there is news for the agent of any worktree of the repository (a
review sent, a reviewer's reply), point it to the news.

The agent is found in tmux: a pane whose current folder is in the worktree and that runs a known
agent. Once the agent is idle, a one-line pointer to `review pending` is pasted into its prompt and
sent. The files stay the truth: this is a push on top of them, and the news is delivered only when
the agent reads it. Unread news is pointed to again once the agent is idle again and `again`
seconds have passed since any channel last pointed to it, up to `news.POINTERS` times in all.
With `headless` (`--headless`), an agent found in no pane is reached through its own command line
instead, by resuming the session its hooks recorded (`review.agents.headless`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from watchfiles import watch as watch_files

from review.agents import activity as agent
from review.agents import pointer
from review.agents.headless import Headless
from review.agents.tmux import Tmux, deliver, find_agent_pane, is_idle
from review.errors import DeliveryFailed, ReviewError
from review.repo import git
from review.state import news
from review.state.model import seconds
from review.state.store import FOLDER, Store

CHANNEL = "tmux"

# How often the watcher looks again with no file change: for new worktrees, agents that became
# idle, and panes that appeared.
_TICK_MS = 1000

AGAIN = 60.0
"""Seconds after a pointer before unread news is pointed to again: time for the agent to act on
it; an agent that read it has marked it read long before."""


class Watcher:
    """Delivers the news of one repository's worktrees to their agents."""

    def __init__(
        self,
        repository: Path,
        tmux: Tmux,
        agents: Sequence[str],
        say: Callable[[str], None],
        again: float = AGAIN,
        headless: Headless | None = None,
    ) -> None:
        self.repository = git.find_worktree(repository)
        self.again = again
        self.tmux = tmux
        self.agents = tuple(agents)
        self.say = say
        self.headless = headless
        self._said: dict[Path, str] = {}

    def worktrees(self) -> list[Path]:
        return [e.path for e in git.list_worktrees(self.repository) if not e.bare and e.path.is_dir()]

    def run(self, until: Callable[[], bool] = lambda: False) -> None:
        """Deliver until `until()` is true (never, for the command)."""
        self.say(f"watching the worktrees of {self.repository.common_dir.parent} for news for their agents")
        while not until():
            paths = self.worktrees()
            folders = {path / FOLDER for path in paths if (path / FOLDER).is_dir()}
            self.tick(paths)
            # Wake on a change in any review folder, or after a tick to look again (for agents that
            # became idle, new panes); a new worktree or review folder starts a new watcher.
            for _ in watch_files(
                *(sorted(folders) or [self.repository.common_dir]),
                debounce=100,
                step=20,
                rust_timeout=_TICK_MS,
                yield_on_timeout=True,
                raise_interrupt=True,
            ):
                if until():
                    return
                paths = self.worktrees()
                self.tick(paths)
                if {path / FOLDER for path in paths if (path / FOLDER).is_dir()} != folders:
                    break

    def tick(self, paths: Sequence[Path]) -> None:
        """Try to deliver the news of every worktree."""
        for path in paths:
            try:
                self._deliver(path)
            except ReviewError as error:
                self._once(path, f"{path.name}: {error}")

    def _deliver(self, path: Path) -> None:
        store = Store(path)
        review = store.read()
        found = news.pointable(review)
        if not found:
            self._said.pop(path, None)
            return
        last = news.delivery(review).last_notice
        since = time.time() - (seconds(last) or 0.0) if last else None
        if since is not None and since < self.again:
            return  # pointed to a moment ago: the agent may be on it
        what = "a review" if found.asking else "a reviewer's reply"
        try:
            pane = find_agent_pane(self.tmux, path, self.agents)
        except DeliveryFailed:
            if self.headless is None:
                raise
            pane = None  # no tmux: the agent's own command line may do
        if pane is None and self.headless is not None:
            resumed = self.headless.resume(path, store)
            if not resumed.done:
                self._once(path, f"{path.name}: {what} waits; no agent runs in a tmux pane here, and {resumed.detail}")
                return
            self._said.pop(path, None)
            self.say(f"{time.strftime('%H:%M:%S')} {path.name}: {resumed.detail}")
            return
        if pane is None:
            self._once(path, f"{path.name}: {what} waits, but no agent runs in a tmux pane in this worktree")
            return
        state = agent.read(path)
        if not is_idle(self.tmux, pane, state.state if state else None, state.age() if state else None):
            self._once(path, f"{path.name}: {what} waits; the agent in pane {pane.id} is busy, so it waits too")
            return
        # Recorded before pasting, in one locked step, so that the Stop hook does not point at the
        # same moment; taken back when the paste does not arrive.
        told = news.notify(store, CHANNEL)
        if not told:
            return  # read meanwhile, or pointed to by its Stop hook
        delivery = deliver(self.tmux, pane, pointer.line(told))
        if not delivery.arrived:
            news.withdraw(store, told, CHANNEL)
        self._said.pop(path, None)
        self.say(f"{time.strftime('%H:%M:%S')} {path.name}: {delivery.detail}")

    def _once(self, path: Path, message: str) -> None:
        if self._said.get(path) != message:
            self._said[path] = message
            self.say(f"{time.strftime('%H:%M:%S')} {message}")
