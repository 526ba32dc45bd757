"""The overview's worktrees: one line each, grouped by whom they wait on, with a cursor.

A line-API `ScrollView`: the lines are laid out when the rows or the width change, only the lines
on screen are drawn, and the cursor and the attention marks are laid over a drawn line, so moving
the cursor costs nothing. Columns give way to a narrow terminal in a fixed order; the flexible
ones (names, reasons, the radar) are shortened with an ellipsis, and a number is never cut.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from review.overview.rows import Row
from review.overview.status import age, by_wait, queue
from review.repo.text import visible
from review.tui.comment_box import CONSOLE
from review.tui.compact import word_ends

GROUPS = {
    "reviewer": "Waiting on you, the longest waiting first",
    "agent": "Waiting on the agent",
    "nothing": "Waiting on nothing: ready to merge, or no changes",
    "problem": "Cannot be read",
}
"""The heading of each group of rows, in the order they are shown."""

SHORT_GROUPS = {
    "reviewer": "Waiting on you",
    "agent": "Waiting on the agent",
    "nothing": "Ready, or no changes",
    "problem": "Cannot be read",
}
"""The headings on a narrow terminal, where the whole ones would be cut."""


@dataclass(frozen=True)
class _Column:
    key: str
    heading: str
    short: str = ""
    """The heading when headings are shortened; "" for the same."""
    grows: int = 0
    """A flexible column: the order in which it grows to its natural width (1 first); 0: fixed,
    as wide as its widest cell."""
    minimum: int = 0
    """The fewest cells a flexible column is cut to."""
    cut: bool = False
    """Whether it may be shortened before others give way (its words are prose, not names)."""
    right: bool = False


_COLUMNS = (
    _Column("place", "#", right=True),
    _Column("name", "worktree", grows=1, minimum=10),
    _Column("branch", "branch", grows=4, minimum=8),
    _Column("agent", "agent"),
    _Column("state", "state"),
    _Column("changed", "changed", short="age", right=True),
    _Column("waiting", "waiting", short="wait", right=True),
    _Column("files", "files", right=True),
    _Column("lines", "+/−", right=True),
    _Column("ahead", "↑↓"),
    _Column("default", "main"),
    _Column("review", "review"),
    _Column("comments", "comments"),
    _Column("notes", "notes"),
    _Column("reason", "reason", grows=3, minimum=16, cut=True),
    _Column("radar", "radar", grows=2, minimum=16),
)

_ALWAYS = {"place", "name", "review", "radar"}
"""Columns shown even when every cell is empty."""

_GIVING_WAY = (
    "short headings",
    "packed",
    "branch",
    "waiting",
    "ahead",
    "short names",
    "files",
    "agent",
    "default",
    "notes",
    "comments",
    "lines",
    "changed",
    "state",
    "reason",
)
"""What gives way to a narrow terminal, in this order: the space between columns, then columns,
and the names shortened to what tells them apart."""

_SHORTENED = {"name", "radar"}
"""Columns with a shorter form, without the prefix the worktrees' names share."""

_SEPARATORS = "-_."


@dataclass(frozen=True)
class _Fit:
    columns: list[tuple[_Column, int]]
    gap: int
    short_headings: bool
    short: bool


_AGENT_STATES = {"working": "working", "idle": "idle", "waiting": "asks you", "active": "active", "unknown": ""}


