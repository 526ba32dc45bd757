"""The review's one word (`Review.state`), which the overview, its JSON and the review's header all
say: whose turn it is and what the last round came to."""

from __future__ import annotations

import time

from conftest import Repo
from review.repo.git import find_worktree
from review.repo.lines import FileReader
from review.state import comments, requests, rounds
from review.state.comments import Where
from review.state.model import Verdict
from review.state.store import Store

LINES = [f"line {n}" for n in range(1, 21)]


def never() -> float | None:
    return None


def send(project: Repo, verdict: Verdict = "request_changes", summary: str = "") -> None:
    worktree = find_worktree(project.root)
    rounds.send(Store(project.root), worktree, verdict, summary, FileReader(worktree, "HEAD"))


def draft(project: Repo, body: str = "rename this") -> str:
    return comments.add(Store(project.root), Where("src/app.py", line=3), body, "should", LINES).id


def state(project: Repo, last_change=never) -> str:  # type: ignore[no-untyped-def]
    return Store(project.root).read().state(last_change)


def test_a_review_goes_from_none_to_drafts_to_sent(project: Repo) -> None:
    assert state(project) == "none"
    draft(project)
    assert state(project) == "drafts"
    send(project)
    assert state(project) == "sent"


def test_the_agent_answering_every_open_comment_makes_it_answered(project: Repo) -> None:
    first, second = draft(project), draft(project, "and this")
    send(project)
    store = Store(project.root)
    comments.reply(store, first, "agent", "Renamed.")
    assert state(project) == "sent"  # one still waits on the agent
    comments.reply(store, second, "agent", "Done too.")
    assert state(project) == "answered"
    comments.reply(store, second, "reviewer", "Not quite.")
    assert state(project) == "sent"  # the reviewer spoke last: the agent's turn again


def test_comments_resolved_by_the_agent_make_it_addressed(project: Repo) -> None:
    id = draft(project)
    send(project)
    comments.resolve(Store(project.root), id, "Renamed.")
    assert state(project) == "addressed"


def test_an_approval_stands_only_with_nothing_open(project: Repo) -> None:
    draft(project)
    send(project, "approve")
    assert state(project) == "sent"  # its comment is still the agent's to deal with
    send(project, "approve", "Good to go.")
    assert state(project) != "approved"
    comments.set_status(Store(project.root), "c1", "resolved")
    assert state(project) == "approved"


def test_a_summary_alone_is_sent_until_the_work_changes(project: Repo) -> None:
    send(project, "request_changes", "Split the module in two.")
    assert state(project) == "sent"
    assert state(project, lambda: time.time() - 3600) == "sent"  # changed before it was sent
    assert state(project, lambda: time.time() + 5) == "addressed"


def test_a_request_is_said_unless_the_reviewer_has_drafts(project: Repo) -> None:
    requests.ask(Store(project.root), "ready for a look")
    assert state(project) == "requested"
    draft(project)
    assert state(project) == "drafts"
