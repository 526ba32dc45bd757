"""Drawing one row of the diff view: gutter, line numbers, sign and coloured text.

Everything from the repository passes through `visible`, so no byte of a file name or a line
reaches the terminal as a control character.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from pygments.token import _TokenType
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from review.repo.diff import FileDiff, Line, Status
from review.repo.highlight import Token
from review.repo.text import visible
from review.repo.words import WordChanges
from review.tui.comment_box import CONSOLE
from review.tui.layout import (
    TAB_SIZE,
    Layout,
    Row,
    RowKind,
    number_width,
    split_gutter,
    unified_gutter,
)


class Palette(NamedTuple):
    """The styles rows are drawn with, read from the view's component classes."""

    context: Style
    added: Style
    removed: Style
    gutter: Style
    gutter_added: Style
    gutter_removed: Style
    word_added: Style
    word_removed: Style
    hunk: Style
    file: Style
    note: Style
    empty: Style
    match: Style
    syntax: Callable[[_TokenType], Style]
    status: Callable[[Status], Style]


class HunkColours(NamedTuple):
    """Syntax tokens of a hunk's lines, by line index, for each side."""

    old: dict[int, list[Token]]
    new: dict[int, list[Token]]


class RowContext(NamedTuple):
    """What drawing a row needs besides the row."""

    layout: Layout
    palette: Palette
    width: int
    scroll_x: int
    colours: HunkColours | None
    words: WordChanges | None
    search: re.Pattern[str] | None
    viewed: bool


_SIGN = {"+": "+", "-": "-", " ": " "}


def render_row(row: Row, ctx: RowContext) -> Strip:
    """The row as a strip exactly `ctx.width` cells wide."""
    file = ctx.layout.diff.files[row.file]
    if row.kind is RowKind.FILE:
        return _line_strip(_file_header(file, ctx), ctx.width, ctx.palette.file)
    if row.kind is RowKind.NOTE:
        message = ctx.layout.errors.get(row.file) or note_for(file)
        return _line_strip(Text("    " + visible(message), ctx.palette.note), ctx.width, ctx.palette.note)
    if row.kind is RowKind.HUNK:
        hunk = file.hunks[row.hunk]
        header = Text(hunk.header, ctx.palette.hunk)
        if hunk.section:
            header.append(" " + visible(hunk.section), ctx.palette.hunk)
        return _line_strip(header, ctx.width, ctx.palette.hunk)
    if row.kind is RowKind.GAP:
        return Strip.blank(ctx.width, ctx.palette.context)
    digits = number_width(file)
    lines = file.hunks[row.hunk].lines
    if row.kind is RowKind.LINE:
        line = lines[row.line]
        text_width = max(1, ctx.width - unified_gutter(digits))
        base, gutter = _line_styles(line.kind, ctx.palette)
        if row.part:
            numbers = " " * (unified_gutter(digits) - 2) + "↪ "
        else:
            numbers = f"{_number(line.old, digits)} {_number(line.new, digits)} {_SIGN[line.kind]} "
        side = "old" if line.kind == "-" else "new"
        code = _code(line, row.line, side, base, ctx, text_width, row.part)
        # line numbers too long for a narrow view (or from a broken diff) are cut with the row
        return Strip([Segment(numbers, gutter), *code]).crop(0, ctx.width)
    pane = (ctx.width - 1) // 2
    left = _pane(lines, row.left, row, "old", pane, digits, ctx)
    right = _pane(lines, row.right, row, "new", ctx.width - 1 - pane, digits, ctx)
    return Strip([*left, Segment("│", ctx.palette.gutter), *right]).crop(0, ctx.width)


def _pane(
    lines: list[Line], index: int, row: Row, side: str, width: int, digits: int, ctx: RowContext
) -> list[Segment]:
    gutter_width = split_gutter(digits)
    if index < 0:
        return [Segment(" " * width, ctx.palette.empty)]
    line = lines[index]
    base, gutter = _line_styles(line.kind, ctx.palette)
    number = line.old if side == "old" else line.new
    prefix = " " * (gutter_width - 2) + "↪ " if row.part else f"{_number(number, digits)} {_SIGN[line.kind]} "
    code = _code(line, index, side, base, ctx, max(1, width - gutter_width), row.part)
    return [Segment(prefix, gutter), *code]


