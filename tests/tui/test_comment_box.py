"""Unit tests of a comment's box: whatever it holds, each line fits the width it is drawn in."""

from __future__ import annotations

import pytest
from rich.style import Style

from review.state.model import Comment, Reply
from review.tui.comment_box import INDENT, BoxStyles, box_lines

STYLES = BoxStyles(**{name: Style(color="red") for name in BoxStyles._fields})

BODIES = [
    "short",
    "a line of plain words that goes on well past any narrow pane " * 3,
    "```\ncode_without_spaces_" + "x" * 120 + "\n```",
    "漢字の行は一文字が二つのセルを取ります。" * 6,
    "tab\tand\x1b[31m escape",
]


@pytest.mark.parametrize("width", [20, 33, 60, 120])
@pytest.mark.parametrize("status", ["draft", "open", "addressed", "resolved"])
@pytest.mark.parametrize("body", BODIES)
def test_every_line_of_a_box_fits_its_width(width: int, status: str, body: str) -> None:
    comment = Comment(
        id="c12",
        path="src/a_rather_long_folder_name/and_a_file_name_to_match.py",
        line=120,
        end_line=135,
        body=body,
        status=status,  # type: ignore[arg-type]
        thread=[Reply(author="agent", body="done: " + body), Reply(author="reviewer", body="thanks")],
    )
    lines = box_lines(comment, width, STYLES)
    assert all(line.cell_len <= width - INDENT for line in lines)
    assert "c12" in lines[0].plain
    if status != "resolved":
        assert lines[-1].plain.startswith("└─")
        assert all(line.plain.startswith("│ ") for line in lines[1:-1])
        assert "\x1b" not in "".join(line.plain for line in lines)


def test_a_box_wide_enough_keeps_every_word() -> None:
    body = "a line of plain words that goes on well past any narrow pane"
    lines = box_lines(Comment(id="c1", path="a.py", line=1, body=body), 200, STYLES)
    assert lines[1].plain == "│ " + body
