"""`review status`: the overview as a plain table, the worktrees that wait on the reviewer first."""

from __future__ import annotations

from collections.abc import Sequence

from review.overview.rows import Row
from review.overview.status import age, by_wait, queue
from review.repo.text import visible

HEADINGS = (
    "WORKTREE",
    "BRANCH",
    "AGENT",
    "CHANGED",
    "FILES",
    "+/-",
    "AHEAD",
    "REVIEW",
    "COMMENTS",
    "NOTES",
    "WAITS ON",
    "RADAR",
)


def table(rows: Sequence[Row], now: float | None = None) -> str:
    """The rows as aligned columns under a heading, one line each."""
    lines = [list(HEADINGS)] + [_cells(row, now) for row in by_wait(rows)]
    widths = [max(len(line[column]) for line in lines) for column in range(len(HEADINGS))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() + "\n" for line in lines
    )


def _cells(row: Row, now: float | None) -> list[str]:
    name = visible(row.name)
    branch = visible(row.branch) if row.branch else f"({row.head[:8]})" if row.head else "-"
    if row.problem:
        return [name, branch, "", "", "", "", "", "", "", "", f"problem: {visible(row.problem)}", ""]
    agent = " ".join(filter(None, (row.agent, row.agent_state if row.agent_state != "unknown" else ""))) or "-"
    ahead = "-" if row.ahead is None else f"{row.ahead}/{row.behind}"
    comments = f"{row.open_comments}/{row.answered_comments}/{row.addressed_comments}"
    # the reason may quote the agent's request: its words are shown inert
    waits = f"{row.waits_on}: {visible(row.reason)}" if row.reason else row.waits_on
    if row.note:
        waits += f" ({visible(row.note)})"
    return [
        name,
        branch,
        agent,
        age(row.last_change, now) or "-",
        str(row.files),
        f"+{row.added} -{row.removed}",
        ahead,
        row.review_state,
        comments,
        str(row.notes) if row.notes else "-",
        waits,
        radar_mark(row),
    ]


def radar_mark(row: Row) -> str:
    """The other worktrees a row collides with: `✗` a conflict, `~` the same files merging
    cleanly, `?` git could not tell; `✗ default` when it no longer merges into the default branch."""
    marks = []
    if row.merges_cleanly is False:
        marks.append("✗ default")
    for overlap in sorted(row.overlaps, key=lambda overlap: overlap.conflict is not True):
        sign = "✗" if overlap.conflict else "?" if overlap.conflict is None else "~"
        marks.append(f"{sign} {visible(overlap.worktree.name)}")
    return ", ".join(marks)


def short(rows: Sequence[Row], unreachable: Sequence[str] = (), now: float | None = None) -> str:
    """One line for a shell prompt or `watch`: how many worktrees wait on the reviewer, the
    oldest's age, and the hosts that could not be read."""
    waiting = queue(rows)
    if waiting:
        oldest = age(waiting[0].waiting_since, now)
        line = f"{len(waiting)} wait{'s' if len(waiting) == 1 else ''} on you" + (
            f" (oldest {oldest})" if oldest else ""
        )
    else:
        line = "nothing waits on you"
    broken = sum(1 for row in rows if row.problem)
    if broken:
        line += f" · {broken} cannot be read"
    if unreachable:
        line += f" · {len(unreachable)} host{'s' if len(unreachable) > 1 else ''} unreachable ({', '.join(map(visible, unreachable))})"
    return line + "\n"
