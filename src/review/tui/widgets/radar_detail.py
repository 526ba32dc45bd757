"""The detail of the worktree under the overview's cursor: where it stands, and its conflict radar
— each other worktree that changes the same files, the files, and for a conflict the conflicting
hunks with both sides' lines; then whether it merges into the default branch.

Everything shown comes from the repository (names, paths, file contents) and is made inert.
Hunks are bounded, so that one huge conflict does not bury the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from review.overview.rows import Overlap, Row
from review.overview.status import age
from review.repo.merge import ConflictHunk
from review.repo.text import visible
from review.tui.first_frame import NoSecondLayout, show_text_scrollbars
from review.tui.widgets.review_header import shortened

Conflicts = Mapping[Path | None, Sequence[tuple[str, Sequence[ConflictHunk]]]]
"""The conflicting files and hunks of a worktree with each other worktree (by path), and with the
default branch (None)."""

HUNK_LINES = 6
"""Lines shown of each side of a conflicting hunk."""
HUNKS = 3
"""Conflicting hunks shown of each file."""
FILES = 8
"""Files named in a list of common or conflicting files."""
SIDE_NAME = 20
"""Cells a side's name takes in front of its lines, at most."""
REQUEST_LINES = 6
"""Lines shown of what the agent said when it asked for a review."""


class _Said(Static, NoSecondLayout):
    """The detail's text: the next worktree's came in two or three frames."""


