"""A line Textual draws whole is not kept in a reference cycle of its own (`uncut_strips`), and
lines are still divided as Textual divides them."""

from __future__ import annotations

import gc

from rich.segment import Segment
from textual.strip import Strip

from review.tui import uncut_strips


def line() -> Strip:
    return Strip([Segment("hello"), Segment(" world")], 11)


def test_a_line_divided_whole_is_freed_with_its_last_reference() -> None:
    uncut_strips.install()
    gc.collect()
    drawn = line()
    assert drawn.divide([11, 20]) == [drawn]  # (cuts past its end are left out, as Textual does)
    del drawn
    # nothing left for the collection of all objects: it was freed as it was dropped
    assert gc.collect() == 0


def test_without_it_textual_keeps_a_line_divided_whole_in_a_cycle() -> None:
    # if a later Textual stops doing so, `uncut_strips` can go
    gc.collect()
    drawn = line()
    assert uncut_strips._divide(drawn, [11]) == [drawn]
    del drawn
    assert gc.collect() > 0


def test_lines_are_cut_as_textual_cuts_them() -> None:
    uncut_strips.install()
    parts = line().divide([3, 8, 11])
    assert ["".join(s.text for s in part) for part in parts] == ["hel", "lo wo", "rld"]
    assert [part.cell_length for part in parts] == [3, 5, 3]


def test_the_viewer_divides_lines_so() -> None:
    import review.tui.app  # noqa: F401  (as review starts)

    assert Strip.divide is uncut_strips._divide_uncut_apart
