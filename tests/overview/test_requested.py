"""A worktree whose agent asked for a review (`review request`): it waits on the reviewer, with what
the agent said and since when, in the rows, the queue, `review status` and its JSON, and it calls
for the reviewer's attention."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.agents import activity
from review.overview.attention import calls
from review.overview.rows import Row
from review.overview.status import Overview, queue, row_json, stamp
from review.overview.table import table
from review.repo import scope
from review.repo.git import find_worktree
from review.repo.lines import FileReader
from review.state import comments, requests, rounds
from review.state.comments import Where
from review.state.model import Review
from review.state.store import Store


@pytest.fixture
def working(project: Repo) -> Repo:
    """A worktree with a change, whose agent is at work (as its hooks said): it waits on the agent."""
    made = project.worktree("agent", "agent/work")
    made.write("src/app.py", "changed\n")
    activity.record(made.root, "working", "claude", "UserPromptSubmit")
    return made


def row_of(overview: Overview, tree: Repo) -> Row:
    return {row.path: row for row in overview.read_all()}[tree.root]


def ask(tree: Repo, message: str, ago: float | None = None) -> None:
    """The agent asks for a review, `ago` seconds ago (default: now)."""
    store = Store(tree.root)
    requests.ask(store, message)
    if ago is not None:

        def earlier(review: Review) -> None:
            assert review.request is not None
            review.request.at = str(stamp(time.time() - ago))

        store.update(earlier)


def send(tree: Repo, *, comment: bool) -> None:
    worktree = find_worktree(tree.root)
    store = Store(worktree.root)
    read = FileReader(worktree, scope.resolve(worktree, scope.Scope()).old)
    if comment:
        comments.add(store, Where("src/app.py", line=1), "why?", "should", read("src/app.py", "new"))
    rounds.send(store, worktree, "comment", "", read)


def test_without_a_request_work_in_progress_waits_on_the_agent(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    row = row_of(overview(project.root), working)
    assert (row.review_state, row.waits_on, row.request) == ("none", "agent", None)


def test_a_request_makes_the_worktree_wait_on_the_reviewer_with_what_the_agent_said(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "The parser is done.\nLook at the error paths first.", ago=600)
    row = row_of(overview(project.root), working)
    assert (row.review_state, row.waits_on) == ("requested", "reviewer")
    assert row.reason == "the agent asks for a review: The parser is done."
    assert row.request == "The parser is done.\nLook at the error paths first."
    assert row.requested_at is not None and abs(time.time() - 600 - row.requested_at) < 5


def test_a_request_without_a_message_says_so_in_a_few_words(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "")
    row = row_of(overview(project.root), working)
    assert (row.waits_on, row.reason, row.request) == ("reviewer", "the agent asks for a review", "")


def test_a_long_message_is_cut_in_the_reason_and_kept_whole_in_the_row(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "x" * 200)
    row = row_of(overview(project.root), working)
    assert row.reason == "the agent asks for a review: " + "x" * 59 + "…"
    assert row.request == "x" * 200


def test_a_request_with_comments_still_open_waits_on_the_reviewer(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    send(working, comment=True)
    assert row_of(overview(project.root), working).waits_on == "agent"
    ask(working, "c1 cannot be done as asked; see my reply")
    row = row_of(overview(project.root), working)
    assert (row.review_state, row.waits_on, row.open_comments) == ("requested", "reviewer", 1)


def test_the_reviewers_drafts_keep_their_state_and_the_request_gives_the_reason(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "ready")
    worktree = find_worktree(working.root)
    read = FileReader(worktree, scope.resolve(worktree, scope.Scope()).old)
    comments.add(Store(working.root), Where("src/app.py", line=1), "hm", "nit", read("src/app.py", "new"))
    row = row_of(overview(project.root), working)
    assert (row.review_state, row.waits_on, row.reason) == ("drafts", "reviewer", "the agent asks for a review: ready")


def test_a_round_sent_after_the_request_answers_it(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "ready")
    send(working, comment=True)
    row = row_of(overview(project.root), working)
    assert (row.review_state, row.waits_on, row.request, row.requested_at) == ("sent", "agent", None, None)


def test_the_queue_counts_a_request_from_when_it_was_made(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    # `other` waits since its edit ten minutes ago; the agent of `working` asked an hour ago and
    # edited since: it has waited longer.
    other = project.worktree("other", "agent/other")
    edited = other.write("notes.md", "notes\n")
    then = time.time() - 600
    os.utime(edited, (then, then))
    ask(working, "ready", ago=3600)
    rows = overview(project.root).read_all()
    assert [row.name for row in queue(rows)] == ["agent", "other"]
    asked = next(row for row in rows if row.name == "agent")
    assert asked.waiting_since == asked.requested_at


def test_status_json_gives_the_request_and_null_without_one(
    working: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    ask(working, "ready\nsecond line", ago=60)
    opened = overview(project.root)
    opened.read_all()
    by_name = {row["name"]: row for row in opened.as_json()["worktrees"]}
    asked = by_name["agent"]
    assert asked["requested"] == {"message": "ready\nsecond line", "at": asked["waiting_since"]}
    assert (asked["review_state"], asked["waits_on"]) == ("requested", "reviewer")
    assert by_name["repo"]["requested"] is None


def test_the_table_shows_the_request_inert(working: Repo, project: Repo, overview: Callable[[Path], Overview]) -> None:
    ask(working, "done \x1b[31mred\x1b[0m")
    text = table(overview(project.root).read_all())
    (line,) = [line for line in text.splitlines() if line.startswith("agent ")]
    assert "requested" in line
    assert "reviewer: the agent asks for a review: done ^[[31mred^[[0m" in line
    assert "\x1b" not in text


# What calls for the reviewer


def row(**fields: Any) -> Row:
    return Row(path=Path("/work/a"), name="a", branch="agent/a", head="0" * 40, **fields)


READY = row(review_state="none", waits_on="reviewer", reason="ready for review", files=2)


def asked(before: Row, message: str, at: float) -> Row:
    return dataclasses.replace(
        before, review_state="requested", waits_on="reviewer", reason="the agent asks", request=message, requested_at=at
    )


def says(was: Row, now: Row) -> list[str]:
    return [call.says for call in calls({was.path: was}, [now])]


def test_a_request_calls_even_when_the_worktree_already_waited_on_the_reviewer() -> None:
    assert says(READY, asked(READY, "done", 1000.0)) == ["the agent asks for a review"]


def test_the_same_request_read_again_does_not_call() -> None:
    standing = asked(READY, "done", 1000.0)
    assert says(standing, standing) == []


def test_a_newer_request_calls_again() -> None:
    assert says(asked(READY, "done", 1000.0), asked(READY, "done", 1060.0)) == ["the agent asks for a review"]
    assert says(asked(READY, "done", 1000.0), asked(READY, "fixed", 1000.0)) == ["the agent asks for a review"]


def test_a_request_answered_calls_for_nothing() -> None:
    sent = dataclasses.replace(READY, review_state="sent", waits_on="agent", reason="comments to address")
    assert says(asked(READY, "done", 1000.0), sent) == []


def test_the_row_json_writes_the_request_time_as_the_review_file_does() -> None:
    assert row_json(asked(READY, "done", 1_800_000_000.0))["requested"] == {
        "message": "done",
        "at": "2027-01-15T08:00:00Z",
    }
