"""Delivery without tmux: the agent's session resumed from its own command line, with the pointer
as the prompt (`review watch --headless`).

Claude Code and Codex keep their sessions on disk and resume one by id from the command line, with
no terminal: `claude -p --resume ID PROMPT` and `codex exec resume ID PROMPT`. Their hooks record
that id in `.review/agent.json`, so when news waits, no pane of the agent is found in tmux, and the
agent's last word was that it is idle, the watcher resumes that session in the worktree and the
agent reads the review there, as its next turn. Never while the session is busy (a turn of the
agent's own, or a resume review started that has not ended): two turns of one session at once
would fork it. Each resume is a notice on the news (channel "claude" or "codex"), so it is bounded
by `news.POINTERS` like the other channels, and taken back when the command cannot be started.

The prompt is the pointer itself (Claude Code 2.1.197 sends a prompt that begins with a path to the
model as it is). What the agent may do in that turn is what its settings allow headless: Claude
Code asks for no permission in `-p` (what is not allowed is refused, and then the Stop hook lets it
stop), so its resume allows `review pending`, and the user's settings the rest; Codex's `exec` runs with a read-only sandbox unless told otherwise, and
`review pending` writes the review file, so its resume runs in the `workspace-write` sandbox.
The output of each run is appended to `.review/headless.log`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from review import command
from review.agents import activity as agent
from review.agents import pointer
from review.errors import ReviewError
from review.state import news
from review.state.files import open_own
from review.state.store import FOLDER, Store

RESUMABLE = ("claude", "codex")
"""The agents whose sessions `resume_command` resumes."""

LOG = "headless.log"
"""Where, in the review folder, the output of the resumed sessions goes."""


def resume_command(agent_name: str, session: str, prompt: str) -> list[str] | None:
    """How `agent_name` resumes `session` with `prompt` and no terminal; None for an agent that
    cannot (Pi has its own extension; the others have no session review knows)."""
    if agent_name == "claude":
        # `-p` asks for no permission: the pointer's own command is allowed (a rule Claude Code
        # 2.1.197 matches with the pointer's `# ...` comment), the rest is as the user's settings
        # say. With `=`, since the option takes several values and would take the prompt too.
        allowed = f"--allowedTools=Bash({command.runnable()} pending:*)"
        return ["claude", "-p", "--resume", session, allowed, prompt]
    if agent_name == "codex":
        return ["codex", "exec", "resume", "-c", 'sandbox_mode="workspace-write"', session, prompt]
    return None


@dataclass(frozen=True)
class Resumed:
    """What one attempt did, as a line for `review watch` to print."""

    done: bool
    detail: str


class Headless:
    """Resumes the agents' sessions in the worktrees of one watcher, one run at a time a worktree."""

    def __init__(self) -> None:
        self._running: dict[Path, subprocess.Popen[bytes]] = {}

    def resume(self, path: Path, store: Store) -> Resumed:
        """Point the agent of the worktree at `path` to its news by resuming its session."""
        state = agent.read(path)
        if state is None or not state.session_id or state.agent not in RESUMABLE:
            return Resumed(False, "its hooks recorded no Claude Code or Codex session to resume")
        running = self._running.get(path)
        if running is not None and running.poll() is None:
            return Resumed(False, f"the {state.agent} session review resumed is still on it")
        if state.state != "idle":
            return Resumed(False, f"its {state.agent} session is {state.state}, so it waits too")
        program = shutil.which(state.agent)
        if program is None:
            return Resumed(False, f"{state.agent} is not on PATH, so its session cannot be resumed")
        # Recorded before the command starts, in one locked step, so that the Stop hook does not
        # point at the same moment; taken back when the command does not start.
        told = news.notify(store, state.agent)
        if not told:
            return Resumed(False, "it was read or pointed to meanwhile")
        line = pointer.line(told)
        argv = resume_command(state.agent, state.session_id, line)
        assert argv is not None
        # The program found, not its name: a name makes Popen try every folder on PATH in turn.
        argv[0] = program
        try:
            store.make_folder()
            with os.fdopen(open_own(path / FOLDER / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as log:
                self._running[path] = subprocess.Popen(
                    argv,
                    cwd=path,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # not stopped with the watcher by ^C
                )
        except OSError as error:
            news.withdraw(store, told, state.agent)
            return Resumed(False, f"{state.agent} could not be started: {error.strerror or error}")
        except ReviewError as error:  # its log cannot be written in the review folder
            news.withdraw(store, told, state.agent)
            return Resumed(False, f"{state.agent} could not be started: {error}")
        return Resumed(True, f"resumed {state.agent} session {state.session_id} headless: {line}")

    def wait(self) -> None:
        """Wait for the sessions resumed so far to end (for tests and a clean exit)."""
        for process in self._running.values():
            process.wait()