def _code(line: Line, index: int, side: str, base: Style, ctx: RowContext, width: int, part: int) -> list[Segment]:
    """The line's text, coloured, cut to the `width` cells this row shows of it."""
    layers: list[tuple[int, int, Style]] = []
    if ctx.colours is not None:
        tokens = (ctx.colours.old if side == "old" else ctx.colours.new).get(index, ())
        layers.extend((start, end, ctx.palette.syntax(kind)) for start, end, kind in tokens)
    word_style = ctx.palette.word_removed if line.kind == "-" else ctx.palette.word_added
    if ctx.words is not None:
        layers.extend((start, end, word_style) for start, end in ctx.words.spans(index))
    if ctx.search is not None:
        layers.extend((m.start(), m.end(), ctx.palette.match) for m in ctx.search.finditer(line.text))
    start = part * width if ctx.layout.wrap else ctx.scroll_x
    text, first, last, column, cells = line.text, 0, len(line.text), 0, 0
    if ctx.layout.wrap and len(text) > _WHOLE_LINE:
        first, last, column, cells = _wrapped_piece(text, start, start + width)
        layers = [
            (max(s, first) - first, min(e, last) - first, style) for s, e, style in layers if s < last and e > first
        ]
        text = text[first:last]
        start -= cells
    segments = styled_segments(text, base, layers, column)
    if last == len(line.text):
        if ctx.words is not None and ctx.words.ending_changed(index):
            segments.append(Segment("  ⏎ CRLF" if line.crlf else "  ⏎ LF", base + ctx.palette.note))
        if line.no_newline:
            segments.append(Segment("  ⊘ no newline at end of file", base + ctx.palette.note))
    return list(Strip(segments).crop_extend(start, start + width, base))


_WHOLE_LINE = 1_024
"""A wrapped line up to this many characters is drawn whole for each of its rows; a longer one
only the piece a row shows (a line of a megabyte has tens of thousands of rows, and drawing it
whole for each took seconds a screen)."""
_STEP = 256
"""Characters between the places of a long line whose cell column is kept."""


def _wrapped_piece(text: str, start: int, end: int) -> tuple[int, int, int, int]:
    """The characters of `text` that cells `start` to `end` of it show when drawn: the first and
    the one after the last, the column the first starts at as the tabs count it, and the cell it
    starts in."""
    columns, cells = _places(text)
    at = bisect_right(cells, start) - 1
    after = bisect_left(cells, end)
    return at * _STEP, min(len(text), after * _STEP), columns[at], cells[at]


@lru_cache(maxsize=8)
def _places(text: str) -> tuple[list[int], list[int]]:
    """Where every `_STEP`-th character of a line starts when drawn: its column as the tabs
    count it (as `styled_segments` does), and its cell."""
    columns, cells = [0], [0]
    column = cell = 0
    for at in range(0, len(text), _STEP):
        shown = visible(text[at : at + _STEP], keep_tabs=True)
        if "\t" in shown:
            shown = _expand_tabs(shown, column)
        column += len(shown)
        cell += cell_len(shown)
        columns.append(column)
        cells.append(cell)
    return columns, cells


def styled_segments(text: str, base: Style, layers: list[tuple[int, int, Style]], column: int = 0) -> list[Segment]:
    """`text` made visible with tabs expanded (for text that starts at `column`), each layer's
    style over its span (later layers on top of earlier ones, all on top of `base`)."""
    if layers:
        bounds = sorted({0, len(text), *(s for s, _, _ in layers), *(e for _, e, _ in layers)})
        pieces = [
            (text[start:end], Style.combine([base, *(style for s, e, style in layers if s <= start and end <= e)]))
            for start, end in pairwise(bounds)
            if start < len(text)
        ]
    else:
        pieces = [(text, base)]
    segments = []
    for piece, style in pieces:
        shown = visible(piece, keep_tabs=True)
        if "\t" in shown:
            shown = _expand_tabs(shown, column)
        column += len(shown)
        segments.append(Segment(shown, style))
    return segments


