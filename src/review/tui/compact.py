"""The compact layout, for a small screen: a phone's terminal, an SSH app, a narrow pane.

Below `WIDTH` columns the app shows one column: the diff alone (unified), the file list, the
comments and a worktree's detail as pop-ups, and a footer of the few keys that matter away from a
desk, each whole. Every other key still works, and `?` lists them all.
"""

from __future__ import annotations

import re

WIDTH = 80
"""The fewest columns of the full layout; below it, the app is compact."""

CLASS = "-compact"
"""The app's CSS class while it is compact."""

REVIEW_KEYS = {
    "next_waiting": "next",
    "comments_panel": "comments",
    "reply": "reply",
    "approve": "approve",
    "send": "send",
    "overview": "back",
    "help": "more",
}
"""The review's footer when compact: what a reviewer away from the desk does, by action, each
with its short name, in the order shown."""

OVERVIEW_KEYS = {
    "open_review": "review",
    "next_waiting": "next",
    "show_detail": "detail",
    "help": "more",
    "quit": "quit",
}
"""The overview's footer when compact."""


_WORD_END = re.compile(r"[ \-_./,]")


def word_ends(text: str) -> list[int]:
    """Where `text` may be cut without cutting a word in two: after each space or punctuation
    between words, a name's parts counting as words (`tally-` of `tally-currency`)."""
    return [match.end() for match in _WORD_END.finditer(text)]
