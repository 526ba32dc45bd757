"""Re-anchoring: a comment follows its code when the agent edits the file around it or in it."""

from __future__ import annotations

import pytest

from review.state.anchor import CONTEXT, LOST, Located, capture, locate, locate_all

FILE = [
    "import os",  # 1
    "",  # 2
    "def load(path):",  # 3
    "    with open(path) as file:",  # 4
    "        text = file.read()",  # 5
    "    return text.splitlines()",  # 6
    "",  # 7
    "def total(values):",  # 8
    "    result = 0",  # 9
    "    for value in values:",  # 10
    "        result += value",  # 11
    "    return result",  # 12
    "",  # 13
    "def main():",  # 14
    '    print(total(load(os.environ["DATA"])))',  # 15
]
"""A small module; most tests comment on the body of `total`, lines 9 to 11."""

LOOP = capture(FILE, 9, 11)


def edited(lines: list[str], at: int, *new: str, removing: int = 0) -> list[str]:
    """`lines` with `removing` lines from line `at` (1-based) replaced by `new`."""
    return [*lines[: at - 1], *new, *lines[at - 1 + removing :]]


def test_capture_keeps_the_commented_lines_and_their_context() -> None:
    assert LOOP.lines == FILE[8:11]
    assert LOOP.before == FILE[5:8]
    assert LOOP.after == FILE[11:14]
    assert (LOOP.line, LOOP.end_line, LOOP.source) == (9, 11, None)
    assert CONTEXT == 3


def test_capture_records_the_source_it_read() -> None:
    assert capture(FILE, 9, 9, "0123abcd").source == "0123abcd"


def test_capture_at_the_start_of_a_file_has_less_context_above() -> None:
    anchor = capture(FILE, 2, 3)
    assert anchor.before == ["import os"]
    assert anchor.after == FILE[3:6]


def test_capture_at_the_end_of_a_file_has_less_context_below() -> None:
    anchor = capture(FILE, 14, 15)
    assert anchor.before == FILE[10:13]
    assert anchor.after == []


@pytest.mark.parametrize(("line", "end_line"), [(0, 1), (15, 16), (16, 16), (-1, 2)])
def test_capture_rejects_a_range_outside_the_file(line: int, end_line: int) -> None:
    with pytest.raises(ValueError, match="not in the file"):
        capture(FILE, line, end_line)


def test_capture_rejects_a_range_that_ends_before_it_starts() -> None:
    with pytest.raises(ValueError, match="ends before it starts"):
        capture(FILE, 9, 8)


def test_capture_rejects_any_line_of_an_empty_file() -> None:
    with pytest.raises(ValueError, match="empty"):
        capture([], 1, 1)


def test_unchanged_lines_are_exact() -> None:
    assert locate(LOOP, FILE) == Located(9, 11, "exact")


def test_lines_inserted_above_move_the_comment_down() -> None:
    now = edited(FILE, 2, "import sys", "import json")
    assert locate(LOOP, now) == Located(11, 13, "moved")


def test_lines_deleted_above_move_the_comment_up() -> None:
    now = edited(FILE, 1, removing=2)
    assert locate(LOOP, now) == Located(7, 9, "moved")


def test_a_block_moved_to_other_surroundings_is_followed() -> None:
    now = [
        *edited(FILE, 9, "    return sum(values)", removing=4),
        "",
        "def running_total(values):",
        *FILE[8:11],
        "        yield result",
    ]
    assert now[14:17] == FILE[8:11]
    assert locate(LOOP, now) == Located(15, 17, "moved")


REPEATED = [
    "def first(ready):",  # 1
    "    if ready:",  # 2
    "        return None",  # 3
    "    return 1",  # 4
    "",  # 5
    "def second(ready):",  # 6
    "    if ready:",  # 7
    "        return None",  # 8
    "    return 2",  # 9
]


def test_a_repeated_block_is_told_apart_by_its_context() -> None:
    anchor = capture(REPEATED, 7, 8)
    # Five new lines put the first copy where the commented one was.
    now = ["import os", "import sys", "", "READY = True", "", *REPEATED]
    assert now[6:8] == REPEATED[6:8] == REPEATED[1:3]
    assert locate(anchor, now) == Located(12, 13, "moved")


def test_a_common_line_is_found_where_its_context_is() -> None:
    anchor = capture(REPEATED, 8, 8)
    now = ["import os", "", *REPEATED]
    assert locate(anchor, now) == Located(10, 10, "moved")


COPIES = [
    "def area(width, height):",  # 1
    "    check(width)",  # 2
    "    check(height)",  # 3
    "    return width * height",  # 4
    "",  # 5
    "def volume(width, height, depth):",  # 6
    "    check(width)",  # 7
    "    check(height)",  # 8
    "    return width * height * depth",  # 9
]


@pytest.mark.parametrize("line", [2, 7])
def test_an_edited_copy_is_changed_where_it_is_not_moved_to_the_other_copy(line: int) -> None:
    anchor = capture(COPIES, line, line + 1)
    now = edited(COPIES, line, "    check(width, positive=True)", removing=1)
    assert locate(anchor, now) == Located(line, line + 1, "changed")


def test_an_edited_line_inside_the_range_marks_it_changed() -> None:
    now = edited(FILE, 10, "    for value in sorted(values):", removing=1)
    assert locate(LOOP, now) == Located(9, 11, "changed")


def test_an_edited_range_that_moved_is_changed_at_its_new_place() -> None:
    now = edited(edited(FILE, 10, "    for value in sorted(values):", removing=1), 1, "import sys")
    assert locate(LOOP, now) == Located(10, 12, "changed")


