"""What the agent in a worktree is doing, as its harness's hooks last said: `.review/agent.json`.

The hooks of Claude Code and Codex call `review hook`, which records the state here; the overview
and `review watch` read it, the latter so that it never types into a busy agent.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from review.errors import ReviewError
from review.state.files import read_own, replace_atomically
from review.state.model import now, seconds
from review.state.store import FOLDER, Store

State = Literal["working", "idle", "waiting"]
"""working: on a task; idle: its turn is over, it waits for a prompt; waiting: it asks the user
something (a permission), so nothing may be typed into it."""
STATES: tuple[State, ...] = get_args(State)

FILE = "agent.json"


@dataclass(frozen=True)
class AgentState:
    state: State
    at: str
    """When it was recorded, as the review file writes times."""
    agent: str
    """Which harness recorded it: claude, codex."""
    event: str
    """The hook event that said so."""
    session_id: str | None = None
    """The agent's session, as its hooks name it: what `claude --resume` and `codex exec resume`
    take to reach the same conversation without a terminal."""

    def age(self) -> float:
        """Seconds since it was recorded."""
        then = seconds(self.at)
        return float("inf") if then is None else max(0.0, time.time() - then)


def record(root: Path, state: State, agent: str, event: str, session_id: str | None = None) -> None:
    """Write the agent's state for the worktree at `root` (the last writer wins: it is a report).
    An event without a session keeps the session recorded before, if the same agent wrote it."""
    store = Store(root)
    store.make_folder()
    if session_id is None:
        before = read(root)
        session_id = before.session_id if before is not None and before.agent == agent else None
    data = {"state": state, "at": now(), "agent": agent, "event": event}
    if session_id:
        data["session_id"] = session_id
    replace_atomically(root / FOLDER / FILE, (json.dumps(data, indent=2) + "\n").encode())


def read(root: Path) -> AgentState | None:
    """The state last recorded for the worktree at `root`; None when there is none or it is
    unreadable (a report that cannot be read says nothing)."""
    try:
        data = json.loads(read_own(root / FOLDER / FILE).decode("utf-8"))
        state = data["state"]
        if state not in STATES:
            return None
        session = data.get("session_id")
        return AgentState(
            state=state,
            at=str(data["at"]),
            agent=str(data.get("agent", "")),
            event=str(data.get("event", "")),
            session_id=session if isinstance(session, str) and session else None,
        )
    except (OSError, ReviewError, ValueError, KeyError, TypeError):
        return None
