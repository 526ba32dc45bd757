"""Drawing one row of the diff: exactly as wide as the view, and a long wrapped line a piece at a
time, as it would be drawn whole."""

from __future__ import annotations

import re

import pytest
from rich.style import Style

from drawn import plain_palette
from review.repo.diff import parse
from review.repo.words import WordChanges
from review.tui import diff_rows
from review.tui.diff_rows import RowContext, render_row
from review.tui.layout import Layout, RowKind

PALETTE = plain_palette()


@pytest.mark.parametrize("split", [False, True])
def test_a_row_whose_line_numbers_are_wider_than_the_view_is_cut_to_its_width(split: bool) -> None:
    # A hunk at line 10**30 (from a broken diff; a narrow pane and a file of a billion lines
    # come near it too): its gutter alone is wider than the view.
    start = 10**30
    output = (
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
        b"@@ -%d,1 +%d,1 @@\n-old\n+new\n" % (start, start)
    )
    layout = Layout(parse(output), split=split, width=40)
    for row in layout.rows_of(0):
        words = WordChanges(layout.diff.files[0].hunks[row.hunk]) if row.kind in (RowKind.LINE, RowKind.PAIR) else None
        strip = render_row(row, RowContext(layout, PALETTE, 40, 0, None, words, None, False))
        assert strip.cell_length == 40, (row, strip.text)


@pytest.mark.parametrize("split", [False, True])
def test_a_long_wrapped_line_is_drawn_a_piece_at_a_time_as_it_is_drawn_whole(
    split: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tabs (their stops depend on what comes before), wide characters, stand-ins for escapes,
    # search matches across the pieces, and the note after the last row of a line
    line = "def\tf(界, \x1b[31m):" * 400
    output = (
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
        b"@@ -1,1 +1,1 @@\n-old\n+" + line.encode() + b"\n\\ No newline at end of file\n"
    )
    layout = Layout(parse(output), split=split, wrap=True, width=77)
    search = re.compile(r"f\(界")

    def drawn() -> list[list[tuple[str, Style | None]]]:
        rows = [row for row in layout.rows_of(0) if row.kind in (RowKind.LINE, RowKind.PAIR)]
        assert len(rows) > 100
        context = RowContext(layout, PALETTE, 77, 0, None, None, search, False)
        return [[(segment.text, segment.style) for segment in render_row(row, context)] for row in rows]

    in_pieces = drawn()
    monkeypatch.setattr(diff_rows, "_WHOLE_LINE", 10**9)
    assert in_pieces == drawn()
