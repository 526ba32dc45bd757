"""What agents read, through `review.state.instructions`."""

from __future__ import annotations

from pathlib import Path

from review.state import instructions
from review.state.model import Comment, CommentStatus, Reply, Review, Round, Severity, Side

FILES = {
    "a.py": [f"a {n}" for n in range(1, 11)],
    "b.py": [f"b {n}" for n in range(1, 11)],
    "code.md": ["plain", "use ```python fences``` here", "plain"],
    "evil.py": ["ok", "x = 1\x1b[2J # \u202eevil", "ok"],
}


def read(path: str, side: Side) -> list[str] | None:
    return FILES.get(path)


def comment(
    id: str, path: str, line: int | None, severity: Severity = "should", status: CommentStatus = "open"
) -> Comment:
    return Comment(id=id, path=path, line=line, end_line=line, body=f"about {id}", severity=severity, status=status)


def test_gather_orders_by_file_then_severity_then_line() -> None:
    review = Review(
        comments=[
            comment("c1", "b.py", 1, "must"),
            comment("c2", "a.py", 9, "nit"),
            comment("c3", "a.py", 5, "should"),
            comment("c4", "a.py", 2, "should"),
            comment("c5", "a.py", 7, "must"),
        ]
    )
    assert [item.comment.id for item in instructions.gather(review, read)] == ["c5", "c4", "c3", "c2", "c1"]


def test_gather_leaves_out_comments_that_are_not_open() -> None:
    review = Review(comments=[comment("c1", "a.py", 1, status="draft"), comment("c2", "a.py", 2, status="addressed")])
    assert instructions.gather(review, read) == []


def test_the_quote_shows_a_line_of_context_either_side() -> None:
    [item] = instructions.gather(Review(comments=[comment("c1", "a.py", 5)]), read)
    assert (item.quote.first, item.quote.lines, list(item.quote.commented)) == (4, ["a 4", "a 5", "a 6"], [1])


def test_markdown_quotes_the_summary() -> None:
    sent = Round(id="r1", verdict="comment", summary="first line\n\nsecond line")
    text = instructions.markdown(Path("/w/proj"), sent, [], review="review", always=True)
    assert text == "# Review of proj: round r1, comments\n\n> first line\n>\n> second line\n\nNothing to change.\n"


def test_markdown_is_empty_without_comments_unless_asked() -> None:
    sent = Round(id="r1", verdict="approve")
    assert instructions.markdown(Path("/w/proj"), sent, [], review="review") == ""


def test_the_code_fence_is_longer_than_any_run_of_backticks_in_the_code() -> None:
    items = instructions.gather(Review(comments=[comment("c1", "code.md", 2)]), read)
    text = instructions.markdown(Path("/w/proj"), None, items, review="review")
    assert "\n````\n" in text
    assert "\n```\n" not in text


def test_control_characters_in_the_code_are_shown_inert() -> None:
    items = instructions.gather(Review(comments=[comment("c1", "evil.py", 2)]), read)
    text = instructions.markdown(Path("/w/proj"), None, items, review="review")
    assert "\x1b" not in text and "\u202e" not in text
    assert "x = 1^[[2J # <U+202E>evil" in text


def test_as_json_carries_the_round_and_each_comment() -> None:
    open_comment = comment("c1", "a.py", 5, "must")
    open_comment.thread.append(Reply(author="reviewer", body="still?", at="2026-01-01T00:00:00Z"))
    sent = Round(id="r1", verdict="request_changes", summary="fix", sent_at="2026-01-01T00:00:00Z")
    items = instructions.gather(Review(comments=[open_comment]), read)
    document = instructions.as_json(Path("/w/proj"), sent, items)
    assert document["worktree"] == "/w/proj"
    assert document["round"] == {
        "id": "r1",
        "verdict": "request_changes",
        "summary": "fix",
        "sent_at": "2026-01-01T00:00:00Z",
    }
    [only] = document["comments"]
    assert {key: only[key] for key in ("id", "path", "side", "line", "end_line", "severity", "status")} == {
        "id": "c1",
        "path": "a.py",
        "side": "new",
        "line": 5,
        "end_line": 5,
        "severity": "must",
        "status": "open",
    }
    assert (only["body"], only["code"], only["anchor_state"]) == ("about c1", ["a 5"], "exact")
    assert only["thread"] == [{"author": "reviewer", "body": "still?", "at": "2026-01-01T00:00:00Z", "new": True}]


def test_as_json_has_no_round_before_the_first() -> None:
    assert instructions.as_json(Path("/w/proj"), None, [])["round"] is None


def test_control_characters_in_the_summary_the_comment_and_its_thread_are_shown_inert() -> None:
    hostile = comment("c1", "a.py", 5)
    hostile.body = "first\x1b[31m\nsecond\u202e"
    hostile.thread.append(Reply(author="agent", body="done\x1b]0;title\x07", at="2026-01-01T00:00:00Z"))
    sent = Round(id="r1", verdict="comment", summary="look\x9b2J")
    items = instructions.gather(Review(comments=[hostile]), read)
    text = instructions.markdown(Path("/w/proj"), sent, items, review="review")
    assert "> look\\x9b2J\n" in text
    assert "> first^[[31m\n> second<U+202E>\n" in text
    assert ":*\n> done^[]0;title^G\n" in text
