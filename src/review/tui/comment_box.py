"""A comment drawn inline in the diff: a box under its lines with severity, status and thread.

The box is laid out as plain lines of styled text for a given width; the diff view turns each line
into one row, and the layout asks how many rows a box takes. An agent's note is drawn in a box of
its own kind: another border colour and the label "agent note" where a comment has its severity,
so the agent's words never pass for the reviewer's.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.console import Console
from rich.style import Style
from rich.text import Text

from review.repo.text import visible
from review.state.model import Comment

CONSOLE = Console(width=10_000, color_system="truecolor", force_terminal=True, legacy_windows=False)
"""Turning a Text into segments or lines needs a console only for its options: one serves every
comment box and every row of the diff."""

INDENT = 6
"""Cells between the left edge and a box, so boxes sit under the code rather than the numbers."""


_HINTS = {
    "draft": "e edit · d delete · S send",
    "open": "e edit · a reply · r resolve",
    "addressed": "the agent addressed it: r resolve · a reply",
    "resolved": "",
    "wontfix": "",
    "note": "a answer · t make it your comment · D dismiss",
    "dismissed": "",
}

_SETTLED = ("resolved", "wontfix", "dismissed")
"""Statuses drawn as one line: nothing more is asked of anyone."""

NOTE_LABEL = "agent note"


class BoxStyles(NamedTuple):
    border: Style
    text: Style
    code: Style
    muted: Style
    must: Style
    should: Style
    nit: Style
    question: Style
    addressed: Style
    warning: Style
    note_border: Style
    """The border of an agent's note, apart from the reviewer's comments."""
    note_label: Style

    def severity(self, name: str) -> Style:
        style: Style = getattr(self, name)
        return style


def box_lines(comment: Comment, width: int, styles: BoxStyles) -> list[Text]:
    """The lines of the comment's box, each at most `width` cells wide."""
    inner = max(10, width - INDENT - 2)
    border = styles.note_border if comment.is_note else styles.border
    lines = [_header(comment, styles, inner + 2)]
    if comment.status in _SETTLED:
        return lines  # settled: one line is enough to remember it
    in_code = False
    for raw in comment.body.rstrip().splitlines() or [""]:
        fence = raw.strip().startswith("```")
        style = styles.code if in_code or fence else styles.text
        lines.extend(_framed(wrapped, border) for wrapped in _wrap(Text(visible(raw, keep_tabs=True), style), inner))
        if fence:
            in_code = not in_code
    for reply in comment.thread:
        who = Text(f"↳ {reply.author}: ", styles.addressed if reply.author == "agent" else styles.muted)
        first = True
        for raw in reply.body.rstrip().splitlines() or [""]:
            piece = (who.copy() if first else Text("  ")) + Text(visible(raw, keep_tabs=True), styles.text)
            first = False
            lines.extend(_framed(wrapped, border) for wrapped in _wrap(piece, inner))
    hint = _HINTS[comment.status]
    footer = Text("└─ ", border)
    footer.append(hint, styles.muted)
    lines.append(footer)
    # (cut in place, and only a line too wide: a slice of a Text copies it, 40 boxes took 5 ms)
    for line in lines:
        if line.cell_len > width - INDENT:
            line.truncate(width - INDENT)
    return lines


def _header(comment: Comment, styles: BoxStyles, width: int) -> Text:
    settled = comment.status in _SETTLED
    if comment.is_note:
        header = Text("┌─ " if not settled else "·  ", styles.note_border)
        header.append(comment.id, styles.muted)
        header.append(" · ")
        header.append(NOTE_LABEL, styles.muted if settled else styles.note_label)
        if settled:
            header.append(" · dismissed", styles.muted)
        elif comment.answered_by_reviewer():
            header.append(" · answered", styles.muted)
    else:
        header = Text("┌─ " if not settled else "✓  ", styles.border)
        header.append(comment.id, styles.muted)
        header.append(" · ")
        header.append(comment.severity, styles.severity(comment.severity))
        header.append(" · ")
        status_style = {"addressed": styles.addressed, "draft": styles.muted}.get(comment.status, styles.text)
        header.append(
            comment.status, status_style + Style(bold=comment.status != "draft", italic=comment.status == "draft")
        )
    header.append(" · ")
    header.append(_where(comment), styles.muted)
    if comment.anchor_state == "moved":
        header.append(" · moved with its code", styles.muted)
    elif comment.anchor_state == "changed":
        header.append(" · the code changed since", styles.warning)
    elif comment.anchor_state == "lost":
        header.append(" · the code it was on is gone", styles.warning)
    if settled:
        first = comment.body.strip().splitlines()[0] if comment.body.strip() else ""
        header.append("  " + visible(first), styles.muted)
    if comment.thread and settled:
        header.append(f"  ({len(comment.thread)} repl{'ies' if len(comment.thread) > 1 else 'y'})", styles.muted)
    header.truncate(width, overflow="ellipsis")
    return header


def _where(comment: Comment) -> str:
    if not comment.path:
        return "the whole change"
    if comment.line is not None:
        return _range(comment.line, comment.end_line) + (" (old)" if comment.side == "old" else "")
    if comment.anchor_state == "lost" and comment.anchor is not None:
        return "was on " + _range(comment.anchor.line, comment.anchor.end_line)
    return "whole file"


def _range(line: int | None, end: int | None) -> str:
    if line is None:
        return "?"
    return f"line {line}" if end in (None, line) else f"lines {line}–{end}"


def _framed(text: Text, border: Style) -> Text:
    framed = Text("│ ", border)
    framed.append_text(text)
    return framed


def _wrap(text: Text, width: int) -> list[Text]:
    if not text.plain:
        return [text]
    return list(text.wrap(CONSOLE, width, overflow="fold"))
