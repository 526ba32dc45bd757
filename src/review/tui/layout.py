"""The diff as rows on screen: which row shows which line, in the unified or the split view.

The whole diff is one flat run of rows, so the view scrolls and jumps by row index at the same cost
anywhere in it. A file's rows are built, and its hunks parsed, only when one of them is needed;
until then its row count comes from a scan of its patch bytes, which is exact unless long lines
wrap (then it is an estimate, corrected when the file is built). The rows of the files used last
are kept (`KEPT_ROWS`); a file's count, once built, is kept for good, so that the total and the
scrollbar never go back to an estimate.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import IntEnum
from typing import NamedTuple

from rich.cells import cell_len

from review.errors import BrokenDiff
from review.repo.diff import Diff, FileDiff, Hunk, Line, hunk_text
from review.repo.recently_used import RecentlyUsed
from review.repo.text import visible
from review.repo.words import pair_lines
from review.state.model import Comment
from review.state.notes import WHOLE_CHANGE

TAB_SIZE = 4

KEPT_ROWS = 20_000
"""The rows of the files used last are kept up to this many in all (about 2 MB)..."""
KEPT_FILES = 32
"""...and those of this many files whatever their size: a screen and where the next keys lead."""


class RowKind(IntEnum):
    FILE = 0
    """The file's header: status, path, counts."""
    NOTE = 1
    """One line standing for the file's content: binary, large, mode only, unreadable."""
    HUNK = 2
    """A hunk's @@ header."""
    LINE = 3
    """One line of the unified view."""
    PAIR = 4
    """One row of the split view: an old line, a new line, or both."""
    GAP = 5
    """The blank row after a file."""
    COMMENT = 6
    """One row of a comment's box, under the lines it is on (or under the file's header). An
    agent's note on the whole change is drawn above the first file, as part of its rows."""


class Row(NamedTuple):
    """What one row of the view shows."""

    kind: RowKind
    file: int
    hunk: int = -1
    line: int = -1
    """LINE: the line's index in its hunk."""
    left: int = -1
    """PAIR: the index of the old side's line, or -1."""
    right: int = -1
    """PAIR: the index of the new side's line, or -1."""
    part: int = 0
    """Which piece of a wrapped line, or which row of a comment's box, this row shows."""
    comment: str = ""
    """COMMENT: the comment's id."""


FOLLOW_DISTANCE = 200
"""How far (in lines) a place follows its line of code after the file changed around it."""


class Place(NamedTuple):
    """A position that outlives a layout: a file, and a line number on each side when on a line."""

    path: str
    new: int | None = None
    old: int | None = None
    comment: str | None = None
    """On a comment's box: its id."""
    text: str | None = None
    """The line's text (the new side's, else the old side's), so the place follows its code when
    lines are added or removed above it."""


class Selection(NamedTuple):
    """Lines of one side of one file, chosen to comment on."""

    file: int
    side: str
    """"new", or "old" for removed code."""
    first: int
    last: int
    text: list[str]
    """The lines themselves, for a suggestion block."""


def display_text(text: str) -> str:
    """A line as drawn: control characters made visible, tabs expanded."""
    return visible(text, keep_tabs=True).expandtabs(TAB_SIZE)


def number_width(file: FileDiff) -> int:
    """Digits needed for the file's largest line number (at least 3)."""
    largest = max((max(h.old_start + h.old_count, h.new_start + h.new_count) for h in file.hunks), default=1)
    return max(3, len(str(largest)))


def unified_gutter(digits: int) -> int:
    """Cells before the text in the unified view: `old new sign `."""
    return 2 * digits + 4


def split_gutter(digits: int) -> int:
    """Cells before the text in one pane of the split view: `number sign `."""
    return digits + 3


class FoldedMatch(NamedTuple):
    """Where a search leads when that is into a folded file: the file, to be unfolded first (as
    vim opens a fold a search goes into)."""

    file: int