class WorktreeTable(ScrollView, can_focus=True):
    """Every worktree of a repository, the ones waiting on the reviewer first."""

    BINDINGS = [
        Binding("j,down", "move(1)", "Down", show=False, id="worktree_down"),
        Binding("k,up", "move(-1)", "Up", show=False, id="worktree_up"),
        Binding("g,home", "ends(False)", "First worktree", show=False, id="worktree_first"),
        Binding("G,end", "ends(True)", "Last worktree", show=False, id="worktree_last"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "worktree-table--heading",
        "worktree-table--group",
        "worktree-table--cursor",
        "worktree-table--marked",
        "worktree-table--place",
        "worktree-table--name",
        "worktree-table--muted",
        "worktree-table--added",
        "worktree-table--removed",
        "worktree-table--conflict",
        "worktree-table--overlap",
        "worktree-table--clean",
        "worktree-table--turn",
        "worktree-table--problem",
    }

    DEFAULT_CSS = """
    WorktreeTable {
        background: $surface;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
        & > .worktree-table--heading { color: $foreground-muted; text-style: bold; background: $panel; }
        & > .worktree-table--group { color: $text-accent; text-style: bold; }
        & > .worktree-table--cursor { background: $primary 35%; }
        & > .worktree-table--marked { background: $warning 25%; }
        & > .worktree-table--place { color: $text-accent; text-style: bold; }
        & > .worktree-table--name { text-style: bold; }
        & > .worktree-table--muted { color: $foreground-muted; }
        & > .worktree-table--added { color: $text-success; }
        & > .worktree-table--removed { color: $text-error; }
        & > .worktree-table--conflict { color: $text-error; text-style: bold; }
        & > .worktree-table--overlap { color: $text-warning; }
        & > .worktree-table--clean { color: $text-success; }
        & > .worktree-table--turn { text-style: bold; }
        & > .worktree-table--problem { color: $text-error; }
    }
    WorktreeTable:blur > .worktree-table--cursor { background: $primary 15%; }
    """

    class Chosen(Message):
        """The reviewer double-clicked a worktree."""

        def __init__(self, row: Row) -> None:
            super().__init__()
            self.row = row

    moved_to: var[Path | None] = var(None, always_update=True)
    """The worktree the reviewer moved the cursor onto, set at each move: watched, not a message,
    so that what the screen shows of it is drawn in the same frame as the cursor."""

    def __init__(self, *, now: Callable[[], float] = time.time, id: str | None = None) -> None:
        """A table that measures ages against `now` (a clock tests can stop)."""
        super().__init__(id=id)
        self.now = now
        self.empty_message = ""
        """What the table says while it has no rows (e.g. while they are read)."""
        self.hosts: dict[str, str] = {}
        """The heading of each other machine's group, by host: where its rows come from, and when."""
        self.default_branch: str | None = None
        """The default branch's name, the heading of the column that says whether a row merges into it."""
        self._rows: list[Row] = []
        """In the order shown: by whom they wait on, the longest waiting first."""
        self._lines: list[int | str] = []
        """Each line below the headings: a row's index, or the key of a group's heading."""
        self._line_of: list[int] = []
        """The line of each row."""
        self._cursor = 0
        self._marked: set[Path] = set()
        self._cells: list[dict[str, Text]] | None = None
        self._fitted: tuple[int, _Fit] | None = None
        self._strips: LRUCache[tuple[int, int], Strip] = LRUCache(512)

    # -- content -------------------------------------------------------------------------------

    def show(self, rows: Iterable[Row]) -> None:
        """Show these rows, the cursor staying on the worktree it was on (or at the same height
        when that one is gone)."""
        current = self.row
        line = self._line_of[self._cursor] if self._rows else -1
        self._rows = _in_groups(rows)
        self._lines, self._line_of = [], []
        group = None
        for index, row in enumerate(self._rows):
            if _group(row) != group:
                group = _group(row)
                self._lines.append(group)
            self._line_of.append(len(self._lines))
            self._lines.append(index)
        paths = [row.path for row in self._rows]
        if current is not None and current.path in paths:
            self._cursor = paths.index(current.path)
        else:
            self._cursor = min(self._cursor, max(0, len(self._rows) - 1))
        self._marked &= set(paths)
        self._changed()
        # the rows come again every second while the worktrees are followed: the view stays
        # where the reviewer scrolled it unless the cursor moved
        if self._rows and self._line_of[self._cursor] != line:
            self._scroll_to_cursor()

    @property
    def rows(self) -> list[Row]:
        """The rows in the order shown."""
        return list(self._rows)

    @property
    def queue(self) -> list[Row]:
        """The rows that wait on the reviewer, the longest waiting first, as numbered."""
        return queue(self._rows)

    @property
    def row(self) -> Row | None:
        """The row under the cursor."""
        return self._rows[self._cursor] if self._rows else None

    def select(self, path: Path) -> bool:
        """Put the cursor on the worktree at `path`; False when there is none."""
        for index, row in enumerate(self._rows):
            if row.path == path:
                self._go(index, tell=False)
                return True
        return False

    def tick(self) -> None:
        """Draw the ages again, as time passed: only when one reads otherwise (most read in
        minutes), so that a table left open sends the terminal nothing."""
        before, self._cells = self._cells, None
        if before is not None and self._all_cells() == before:
            return
        self._changed()

    # -- attention -----------------------------------------------------------------------------

    @property
    def marked(self) -> frozenset[Path]:
        """The worktrees marked for the reviewer's attention."""
        return frozenset(self._marked)

    def mark(self, paths: Iterable[Path]) -> None:
        """Mark these worktrees until the cursor moves onto them (at once for the one it is on)."""
        known = {row.path for row in self._rows}
        current = self.row
        self._marked |= {path for path in paths if path in known and (current is None or path != current.path)}
        self.refresh()

    def unmark(self, paths: Iterable[Path]) -> None:
        self._marked -= set(paths)
        self.refresh()

    # -- moving --------------------------------------------------------------------------------

    def action_move(self, rows: int) -> None:
        self._go(self._cursor + rows)

    def action_ends(self, last: bool) -> None:
        self._go(len(self._rows) - 1 if last else 0)

    def on_click(self, event: events.Click) -> None:
        line = self.scroll_offset.y + event.y - 1
        if not 0 <= line < len(self._lines):
            return
        entry = self._lines[line]
        index = entry if isinstance(entry, int) else self._first_of(entry)
        self._go(index)
        if event.chain == 2 and self.row is not None:
            self.post_message(self.Chosen(self.row))

    def _first_of(self, group: str) -> int:
        return next(index for index, row in enumerate(self._rows) if _group(row) == group)

    def _go(self, index: int, *, tell: bool = True) -> None:
        if not self._rows:
            return
        index = max(0, min(index, len(self._rows) - 1))
        moved = index != self._cursor
        self._cursor = index
        self._marked.discard(self._rows[index].path)
        self._scroll_to_cursor()
        self.refresh()
        if moved and tell:
            self.moved_to = self._rows[index].path

    def _scroll_to_cursor(self) -> None:
        if not self._rows:
            return
        line = self._line_of[self._cursor]
        height = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_offset.y)
        # the group's heading comes into view with its first row
        above = line - 1 if line and isinstance(self._lines[line - 1], str) else line
        if above < top:
            top = above
        elif line >= top + height:
            top = line - height + 1
        self.scroll_to(y=top, animate=False, immediate=True)

    # -- drawing -------------------------------------------------------------------------------

    def _changed(self) -> None:
        self._cells = None
        self._fitted = None
        self._strips.clear()
        self._size_lines()
        self.refresh(layout=True)

    def _size_lines(self) -> None:
        # No width: the columns are fitted to the table's (`_fit`), it never scrolls sideways. Its
        # width, 0 until the first layout, would change there and lay the screen out again.
        self.virtual_size = Size(0, max(1, len(self._lines)) + 1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cells = None
        self._fitted = None
        self._strips.clear()

    def on_resize(self) -> None:
        self._fitted = None
        self._strips.clear()
        self._size_lines()
        self._scroll_to_cursor()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"worktree-table--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._heading_strip(width)
        line = round(self.scroll_offset.y) + y - 1
        if not self._lines:
            message = f" {self.empty_message}" if line == 0 else ""
            return Strip([Segment(message, base)]).crop_extend(0, width, base)
        if line >= len(self._lines):
            return Strip.blank(width, base)
        strip = self._strips.get((line, width))
        if strip is None:
            strip = self._line_strip(self._lines[line], width)
            self._strips[(line, width)] = strip
        entry = self._lines[line]
        if isinstance(entry, int):
            # laid over the drawn line, so that moving the cursor draws nothing anew
            if entry == self._cursor:
                over = self._style("cursor")
            elif self._rows[entry].path in self._marked:
                over = self._style("marked")
            else:
                return strip
            strip = Strip(Segment.apply_style(strip, post_style=Style(bgcolor=over.bgcolor)), strip.cell_length)
        return strip

    def _heading_strip(self, width: int) -> Strip:
        style = self._style("heading")
        fit = self._fit(width)
        line = Text(no_wrap=True, end="")
        for index, (column, cells) in enumerate(fit.columns):
            if index:
                line.append(" " * fit.gap)
            line.append(_aligned(Text(self._heading(column, fit.short_headings)), cells, column.right))
        return Strip(Segment.apply_style(line.render(CONSOLE), style)).crop_extend(0, width, style)

    def _heading(self, column: _Column, short: bool) -> str:
        if column.key == "default":
            return visible(self.default_branch or "main")
        return column.short if short and column.short else column.heading

    def _line_strip(self, entry: int | str, width: int) -> Strip:
        base = self.rich_style
        if isinstance(entry, str):
            count = sum(1 for row in self._rows if _group(row) == entry)
            heading = GROUPS.get(entry) or self.hosts.get(entry.removeprefix("@"), entry.removeprefix("@"))
            text = Text(f" {visible(heading)} ({count})", self._style("group"), no_wrap=True, end="")
            if text.cell_len > width and entry in SHORT_GROUPS:
                text = Text(f" {SHORT_GROUPS[entry]} ({count})", self._style("group"), no_wrap=True, end="")
            return Strip(Segment.apply_style(text.render(CONSOLE), base)).crop_extend(0, width, base)
        row = self._rows[entry]
        cells = self._all_cells()[entry]
        fit = self._fit(width)
        line = Text(no_wrap=True, end="")
        for index, (column, size) in enumerate(fit.columns):
            if index:
                line.append(" " * fit.gap)
            if row.problem and column.key not in ("place", "name", "branch"):
                # what is wrong takes the rest of the line
                problem = Text(f"problem: {visible(row.problem)}", self._style("problem"))
                line.append(_aligned(problem, width - line.cell_len, False))
                break
            key = f"{column.key}_short" if fit.short and column.key in _SHORTENED else column.key
            line.append(_aligned(cells[key], size, column.right))
        return Strip(Segment.apply_style(line.render(CONSOLE), base)).crop_extend(0, width, base)

    def _all_cells(self) -> list[dict[str, Text]]:
        if self._cells is None:
            now = self.now()
            queue = {row.path: place for place, row in enumerate(self.queue, 1)}
            names = short_names(self._rows)
            self._cells = [self._row_cells(row, queue.get(row.path), now, names) for row in self._rows]
        return self._cells

    def _fit(self, width: int) -> _Fit:
        """The columns shown at `width`, each with its width: the first arrangement in which every
        column but the prose ones has its natural width, or else the first in which each has at
        least its minimum; the room left goes to the flexible columns, in the order they grow."""
        if self._fitted is not None and self._fitted[0] == width:
            return self._fitted[1]
        cells = self._all_cells()
        widest = {key: max((row[key].cell_len for row in cells), default=0) for key in cells[0]} if cells else {}
        shown = [c for c in _COLUMNS if widest.get(c.key) or c.key in _ALWAYS]
        headings = packed = short = False
        arrangements: list[tuple[list[_Column], bool, bool, bool]] = [(shown, headings, packed, short)]
        for step in _GIVING_WAY:
            if step == "short headings":
                headings = True
            elif step == "packed":
                packed = True
            elif step == "short names":
                short = True
            else:
                shown = [c for c in shown if c.key != step]
            arrangements.append((shown, headings, packed, short))

        def natural(column: _Column, headings: bool, short: bool) -> int:
            key = f"{column.key}_short" if short and column.key in _SHORTENED else column.key
            return max(widest.get(key, 0), cell_len(self._heading(column, headings)))

        def needed(columns: list[_Column], headings: bool, packed: bool, short: bool, *, least: bool, cut: bool) -> int:
            total = 0
            for column in columns:
                cells = natural(column, headings, short)
                if column.grows and (least or (cut and column.cut)):
                    cells = min(cells, column.minimum)
                total += cells
            return total + (1 if packed else 2) * (len(columns) - 1)

        chosen = next(
            # with room to spare between the columns, nothing is cut; packed, the prose may be
            (
                arrangement
                for arrangement in arrangements
                if needed(*arrangement, least=False, cut=arrangement[2]) <= width
            ),
            None,
        ) or next(
            (arrangement for arrangement in arrangements if needed(*arrangement, least=True, cut=True) <= width),
            arrangements[-1],
        )
        columns, headings, packed, short = chosen
        sizes = {
            c.key: min(natural(c, headings, short), c.minimum) if c.grows else natural(c, headings, short)
            for c in columns
        }
        room = width - needed(columns, headings, packed, short, least=True, cut=True)
        for column in sorted((c for c in columns if c.grows), key=lambda c: (c.cut, c.grows)):
            more = max(0, min(room, natural(column, headings, short) - sizes[column.key]))
            sizes[column.key] += more
            room -= more
        fit = _Fit([(column, sizes[column.key]) for column in columns], 1 if packed else 2, headings, short)
        self._fitted = (width, fit)
        return fit

    def _row_cells(self, row: Row, place: int | None, now: float, names: dict[Path, str]) -> dict[str, Text]:
        style = self._style
        muted = style("muted")
        cells = {column.key: Text() for column in _COLUMNS}
        cells["place"] = Text(str(place) if place else "", style("place"))
        cells["name"] = Text(visible(row.name), style("name"))
        cells["name_short"] = Text(visible(names.get(row.path, row.name)), style("name"))
        cells["radar_short"] = Text()
        if row.branch:
            cells["branch"] = Text(visible(row.branch), muted)
        elif row.head:
            cells["branch"] = Text(f"detached {row.head[:8]}", muted)
        if row.problem:
            return cells
        cells["agent"] = Text(visible(row.agent or ""))
        state = _AGENT_STATES.get(row.agent_state, row.agent_state)
        cells["state"] = Text(state, style("turn") if row.agent_state == "waiting" else Style())
        cells["changed"] = Text(age(row.last_change, now))
        if row.needs_reviewer:
            cells["waiting"] = Text(age(row.waiting_since, now))
        if row.files:
            cells["files"] = Text(str(row.files))
        if row.files or row.added or row.removed:
            cells["lines"] = Text.assemble(
                (f"+{row.added}", style("added")), " ", (f"−{row.removed}", style("removed"))
            )
        if row.ahead or row.behind:
            cells["ahead"] = Text(f"↑{row.ahead} ↓{row.behind}")
        if row.merges_cleanly is not None:
            cells["default"] = Text("✓", style("clean")) if row.merges_cleanly else Text("✗", style("conflict"))
        turn = row.review_state in ("drafts", "requested", "answered", "addressed")
        cells["review"] = Text(
            row.review_state,
            muted
            if row.review_state == "none"
            else style("clean")
            if row.review_state == "approved"
            else style("turn")
            if turn
            else Style(),
        )
        if row.open_comments or row.answered_comments or row.addressed_comments:
            cells["comments"] = Text(f"{row.open_comments}/{row.answered_comments}/{row.addressed_comments}")
        if row.notes:
            # the agent explained its change: the reviewer's to read
            cells["notes"] = Text(str(row.notes), style("turn"))
        reason = visible(row.reason) + (f" ({visible(row.note)})" if row.note else "")
        cells["reason"] = Text(reason, muted if row.waits_on != "reviewer" else Style())
        marks = {"conflict": style("conflict"), "overlap": style("overlap"), "unknown": muted}
        default = visible(self.default_branch or "main")
        cells["radar"] = radar_text(row, {}, default, **marks)
        cells["radar_short"] = radar_text(row, names, default, **marks)
        return cells


def radar_text(
    row: Row, names: dict[Path, str], default: str, *, conflict: Style, overlap: Style, unknown: Style
) -> Text:
    """What a row collides with: `✗ default` when it no longer merges into the default branch,
    then the other worktrees, `✗` a conflict, `~` the same files merging cleanly, `?` git could
    not tell; conflicts first. Names are taken from `names` where it has them."""
    text = Text(no_wrap=True, end="")
    marks: list[tuple[str, Style]] = []
    if row.merges_cleanly is False:
        marks.append((f"✗ {default}", conflict))
    for each in sorted(row.overlaps, key=lambda o: (o.conflict is not True, o.conflict is None, o.worktree.name)):
        sign, style = ("✗", conflict) if each.conflict else ("?", unknown) if each.conflict is None else ("~", overlap)
        marks.append((f"{sign} {visible(names.get(each.worktree, each.worktree.name))}", style))
    for index, (mark, style) in enumerate(marks):
        if index:
            text.append(" ")
        text.append(mark, style)
    return text


def short_names(rows: Iterable[Row]) -> dict[Path, str]:
    """The worktrees' names without the prefix that several of them share, as worktrees made
    beside a repository are often named after it (`tally-currency`, `tally-csv-export`)."""
    rows = list(rows)
    prefixes: dict[str, int] = {}
    for row in rows:
        cut = min((row.name.find(sep) for sep in _SEPARATORS if row.name.find(sep) > 0), default=-1)
        if 0 < cut < len(row.name) - 1:
            prefix = row.name[: cut + 1]
            prefixes[prefix] = prefixes.get(prefix, 0) + 1
    if not prefixes:
        return {}
    prefix, count = max(prefixes.items(), key=lambda item: item[1])
    if count < 2:
        return {}
    return {row.path: row.name[len(prefix) :] for row in rows if row.name.startswith(prefix) and row.name != prefix}


def _group(row: Row) -> str:
    if row.host is not None:
        return f"@{row.host}"
    return "problem" if row.problem else row.waits_on


def _in_groups(rows: Iterable[Row]) -> list[Row]:
    """This machine's rows by whom they wait on, then each other machine's in a group of its own
    (in the order the hosts first come), by whom they wait on."""
    rows = by_wait(rows)
    hosts = list(dict.fromkeys(row.host for row in rows if row.host is not None))
    return [row for row in rows if row.host is None] + [row for host in hosts for row in rows if row.host == host]


def _aligned(text: Text, width: int, right: bool) -> Text:
    """`text` in exactly `width` cells: padded, or shortened with an ellipsis after a whole word."""
    text = _shortened(text, width) if text.cell_len > width else text.copy()
    if right:
        text.pad_left(width - text.cell_len)
    else:
        text.pad_right(width - text.cell_len)
    return text


def _shortened(text: Text, width: int) -> Text:
    """`text` cut to `width` cells with an ellipsis, after the last whole word that fits (a name's
    parts count as words: `tally-…`), so that no word or number is cut in two; a first word that
    does not fit is cut where it must be."""
    for end in reversed(word_ends(text.plain)):
        kept = text[:end]
        kept.rstrip()
        last = kept.plain.rpartition(" ")[2]
        if len(last) == 1 and not last.isalnum():  # a radar's sign without its worktree
            kept = kept[: len(kept.plain) - 1]
            kept.rstrip()
        if kept.plain and kept.cell_len + 1 <= width:
            kept.append("…")
            return kept
    cut = text.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut
