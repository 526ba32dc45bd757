"""Word-level changes between a removed line and the added line that replaced it."""

from __future__ import annotations

from review.repo.diff import Hunk, Line
from review.repo.words import WordChanges, changed_spans, pair_lines


def marked(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_a_changed_word_is_the_only_mark() -> None:
    old, new = "total = price * count", "total = price * amount"
    spans = changed_spans(old, new)
    assert spans is not None
    assert marked(old, spans[0]) == ["count"]
    assert marked(new, spans[1]) == ["amount"]


def test_an_inserted_argument_is_marked_on_the_new_side_only() -> None:
    old, new = "call(a, b)", "call(a, x, b)"
    spans = changed_spans(old, new)
    assert spans is not None
    assert spans[0] == []
    assert marked(new, spans[1]) == ["x, "]


def test_lines_with_nothing_in_common_get_no_word_marks() -> None:
    assert changed_spans("import os", "return [x for x in range(10)]") is None


def test_very_long_lines_are_not_compared_word_by_word() -> None:
    assert changed_spans("a " * 600, "b " * 600) is None


def test_removed_and_added_runs_are_paired_in_order() -> None:
    kinds = [" ", "-", "-", "+", "+", "+", " ", "-", "+"]
    lines = [Line(kind, None, None, "") for kind in kinds]
    assert pair_lines(lines) == [(1, 3), (2, 4), (7, 8)]


def test_a_removal_without_an_addition_has_no_pair() -> None:
    lines = [Line("-", 1, None, "x"), Line(" ", 2, 1, "y"), Line("+", None, 2, "z")]
    assert pair_lines(lines) == []


def test_word_changes_of_a_hunk_are_found_by_line_index() -> None:
    hunk = Hunk(1, 2, 1, 2, "", [Line(" ", 1, 1, "keep"), Line("-", 2, None, "a = 1"), Line("+", None, 2, "a = 2")])
    changes = WordChanges(hunk)
    assert changes.spans(0) == []
    assert marked("a = 1", changes.spans(1)) == ["1"]
    assert marked("a = 2", changes.spans(2)) == ["2"]


def test_a_rewritten_pair_has_no_word_marks() -> None:
    hunk = Hunk(1, 1, 1, 1, "", [Line("-", 1, None, "import os"), Line("+", None, 1, "return [x for x in y]")])
    changes = WordChanges(hunk)
    assert changes.spans(1) == changes.spans(0) == []


def test_a_change_of_line_ending_alone_is_told() -> None:
    hunk = Hunk(1, 1, 1, 1, "", [Line("-", 1, None, "same", crlf=False), Line("+", None, 1, "same", crlf=True)])
    changes = WordChanges(hunk)
    assert changes.ending_changed(0) and changes.ending_changed(1)
    assert not WordChanges(Hunk(1, 1, 1, 1, "", [Line("-", 1, None, "a"), Line("+", None, 1, "b")])).ending_changed(0)