def _expand_tabs(text: str, column: int) -> str:
    """Tabs to spaces up to the next stop, for text that starts at `column`."""
    expanded = (" " * (column % TAB_SIZE) + text).expandtabs(TAB_SIZE)
    return expanded[column % TAB_SIZE :]


def _line_styles(kind: str, palette: Palette) -> tuple[Style, Style]:
    if kind == "+":
        return palette.added, palette.gutter_added
    if kind == "-":
        return palette.removed, palette.gutter_removed
    return palette.context, palette.gutter


def _number(value: int | None, digits: int) -> str:
    return f"{value:>{digits}}" if value is not None else " " * digits


def _line_strip(text: Text, width: int, style: Style) -> Strip:
    return _strip(text).crop_extend(0, width, style)


def _strip(text: Text) -> Strip:
    # `Text.render` leaves the text's own style to the caller; spans are already applied.
    base = text.style if isinstance(text.style, Style) else Style.parse(text.style)
    return Strip(Segment.apply_style(text.render(CONSOLE, end=""), base))


def _file_header(file: FileDiff, ctx: RowContext) -> Text:
    folded = file.path in ctx.layout.folded
    header = Text(end="")
    header.append(" ▸ " if folded else " ▾ ", ctx.palette.file)
    header.append(f"{file.status.letter} ", ctx.palette.status(file.status) + Style(bold=True))
    if file.old_path is not None:
        header.append(visible(file.old_path) + " → ", ctx.palette.file)
    header.append(visible(file.path), ctx.palette.file + Style(bold=True))
    if not file.binary:
        header.append(f"  +{file.added}", ctx.palette.status(Status.ADDED))
        header.append(f" −{file.removed}", ctx.palette.status(Status.DELETED))
    extras = []
    if file.similarity is not None and file.similarity < 100:
        extras.append(f"{file.similarity}% similar")
    if file.mode_changed:
        extras.append(f"mode {file.old_mode} → {file.new_mode}")
    if file.binary:
        extras.append("binary")
    if file.submodule:
        extras.append("submodule")
    elif file.symlink:
        extras.append("symlink")
    if not file.utf8:
        extras.append("not UTF-8")
    if extras:
        header.append("  (" + ", ".join(extras) + ")", ctx.palette.file)
    if ctx.viewed:
        header.append("  ✓ viewed", ctx.palette.file + Style(bold=True))
    return header


def note_for(file: FileDiff) -> str:
    """The one line that stands for a file whose content is not shown."""
    if file.status is Status.UNMERGED:
        return "Unmerged: resolve the conflict to see the change."
    if file.binary:
        sizes = " → ".join(_size(n) for n in (file.old_size, file.new_size) if n is not None)
        return f"Binary file{': ' + sizes if sizes else ''}. Its content is not shown."
    if file.submodule:
        return "Submodule: press enter to show which commits it moved between."
    if file.large:
        lines = file.added + file.removed
        size = f"{lines:,} line{'s' * (lines != 1)}, {file.patch_size / 1e6:.1f} MB"
        if file.too_large:
            return f"Too large to show here: {size}. git diff or an editor shows it."
        return f"Large change: {size}. Press enter to show it."
    if file.mode_changed:
        return f"Only the mode changed: {file.old_mode} → {file.new_mode}."
    if file.status in (Status.RENAMED, Status.COPIED):
        return "Renamed without changes." if file.status is Status.RENAMED else "Copied without changes."
    if file.status is Status.ADDED:
        return "Empty file."
    if file.status is Status.DELETED:
        return "Deleted an empty file."
    return "No changes to show."


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / 1024 / 1024:.1f} MiB"