def test_lines_inserted_inside_the_range_grow_it() -> None:
    now = edited(FILE, 11, "        if value < 0:", "            continue")
    assert locate(LOOP, now) == Located(9, 13, "changed")


def test_many_lines_inserted_inside_the_range_grow_it() -> None:
    now = edited(FILE, 11, *(f"        check_{n}(value)" for n in range(40)))
    assert locate(LOOP, now) == Located(9, 51, "changed")


def test_a_partly_deleted_range_shrinks() -> None:
    now = edited(FILE, 9, removing=1)
    assert locate(LOOP, now) == Located(9, 10, "changed")


def test_a_deleted_range_is_lost_even_when_its_context_remains() -> None:
    now = edited(FILE, 9, removing=3)
    assert locate(LOOP, now) == LOST


def test_a_deleted_common_line_is_lost_rather_than_found_in_a_similar_place() -> None:
    anchor = capture(REPEATED, 8, 8)
    now = edited(REPEATED, 8, removing=1)
    assert locate(anchor, now) == LOST


def test_with_only_the_context_above_left_the_range_keeps_its_length() -> None:
    now = [*FILE[:8], "    return sum(values)", "", "", "if __name__ == '__main__':", "    run()"]
    assert locate(LOOP, now) == Located(9, 11, "changed")


def test_with_only_the_context_below_left_the_range_keeps_its_length() -> None:
    now = ["from math import fsum", "", "def total(numbers):", "    values = list(numbers)", *FILE[11:]]
    assert locate(LOOP, now) == Located(2, 4, "changed")


def test_a_rewritten_file_loses_the_comment() -> None:
    now = ["# Notes", "", "The loader moved to loader.rs.", "", "See the changelog for details."] * 3
    assert locate(LOOP, now) == LOST


def test_an_empty_file_loses_the_comment() -> None:
    assert locate(LOOP, []) == LOST


def test_trailing_whitespace_changes_keep_the_comment_exact() -> None:
    now = [line + "   " for line in FILE]
    assert locate(LOOP, now) == Located(9, 11, "exact")


def test_trailing_whitespace_changes_do_not_stop_a_move() -> None:
    now = ["import sys", *(line + " \t" for line in FILE)]
    assert locate(LOOP, now) == Located(10, 12, "moved")


def test_an_indentation_change_marks_the_comment_changed() -> None:
    now = [*FILE[:8], *("    " + line for line in FILE[8:11]), *FILE[11:]]
    assert locate(LOOP, now) == Located(9, 11, "changed")


def test_a_blank_line_moves_with_its_context() -> None:
    anchor = capture(FILE, 7, 7)
    now = ["#!/usr/bin/env python", *FILE]
    assert locate(anchor, now) == Located(8, 8, "moved")


def test_a_blank_line_whose_context_is_gone_is_lost() -> None:
    anchor = capture(FILE, 7, 7)
    now = ["class Shape:", "", "    sides = 0", "", "    def area(self):", "        return 0.0", "", "", "x = 1"]
    assert now[6] == ""  # a blank line where the commented one was, and others elsewhere
    assert locate(anchor, now) == LOST


def test_a_closing_brace_whose_context_is_gone_is_lost() -> None:
    code = ["int main(void) {", "    if (ready) {", "        go();", "    }", "    return 0;", "}"]
    anchor = capture(code, 4, 4)
    now = ["void stop(void) {", "    while (busy) {", "        wait();", "    }", "}"]
    assert locate(anchor, now) == LOST


def test_an_anchor_without_original_numbers_is_still_found() -> None:
    anchor = capture(FILE, 9, 11)
    anchor.line = anchor.end_line = None
    assert locate(anchor, ["import sys", *FILE]) == Located(10, 12, "moved")


def test_several_anchors_are_located_in_one_pass() -> None:
    anchors = [capture(FILE, 3, 3), LOOP, capture(FILE, 14, 15)]
    now = edited(FILE, 9, removing=3)
    assert locate_all(anchors, now) == [Located(3, 3, "exact"), LOST, Located(11, 12, "moved")]


def big_module(size: int) -> list[str]:
    """Code-like lines, with the blank lines and common statements that real code repeats."""
    lines = []
    for n in range(size):
        if n % 10 == 9:
            lines.append("")
        elif n % 10 == 8:
            lines.append("    return None")
        elif n % 10 == 0:
            lines.append(f"def step_{n}(state):")
        else:
            lines.append(f"    state.value_{n} = compute({n}, state)")
    return lines


def test_many_comments_on_a_large_file_are_all_found() -> None:
    old = big_module(20_000)
    starts = [150 + 396 * k for k in range(50)]  # 1-based, 3 lines each
    anchors = [capture(old, start, start + 2) for start in starts]
    now = list(old)
    expected: list[Located] = []
    shift = 37
    # Edit from the bottom up so that the line numbers above stay valid.
    for k, start in reversed(list(enumerate(starts))):
        if k % 5 == 0:
            now[start] = now[start] + "  # doubled"
            expected.append(Located(start + shift, start + 2 + shift, "changed"))
        elif k % 5 == 1:
            del now[start - 1 : start + 2]
            expected.append(LOST)
        else:
            expected.append(Located(start + shift, start + 2 + shift, "moved"))
    expected.reverse()
    # A cumulative shift from deleted ranges above each later anchor.
    removed_above = 0
    for k, place in enumerate(expected):
        if place.state == "lost":
            removed_above += 3
        elif removed_above:
            assert place.line is not None and place.end_line is not None
            expected[k] = Located(place.line - removed_above, place.end_line - removed_above, place.state)
    now[10:10] = [f"# inserted {n}" for n in range(shift)]
    assert locate_all(anchors, now) == expected