class RadarDetail(VerticalScroll, NoSecondLayout):
    """Where one worktree stands, and what it collides with."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "radar-detail--title",
        "radar-detail--muted",
        "radar-detail--conflict",
        "radar-detail--overlap",
        "radar-detail--clean",
        "radar-detail--ours",
        "radar-detail--theirs",
        "radar-detail--problem",
    }

    DEFAULT_CSS = """
    RadarDetail {
        background: $surface;
        padding: 0 1;
        & > Static { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
        & > .radar-detail--title { text-style: bold; }
        & > .radar-detail--muted { color: $foreground-muted; }
        & > .radar-detail--conflict { color: $text-error; text-style: bold; }
        & > .radar-detail--overlap { color: $text-warning; }
        & > .radar-detail--clean { color: $text-success; }
        & > .radar-detail--ours { color: $text-accent; }
        & > .radar-detail--theirs { color: $text-warning; }
        & > .radar-detail--problem { color: $text-error; }
    }
    """

    def __init__(self, *, now: Callable[[], float] = time.time, id: str | None = None) -> None:
        super().__init__(id=id)
        self.now = now
        self._text = Text()
        self._shown: Path | None = None
        self._aged_at = now()
        """The time the ages are told against: kept until `tick`, as the table's are, so that
        rows read again a moment later do not draw the detail again for an age alone."""

    def compose(self) -> ComposeResult:
        yield _Said(Text(), id="detail")

    @property
    def text(self) -> str:
        """What the pane says, without styles."""
        return self._text.plain

    def show(
        self,
        row: Row | None,
        others: Mapping[Path, Row],
        *,
        default_branch: str | None,
        conflicts: Conflicts | None,
    ) -> None:
        """Show `row` and its overlaps with `others` (every row, by path); `conflicts` is None
        while the conflicting hunks are being read."""
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        if row is not None:
            self._describe(text, row, others, default_branch, conflicts)
        previous, self._shown = self._shown, row.path if row is not None else None
        if text == self._text:
            return  # the same again (the rows come every second while followed)
        self._text = text
        detail = self.query_one("#detail", _Said)
        detail.update(text)
        show_text_scrollbars(self, detail)
        if previous != self._shown:
            self.scroll_home(animate=False, immediate=True)

    def tick(self) -> None:
        """Tell the ages against the time now, from the next `show` on (which draws the detail
        again only if one reads otherwise)."""
        self._aged_at = self.now()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"radar-detail--{name}", partial=True)

    def _describe(
        self, text: Text, row: Row, others: Mapping[Path, Row], default_branch: str | None, conflicts: Conflicts | None
    ) -> None:
        style = self._style
        muted = style("muted")
        text.append(visible(row.name), style("title"))
        branch = visible(row.branch) if row.branch else f"detached at {row.head[:8]}" if row.head else ""
        if branch:
            text.append(f"  {branch}", muted)
        text.append("\n")
        if row.problem:
            text.append(f"Problem: {visible(row.problem)}\n", style("problem"))
            if row.note:
                text.append(f"Also: {visible(row.note)}\n", muted)
            return
        text.append(f"Waits on {_whom(row)}: {visible(row.reason)}")
        if row.note:
            text.append(f" ({visible(row.note)})", muted)
        text.append("\n")
        if row.request is not None:
            self._request(text, row.request, row.requested_at)
        text.append(self._facts(row), muted)
        text.append("\n")

        default = visible(default_branch) if default_branch else "the default branch"
        if row.merges_cleanly is True:
            text.append(f"Into {default}: ", muted)
            text.append("merges cleanly\n", style("clean"))
        elif row.merges_cleanly is False:
            text.append(f"Into {default}: ", muted)
            text.append(f"conflicts{_files(row.default_conflict_files)}\n", style("conflict"))
            found = conflicts.get(None) if conflicts is not None else None
            self._hunks(text, found, row.name, default or "", conflicts is None)

        if not row.overlaps:
            text.append("\nNo other worktree changes the same files.\n", muted)
            return
        ordered = sorted(row.overlaps, key=lambda o: (o.conflict is not True, o.conflict is None, o.worktree.name))
        for overlap in ordered:
            other = others.get(overlap.worktree)
            name = other.name if other is not None else overlap.worktree.name
            text.append("\n")
            self._overlap(text, row, overlap, name)
            if overlap.conflict:
                found = conflicts.get(overlap.worktree) if conflicts is not None else None
                self._hunks(text, found, row.name, name, conflicts is None)

    def _request(self, text: Text, message: str, at: float | None) -> None:
        """When the agent asked for a review, and what it said (the reason quotes one line)."""
        muted = self._style("muted")
        asked = age(at, self._aged_at)
        lines = message.strip().splitlines()
        text.append(f"The agent asked for a review{f' {asked} ago' if asked else ''}{':' if lines else '.'}\n", muted)
        for line in lines[:REQUEST_LINES]:
            text.append(f"  {visible(line.expandtabs(4))}\n")
        if len(lines) > REQUEST_LINES:
            more = len(lines) - REQUEST_LINES
            text.append(f"  … {more} more line{'s' * (more != 1)}\n", muted)

    def _facts(self, row: Row) -> str:
        """Two lines: the agent and the review; the size of the work and the comments."""
        agent = " ".join(filter(None, (row.agent, row.agent_state if row.agent_state != "unknown" else "")))
        first = [f"agent {visible(agent)}" if agent else "no agent seen"]
        if row.last_change is not None:
            first.append(f"changed {age(row.last_change, self._aged_at)} ago")
        first.append(f"review {row.review_state}")
        second = [f"{row.files} file{'s' * (row.files != 1)} +{row.added} −{row.removed}"]
        if row.ahead is not None:
            second.append(f"{row.ahead} ahead, {row.behind} behind")
        counts = [
            f"{count} {status}"
            for count, status in (
                (row.open_comments, "open"),
                (row.answered_comments, "answered"),
                (row.addressed_comments, "addressed"),
            )
            if count
        ]
        second.append(f"comments: {', '.join(counts)}" if counts else "no comments")
        if row.notes:
            second.append(f"{row.notes} agent note{'s' * (row.notes != 1)} to read")
        return " · ".join(first) + "\n" + " · ".join(second)

    def _overlap(self, text: Text, row: Row, overlap: Overlap, name: str) -> None:
        style = self._style
        if overlap.conflict:
            text.append(f"✗ {visible(name)}", style("conflict"))
            text.append(f": merging both conflicts{_files(overlap.conflict_files)}\n", style("conflict"))
        elif overlap.conflict is None:
            text.append(f"? {visible(name)}", style("muted"))
            text.append(": git could not try merging both\n", style("muted"))
        else:
            text.append(f"~ {visible(name)}", style("overlap"))
            text.append(": the same files, merging cleanly\n", style("muted"))
        text.append(f"  both change{_files(overlap.files, colon=True)}\n", style("muted"))

    def _hunks(
        self,
        text: Text,
        found: Sequence[tuple[str, Sequence[ConflictHunk]]] | None,
        ours: str,
        theirs: str,
        reading: bool,
    ) -> None:
        style = self._style
        if found is None:
            if reading:
                text.append("  reading the conflicting lines…\n", style("muted"))
            return
        names = [shortened(visible(ours), SIDE_NAME), shortened(visible(theirs), SIDE_NAME)]
        wide = max(cell_len(name) for name in names)
        for path, hunks in found[:FILES]:
            if not hunks:
                text.append(f"  {visible(path)}: ", style("title"))
                text.append("a conflict of names (deleted or renamed on one side)\n", style("muted"))
            for hunk in hunks[:HUNKS]:
                text.append(f"  {visible(path)}", style("title"))
                text.append(f", line {hunk.line}\n", style("muted"))
                for name, lines, side in ((names[0], hunk.ours, "ours"), (names[1], hunk.theirs, "theirs")):
                    shown = lines[:HUNK_LINES] or [""]
                    for index, line in enumerate(shown):
                        label = name if index == 0 else ""
                        text.append(f"    {label:<{wide}} │ ", style(side) if index == 0 else style("muted"))
                        text.append(visible(line.expandtabs(4)) + "\n")
                    if len(lines) > HUNK_LINES:
                        more = len(lines) - HUNK_LINES
                        text.append(f"    {'':<{wide}} │ … {more} more line{'s' * (more != 1)}\n", style("muted"))
            if len(hunks) > HUNKS:
                more = len(hunks) - HUNKS
                text.append(f"  … {more} more conflict{'s' * (more != 1)} in {visible(path)}\n", style("muted"))
        if len(found) > FILES:
            text.append(f"  … {len(found) - FILES} more files\n", style("muted"))


def _whom(row: Row) -> str:
    return {"reviewer": "you", "agent": "the agent", "nothing": "nothing"}[row.waits_on]


def _files(paths: Sequence[str], *, colon: bool = False) -> str:
    """ " in a.py, b.py and 3 more" (or ": a.py, ..." with `colon`); "" for none."""
    if not paths:
        return ""
    named = ", ".join(visible(path) for path in paths[:FILES])
    more = f" and {len(paths) - FILES} more" if len(paths) > FILES else ""
    return f"{':' if colon else ' in'} {named}{more}"
