"""`review hook claude|codex|pi`: what the agent harnesses' hooks call, with the event's JSON on stdin.

On `Stop`, while there is news the agent has not read (a review sent, a reviewer's reply; see
`review.state.news`), the hook blocks the stop with a short pointer to `review pending`, and
records that it pointed: the news is delivered only once the agent reads it. A stop that a hook
already continued (`stop_hook_active`) is let through, so an agent that cannot read the review
(refused permission, no `review` in its shell) is never kept from stopping; a later stop points
again, up to `news.POINTERS` times, and then the overview says the review was not read.
On every event the agent's state and session are recorded for the overview and for `review watch`.

Pi has no hooks: review's extension for it (`agents/pi/review.js`) calls `review hook pi` on Pi's
own events, named as Pi names them, and asks for the pointer itself: on `agent_end` (Pi's stop,
let through when the turn was one its pointer started, as `stop_hook_active` is), and on
`review_changed` (the review file changed) for news no channel pointed to yet, so a round sent
while Pi waits for its user reaches it at once. The answer is `{"pointer": LINE}`, which the
extension hands to Pi as a user message.

A hook must never break the agent: whatever goes wrong, it exits 0, and says why on stderr only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.agents import activity as agent
from review.agents import pointer
from review.agents.activity import State
from review.errors import ReviewError
from review.repo import git
from review.state import news
from review.state.store import Store

# The agent's state after each event. A Notification is a question to the user (a permission),
# except the one that says the agent has been idle for a while.
_STATES: dict[str, State] = {
    "SessionStart": "idle",
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "PermissionRequest": "waiting",
    "Notification": "waiting",
    "Stop": "idle",
    # Codex: a turn the user interrupted (Esc) ends without a Stop.
    "Interrupt": "idle",
    "SessionEnd": "idle",
    # Pi, through review's extension.
    "session_start": "idle",
    "agent_start": "working",
    "agent_end": "idle",
    "session_shutdown": "idle",
}

PI_CHANNEL = "pi"
"""The channel Pi's extension points the agent to news through."""


@dataclass(frozen=True)
class Answer:
    """What the hook prints: JSON for the harness on stdout, a line for a person on stderr."""

    stdout: str = ""
    stderr: str = ""


def run(harness: str, payload: str, cwd: Path) -> Answer:
    """Handle one hook call; never raises."""
    try:
        event = json.loads(payload)
    except ValueError as error:
        return Answer(stderr=f"review hook {harness}: the hook input is not valid JSON ({error}); nothing done")
    if not isinstance(event, dict):
        return Answer(stderr=f"review hook {harness}: the hook input is not a JSON object; nothing done")
    try:
        return _handle(harness, event, cwd)
    except ReviewError as error:
        return Answer(stderr=f"review hook {harness}: {error}")
    except Exception as error:
        return Answer(stderr=f"review hook {harness}: internal error: {type(error).__name__}: {error}")


def _handle(harness: str, event: dict[str, Any], cwd: Path) -> Answer:
    name = str(event.get("hook_event_name", ""))
    where = event.get("cwd") or str(cwd)
    try:
        worktree = git.find_worktree(where)
    except ReviewError:
        return Answer()  # not in a repository: nothing of ours to do here
    state = _STATES.get(name)
    if name == "Notification" and _idle_notice(event):
        state = "idle"
    answer = Answer()
    if name == "Stop" and not event.get("stop_hook_active"):
        pointer = _point(Store(worktree.root))
        if pointer:
            answer = Answer(stdout=json.dumps({"decision": "block", "reason": pointer}))
            state = "working"  # it goes on, to read the news
    if harness == "pi":
        answer = _point_pi(Store(worktree.root), name, event)
        if answer.stdout and state is not None:
            state = "working"  # a turn starts, to read the news
    if state is not None:
        session = event.get("session_id")
        agent.record(worktree.root, state, harness, name, session if isinstance(session, str) else None)
    return answer


def _idle_notice(event: dict[str, Any]) -> bool:
    kind = str(event.get("notification_type", ""))
    message = str(event.get("message", "")).lower()
    return kind == "idle_prompt" or "waiting for your input" in message


def _point_pi(store: Store, name: str, event: dict[str, Any]) -> Answer:
    """The pointer Pi's extension hands to Pi, as `{"pointer": LINE}`; nothing when there is none."""
    if name == "agent_end" and not event.get("pointed"):
        told = news.notify(store, PI_CHANNEL)
    elif name == "review_changed":
        # The file changes when a notice is recorded too: only news no channel pointed to yet,
        # so that it is pointed to once here; later stops point to it again.
        told = news.notify(store, PI_CHANNEL, limit=1)
    else:
        return Answer()
    return Answer(stdout=json.dumps({"pointer": pointer.line(told)})) if told else Answer()


def _point(store: Store) -> str:
    """The pointer to block a stop with; empty when there is no unread news to point to."""
    told = news.notify(store, "stop-hook")
    return pointer.line(told) if told else ""