class Layout:
    """Rows of a diff for one way of viewing it."""

    def __init__(
        self,
        diff: Diff,
        *,
        split: bool = False,
        wrap: bool = False,
        width: int = 80,
        folded: frozenset[str] = frozenset(),
        expanded: frozenset[str] = frozenset(),
        comments: Mapping[str, Sequence[Comment]] | None = None,
        measure: Callable[[Comment], int] = lambda comment: 1,
    ) -> None:
        self.diff = diff
        self.comments = comments or {}
        """The comments to show, by path; the agent's notes on the whole change under ""."""
        self.measure = measure
        """How many rows a comment's box takes."""
        self.split = split
        self.wrap = wrap
        self.width = max(width, 20)
        self.folded = folded
        """Paths shown as their header only."""
        self.expanded = expanded
        """Paths of large files and submodules the reviewer asked to see in full."""
        self._rows: RecentlyUsed[int, list[Row]] = RecentlyUsed(KEPT_ROWS, KEPT_FILES, len)
        self.widest = 0
        """Display width of the longest line of the files built so far."""
        self.errors: dict[int, str] = {}
        """Files whose patch could not be read, with the reason."""
        self.measured_unread = False
        """Whether a file git had not read yet was measured as unified, where it is wrapped or
        split: the view is laid out again once git has read it."""
        self._counts = self._estimates()
        self._starts: list[int] = []
        self._recount()

    # -- sizes -------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return self._starts[-1] if self._starts else 0

    def _recount(self) -> None:
        starts = [0]
        for count in self._counts:
            starts.append(starts[-1] + count)
        self._starts = starts

    def file_start(self, index: int) -> int:
        return self._starts[index]

    def file_of(self, row: int) -> int:
        """The index of the file that row `row` belongs to."""
        return min(bisect_right(self._starts, row) - 1, len(self._counts) - 1)

    def shows_body(self, index: int, *, unfolded: bool = False) -> bool:
        """Whether the file's hunks are shown rather than a header or a one-line note (or would
        be, `unfolded`)."""
        file = self.diff.files[index]
        if (file.path in self.folded and not unfolded) or index in self.errors:
            return False
        if file.path in self.expanded:
            return file.has_hunks and not file.binary
        return file.hunks_shown_unasked

    def _estimates(self) -> list[int]:
        """Every file's `_estimate`, as a diff is shown."""
        if self.wrap or self.split:
            return [self._estimate(i) for i in range(len(self.diff.files))]
        # A file with nothing of its own (no comment, not folded or expanded, not the first,
        # above which the notes on the whole change go) is its header and its body, or a note:
        # counted here, 10,000 files take a fifth of the time.
        special = self.folded | self.expanded | self.comments.keys()
        return [
            self._estimate(i)
            if i == 0 or file.path in special
            else 2 + file.body_lines
            if file.hunks_shown_unasked
            else 3
            for i, file in enumerate(self.diff.files)
        ]

    def _estimate(self, index: int) -> int:
        # (asked of every file as a diff is shown: 10,000 of them as it opens)
        file = self.diff.files[index]
        boxes = sum(map(self.measure, self._on_change(index)))
        if file.path in self.folded:
            return boxes + 2
        boxes += sum(map(self.measure, self.comments.get(file.path, ())))
        if not self.shows_body(index):
            return 3 + boxes
        # a file git has not read yet is measured as unified (the view lays itself out again
        # once it has): measuring it now would wait for git
        if (self.wrap or self.split) and not file.ready:
            self.measured_unread = True
        elif self.wrap:
            text_width = self._text_width(4)
            return 2 + boxes + sum(max(1, math.ceil(n / text_width)) for n in _body_widths(file))
        elif self.split:
            return 2 + boxes + _split_rows(file.line_kinds)
        return 2 + boxes + file.body_lines

    def _text_width(self, digits: int, width: int | None = None) -> int:
        width = self.width if width is None else width
        if self.split:
            return max(1, (width - 1) // 2 - split_gutter(digits))
        return max(1, width - unified_gutter(digits))

    # -- rows ----------------------------------------------------------------------------------

    def ready_rows(self, start: int, count: int) -> Iterator[Row]:
        """The rows from `start` on, at most `count`, up to the first of a file whose patch git
        has not read yet (building it would wait for git)."""
        for index in range(start, min(start + count, self.total)):
            if not self.diff.files[self.file_of(index)].ready:
                return
            yield self.row(index)

    def row(self, index: int) -> Row:
        """The row at `index`, building its file's rows if needed."""
        file = self.file_of(index)
        rows = self.rows_of(file)
        return rows[min(index - self._starts[file], len(rows) - 1)]

    def rows_of(self, index: int) -> list[Row]:
        """Every row of one file, built when not kept."""
        rows = self._rows.get(index)
        if rows is None:
            rows = self._build(index)
            self._rows.put(index, rows)
            if len(rows) != self._counts[index]:
                self._counts[index] = len(rows)
                self._recount()
        return rows

    def _on_change(self, index: int) -> Sequence[Comment]:
        """The notes on the whole change, drawn above file `index` when it is the first."""
        return self.comments.get(WHOLE_CHANGE, ()) if index == 0 else ()

    def _build(self, index: int, *, unfolded: bool = False) -> list[Row]:
        file = self.diff.files[index]
        rows = [row for comment in self._on_change(index) for row in self._box(index, comment)]
        rows.append(Row(RowKind.FILE, index))
        if file.path in self.folded and not unfolded:
            return [*rows, Row(RowKind.GAP, index)]
        hunks: list[Hunk] = []
        if self.shows_body(index, unfolded=unfolded):
            try:
                hunks = file.hunks
            except BrokenDiff as error:
                self.errors[index] = str(error)
        anchored = _by_last_line(self.comments.get(file.path, ()))
        placed: set[str] = set()
        body: list[Row] = []

        def attach(*keys: tuple[str, int | None]) -> None:
            for key in keys:
                for comment in anchored.get(key, ()):
                    if comment.id not in placed:
                        placed.add(comment.id)
                        body.extend(self._box(index, comment))

        if not hunks:
            body.append(Row(RowKind.NOTE, index))
        else:
            self._body(index, file, hunks, body, attach)
        # comments on the whole file, on code that is gone, or on lines the diff does not show
        on_file = [
            row
            for comment in self.comments.get(file.path, ())
            if comment.id not in placed
            for row in self._box(index, comment)
        ]
        return [*rows, *on_file, *body, Row(RowKind.GAP, index)]

    def _box(self, index: int, comment: Comment) -> list[Row]:
        return [Row(RowKind.COMMENT, index, comment=comment.id, part=part) for part in range(self.measure(comment))]

    def _body(
        self,
        index: int,
        file: FileDiff,
        hunks: list[Hunk],
        rows: list[Row],
        attach: Callable[..., None],
    ) -> None:
        digits = number_width(file)
        width = self._text_width(digits)
        if not self.wrap:
            longest = max((len(line.text) for hunk in hunks for line in hunk.lines), default=0)
            # tabs and control characters draw wider than they count; measure the long lines only
            self.widest = max(
                self.widest,
                *(
                    cell_len(display_text(line.text))
                    for hunk in hunks
                    for line in hunk.lines
                    if len(line.text) * 2 >= longest
                ),
            )
        for h, hunk in enumerate(hunks):
            rows.append(Row(RowKind.HUNK, index, h))
            if self.split:
                for pair in self._pairs(index, h, hunk, width):
                    rows.extend(pair)
                    left = hunk.lines[pair[0].left] if pair[0].left >= 0 else None
                    right = hunk.lines[pair[0].right] if pair[0].right >= 0 else None
                    attach(("old", left.old if left else None), ("new", right.new if right else None))
            else:
                for i, line in enumerate(hunk.lines):
                    for part in range(self._parts(line, width)):
                        rows.append(Row(RowKind.LINE, index, h, line=i, part=part))
                    attach(("old", line.old), ("new", line.new))

    def _pairs(self, index: int, h: int, hunk: Hunk, width: int) -> Iterator[list[Row]]:
        """The rows of each pair of lines, all its wrapped parts together: a line is measured
        once, not for each of its parts (a line of a megabyte wraps into tens of thousands)."""
        partner = dict(pair_lines(hunk.lines))
        taken = set(partner.values())
        for i, line in enumerate(hunk.lines):
            if i in taken:
                continue
            if line.kind == " ":
                left, right = i, i
            elif line.kind == "-":
                left, right = i, partner.get(i, -1)
            else:
                left, right = -1, i
            parts = 1
            if self.wrap:
                parts = max(self._parts(hunk.lines[j], width) for j in (left, right) if j >= 0)
            yield [Row(RowKind.PAIR, index, h, left=left, right=right, part=part) for part in range(parts)]

    def _parts(self, line: Line, width: int) -> int:
        if not self.wrap:
            return 1
        return max(1, math.ceil(cell_len(display_text(line.text)) / width))

    def overflow(self, width: int | None = None) -> int:
        """How many cells the longest line built so far is wider than the text area of a view
        `width` cells wide (by default the one laid out for)."""
        return max(0, self.widest - self._text_width(3, width))

    # -- what a row shows ----------------------------------------------------------------------

    def lines_of(self, row: Row) -> tuple[Line | None, Line | None]:
        """The old-side and new-side line a row shows; the same line twice for context."""
        if row.kind not in (RowKind.LINE, RowKind.PAIR):
            return None, None
        lines = self.diff.files[row.file].hunks[row.hunk].lines
        if row.kind is RowKind.LINE:
            line = lines[row.line]
            return (line if line.kind != "+" else None), (line if line.kind != "-" else None)
        return (lines[row.left] if row.left >= 0 else None), (lines[row.right] if row.right >= 0 else None)

    def place(self, index: int) -> Place:
        """Where row `index` is, in terms that survive a new layout."""
        if not self.diff.files:
            return Place("")
        row = self.row(index)
        if row.kind is RowKind.COMMENT:
            return Place(self.diff.files[row.file].path, comment=row.comment)
        old, new = self.lines_of(row)
        shown = new if new is not None else old
        return Place(
            self.diff.files[row.file].path,
            new=new.new if new is not None else None,
            old=old.old if old is not None else None,
            text=shown.text if shown is not None else None,
        )

    def find(self, place: Place) -> int | None:
        """The row nearest to `place`: the same file, the nearest line on the same side with the
        same text, else the nearest line on that side."""
        index = next((i for i, f in enumerate(self.diff.files) if f.path == place.path), None)
        if index is None:
            return None
        if place.comment is not None:
            found = self.find_comment(place.comment)
            if found is not None:
                return found
        start = self._starts[index]
        if place.new is None and place.old is None:
            return start
        best: tuple[bool, bool, int, int] | None = None
        for offset, row in enumerate(self.rows_of(index)):
            if row.part:
                continue
            old, new = self.lines_of(row)
            if place.new is not None and new is not None and new.new is not None:
                line, distance = new, abs(new.new - place.new)
            elif place.new is None and place.old is not None and old is not None and old.old is not None:
                line, distance = old, abs(old.old - place.old)
            else:
                continue
            # the same code a little higher or lower is where the reviewer was: the agent added
            # or removed lines above it; far away, the same text is another line (a blank, a brace)
            elsewhere = line.text != place.text or distance > FOLLOW_DISTANCE
            # The old side is a commit: edits to the working tree never move its lines, so a line
            # with the same old number and text is the very line (a blank line nearer by its new
            # number is another blank).
            same = place.old is not None and old is not None and old.old == place.old and old.text == place.text
            candidate = (not same, elsewhere, distance, start + offset)
            if best is None or candidate < best:
                best = candidate
        return best[3] if best else start

    # -- moving --------------------------------------------------------------------------------

    def next_hunk(self, index: int, forward: bool = True) -> int | None:
        """The next (or previous) hunk header after row `index`, across files."""
        return self._next_row(index, forward, lambda row: row.kind is RowKind.HUNK)

    def find_comment(self, id: str) -> int | None:
        """The first row of a comment's box."""
        for file, diff_file in enumerate(self.diff.files):
            if any(comment.id == id for comment in (*self._on_change(file), *self.comments.get(diff_file.path, ()))):
                for offset, row in enumerate(self.rows_of(file)):
                    if row.kind is RowKind.COMMENT and row.comment == id:
                        return self._starts[file] + offset
        return None

    def next_comment(self, index: int, forward: bool = True) -> int | None:
        """The first row of the next (or previous) comment's box, across files; files without
        comments are passed over without being built."""
        return self._next_row(
            index,
            forward,
            lambda row: row.kind is RowKind.COMMENT and row.part == 0,
            skip=lambda file: not (self._on_change(file) or self.comments.get(self.diff.files[file].path)),
        )

    def box_end(self, index: int) -> int:
        """The last row of the comment's box whose first row is `index`."""
        box = self.row(index).comment
        end = index
        while end + 1 < self.total and (row := self.row(end + 1)).kind is RowKind.COMMENT and row.comment == box:
            end += 1
        return end

    def comment_at(self, index: int, *, notes: bool = False) -> str | None:
        """The id of the comment whose box is at row `index`, or that is on that row's line; with
        `notes`, of the agent's note only (a line may have both)."""
        row = self.row(index)
        here = [*self._on_change(row.file), *self.comments.get(self.diff.files[row.file].path, ())]
        if notes:
            here = [comment for comment in here if comment.is_note]
        if row.kind is RowKind.COMMENT:
            return row.comment if any(comment.id == row.comment for comment in here) else None
        old, new = self.lines_of(row)
        for comment in here:
            if comment.line is None:
                continue  # on the whole file: it has a box of its own, no line
            end = comment.end_line or comment.line
            shown = new if comment.side == "new" else old
            number = None if shown is None else shown.new if comment.side == "new" else shown.old
            if number is not None and comment.line <= number <= end:
                return comment.id
        return None

    def selection(self, anchor: int, cursor: int) -> Selection | None:
        """The lines between rows `anchor` and `cursor`, on the side of the anchor's line (the old
        side when it is a removed line), within the anchor's file; None when the anchor is not a
        line of code."""
        row = self.row(anchor)
        old, new = self.lines_of(row)
        if old is None and new is None:
            return None
        side = "old" if new is None else "new"
        file = row.file
        low, high = sorted((anchor, cursor))
        low = max(low, self._starts[file])
        high = min(high, self._starts[file + 1] - 1)
        chosen: dict[int, str] = {}
        for index in range(low, high + 1):
            old, new = self.lines_of(self.row(index))
            line = new if side == "new" else old
            number = None if line is None else (line.new if side == "new" else line.old)
            if line is not None and number is not None:
                chosen[number] = line.text
        if not chosen:
            return None
        first, last = min(chosen), max(chosen)
        return Selection(file, side, first, last, [chosen.get(n, "") for n in range(first, last + 1)])

    def next_file(self, index: int, forward: bool = True) -> int | None:
        """The first row of the next file, or of this file (or the previous one) going back."""
        if not self.diff.files:
            return None
        file = self.file_of(index)
        if forward:
            return self._starts[file + 1] if file + 1 < len(self._counts) else None
        if index > self._starts[file]:
            return self._starts[file]
        return self._starts[file - 1] if file > 0 else None

    def search(self, pattern: re.Pattern[str], index: int, forward: bool = True) -> int | FoldedMatch | None:
        """The next row after `index` (or before it, going back) with a line `pattern` matches,
        wrapping around; or the folded file such a line is in, when that comes first. Files whose
        patch bytes cannot match are not parsed."""
        if not self.diff.files:
            return None
        prefilter = _bytes_pattern(pattern)
        count = len(self._counts)
        here = self.file_of(index)
        step = 1 if forward else -1
        # the current file is visited last again, for the matches before `index` in it
        for n in range(count + 1):
            file = (here + step * n) % count
            if self.diff.files[file].path in self.folded:
                # (a folded file's lines all come after its header, where the cursor may be)
                if (forward or n) and self._matching(file, pattern, prefilter, unfolded=True):
                    return FoldedMatch(file)
                continue
            start = self._starts[file]
            for offset in self._matching(file, pattern, prefilter)[:: 1 if forward else -1]:
                at = start + offset
                if n == 0 and (at <= index if forward else at >= index):
                    continue
                return at
        return None

    def matches(self, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
        """Every line `search` can stop on, in order, as its file and its row in the file's rows:
        those of a folded file as it would be unfolded (a search unfolds it)."""
        prefilter = _bytes_pattern(pattern)
        return [
            (file, offset)
            for file in range(len(self._counts))
            for offset in self._matching(file, pattern, prefilter, unfolded=True)
        ]

    def among_matches(self, index: int) -> tuple[int, int]:
        """Where row `index` stands among `matches`: its file and its row in the file's rows, or
        before all the lines of a folded file (they come after its header)."""
        file = self.file_of(index)
        return file, -1 if self.diff.files[file].path in self.folded else index - self._starts[file]

    def _matching(
        self, file: int, pattern: re.Pattern[str], prefilter: re.Pattern[bytes] | None, *, unfolded: bool = False
    ) -> list[int]:
        """The rows of file `file` that `pattern` matches, by their place among the file's rows
        (as they would be `unfolded`, for a folded file)."""
        if not self.shows_body(file, unfolded=unfolded):
            return []
        if prefilter is not None and not prefilter.search(self.diff.files[file].patch):
            return []
        folded = self.diff.files[file].path in self.folded
        rows = self._build(file, unfolded=True) if folded else self.rows_of(file)
        return [offset for offset, row in enumerate(rows) if self._matches(row, pattern)]

    def _matches(self, row: Row, pattern: re.Pattern[str]) -> bool:
        # a wrapped line matches once, on its first row
        return not row.part and any(line is not None and pattern.search(line.text) for line in self.lines_of(row))

    def _next_row(
        self,
        index: int,
        forward: bool,
        wanted: Callable[[Row], bool],
        skip: Callable[[int], bool] = lambda file: False,
    ) -> int | None:
        if not self.diff.files:
            return None
        file = self.file_of(index)
        step = 1 if forward else -1
        while 0 <= file < len(self._counts):
            if skip(file):
                file += step
                continue
            rows = self.rows_of(file)
            start = self._starts[file]
            order = range(len(rows)) if forward else range(len(rows) - 1, -1, -1)
            for offset in order:
                at = start + offset
                if (at > index if forward else at < index) and wanted(rows[offset]):
                    return at
            file += step
        return None


def _by_last_line(comments: Sequence[Comment]) -> dict[tuple[str, int | None], list[Comment]]:
    """Comments on lines, by the side and number of the line their box goes under."""
    found: dict[tuple[str, int | None], list[Comment]] = {}
    for comment in comments:
        if comment.line is not None:
            found.setdefault((comment.side, comment.end_line or comment.line), []).append(comment)
    return found


def search_pattern(needle: str) -> re.Pattern[str]:
    """The text `needle` as a search, smart-case as in vim and less: in lower case it matches
    either case; with a capital letter in it, only that case."""
    ignore_case = 0 if any(char.isupper() for char in needle) else re.IGNORECASE
    return re.compile(re.escape(needle), ignore_case)


def _bytes_pattern(pattern: re.Pattern[str]) -> re.Pattern[bytes] | None:
    """The same search over raw patch bytes, to skip files without parsing them; None when bytes
    cannot stand for it (ignoring case is ASCII-only for bytes)."""
    if not pattern.pattern.isascii():
        return None
    return re.compile(pattern.pattern.encode("ascii"), pattern.flags & re.IGNORECASE)


_CHANGE_BLOCK = re.compile(rb"(-+)(\+*)")


def _split_rows(kinds: bytes) -> int:
    """Rows of the split view: a block of removed lines beside the added lines after it."""
    rows = len(kinds)
    for match in _CHANGE_BLOCK.finditer(kinds):
        rows -= min(len(match.group(1)), len(match.group(2)))
    return rows


def _body_widths(file: FileDiff) -> list[int]:
    """Estimated display widths of a file's rows, for wrapping before the file is parsed."""
    return [
        len(raw) - 1 + raw.count(b"\t") * (TAB_SIZE - 1)
        for section in file.sections
        for raw in hunk_text(section).split(b"\n")
        if raw[:1] in (b" ", b"+", b"-", b"@")
    ]
