"""What calls for the reviewer as the worktrees change, and how the terminal is told.

Between two readings of the rows, a worktree calls for the reviewer when its agent answered the
review, asks for permission or for a review, went idle, or when the worktree became ready for
review (`calls`).
The terminal is told with the bell or a desktop notification: OSC 9 (iTerm2's) or OSC 777
(rxvt's `notify`), chosen by what the terminal is known to show (`resolve_notify`, `signal`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    # Only for annotations: the config reads `NOTIFY` from here without loading the rows.
    from review.overview.rows import Row

Notify = Literal["auto", "bell", "osc9", "osc777", "off"]
"""How the terminal is told: `auto` picks a desktop notification where the terminal is known to
show one, else the bell."""
Signal = Literal["bell", "osc9", "osc777", "off"]
NOTIFY: tuple[Notify, ...] = get_args(Notify)

TITLE = "review"
_NAME_CHARS = 40
"""A name longer than this is cut: names come from branches and folders, which anyone can make."""
_TEXT_CHARS = 200
"""Notifications show a line or two; a longer text would only be cut by the desktop."""


@dataclass(frozen=True)
class Call:
    """A worktree that newly calls for the reviewer, and why."""

    path: Path
    name: str
    says: str
    """Why, in a few words: "the agent answered the review"."""


def calls(before: Mapping[Path, Row], after: Sequence[Row]) -> list[Call]:
    """What newly calls for the reviewer between two readings of the rows.

    Args:
        before: The rows as they were, by path.
        after: The rows as they are now.

    Returns:
        One call for each worktree that newly calls, in the order of `after`. A worktree seen
        for the first time calls for nothing, so that opening the overview makes no noise.
    """
    found = []
    for row in after:
        was = before.get(row.path)
        # A row that could not be read says nothing of its agent or review: comparing with it
        # would take a passing failure (a file read mid-write) for news.
        if was is None or was.problem or row.problem:
            continue
        says = _news(was, row)
        if says:
            found.append(Call(row.path, row.name, says))
    return found


def _news(was: Row, now: Row) -> str:
    """Why `now` calls for the reviewer when `was` did not, or ""."""
    if now.agent_state == "waiting" and was.agent_state != "waiting":
        return "the agent asks for permission"
    # A request calls even when the worktree already waited on the reviewer: the agent says its
    # work is ready now.
    if now.request is not None and (now.request, now.requested_at) != (was.request, was.requested_at):
        return "the agent asks for a review"
    if was.review_state == "sent" and now.review_state == "answered":
        return "the agent answered the review"
    if was.review_state == "sent" and now.review_state == "addressed":
        return "the agent addressed every comment"
    # Drafts are the reviewer's own doing: nothing to be told of.
    if now.waits_on == "reviewer" and was.waits_on != "reviewer" and now.review_state != "drafts":
        return now.reason
    if now.agent_state == "idle" and was.agent_state in ("working", "active"):
        return "the agent is idle"
    return ""


def resolve_notify(setting: Notify, env: Mapping[str, str]) -> Signal:
    """The way to tell this terminal: the setting, or for `auto` what the terminal shows.

    `auto` gives a desktop notification only where the terminal shows one as it comes:
    iTerm2, kitty and ghostty read OSC 9; WezTerm and foot read OSC 777, which has a title. Every
    other terminal gets the bell: Windows Terminal reads OSC 9 as ConEmu's commands (9;4
    progress, 9;9 folder) and shows OSC 777 only in its newest builds; upstream VTE (GNOME
    Terminal) swallows OSC 777 (only Fedora's patched VTE shows it); urxvt needs a Perl extension.

    Args:
        setting: The `notify` setting of the config file.
        env: The environment, for the variables terminals set.
    """
    if setting != "auto":
        return setting
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    # TERM_PROGRAM and TERM name the terminal itself; the other variables may be left over from
    # a terminal started inside another, or kept by tmux from the terminal it was started in.
    if program in ("iterm.app", "ghostty", "kitty") or term in ("xterm-kitty", "xterm-ghostty"):
        return "osc9"
    if program == "wezterm" or term == "wezterm" or term.startswith("foot"):
        return "osc777"
    if program and program != "tmux":
        return "bell"  # a terminal that said its name, and is none of the above
    if env.get("LC_TERMINAL") == "iTerm2" or "KITTY_WINDOW_ID" in env or "GHOSTTY_RESOURCES_DIR" in env:
        return "osc9"
    if "WEZTERM_PANE" in env:
        return "osc777"
    return "bell"


def signal(calls: Sequence[Call], how: Signal, env: Mapping[str, str]) -> str:
    """The exact text to write to the terminal to tell of `calls`; "" for none.

    Several calls make one notification. Inside tmux ($TMUX set) a notification goes through
    tmux's passthrough (which needs `set -g allow-passthrough on`), and a bell comes with it so
    that tmux marks the window even when passthrough is off.

    Args:
        calls: What calls for the reviewer.
        how: A resolved way (`resolve_notify`).
        env: The environment, for $TMUX.
    """
    if not calls or how == "off":
        return ""
    if how == "bell":
        return "\a"
    body = _text(calls)
    # OSC 9 starts with a fixed word: a text that began "<digits>;" would be a ConEmu command.
    sequence = f"\x1b]9;{TITLE}: {body}\x07" if how == "osc9" else f"\x1b]777;notify;{TITLE};{body}\x07"
    if env.get("TMUX"):
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\" + "\a"
    return sequence


def _text(calls: Sequence[Call]) -> str:
    """One line that tells of every call, made safe to put in an escape sequence."""
    names = [_clean(call.name)[:_NAME_CHARS] for call in calls]
    if len(calls) == 1:
        text = f"{names[0]}: {_clean(calls[0].says)}"
    else:
        text = f"{len(calls)} worktrees need you: {', '.join(names)}"
    return text if len(text) <= _TEXT_CHARS else text[: _TEXT_CHARS - 1] + "…"


def _clean(text: str) -> str:
    """`text` without control characters (C0, DEL, C1: an ESC or BEL would end the sequence or
    start another) and without `;` (it separates the fields of OSC 777, and ConEmu's of OSC 9)."""
    return "".join(" " if char == ";" else char for char in text if unicodedata.category(char) != "Cc")
