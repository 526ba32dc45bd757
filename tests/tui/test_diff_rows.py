"""Drawing one row of the diff: always exactly as wide as the view."""

from __future__ import annotations

import pytest
from rich.style import Style

from review.repo.diff import parse
from review.repo.words import WordChanges
from review.tui.diff_rows import Palette, RowContext, render_row
from review.tui.layout import Layout, RowKind

PLAIN = Style()
PALETTE = Palette(
    **{
        name: PLAIN
        for name in (
            "context",
            "added",
            "removed",
            "gutter",
            "gutter_added",
            "gutter_removed",
            "word_added",
            "word_removed",
            "hunk",
            "file",
            "note",
            "empty",
            "match",
        )
    },
    syntax=lambda token: PLAIN,
    status=lambda status: PLAIN,
)


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
