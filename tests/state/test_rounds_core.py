"""Sending a review, through `review.state.rounds`."""

from __future__ import annotations

import pytest

from conftest import Repo
from review.errors import NothingToSend, PartlySent
from review.repo.git import Worktree, find_worktree
from review.repo.lines import FileReader
from review.repo.scope import Since
from review.state import comments, rounds
from review.state.comments import Where
from review.state.model import Round, Verdict
from review.state.store import Store

LINES = [f"line {n}" for n in range(1, 21)]


def open_review(project: Repo) -> tuple[Store, Worktree]:
    worktree = find_worktree(project.root)
    return Store(worktree.root), worktree


def send(store: Store, worktree: Worktree, verdict: Verdict = "request_changes", summary: str = "") -> Round:
    return rounds.send(store, worktree, verdict, summary, FileReader(worktree, "HEAD"))


def draft(store: Store) -> str:
    return comments.add(store, Where("src/app.py", line=3), "rename this", "should", LINES).id


def test_sending_makes_the_drafts_open_in_the_new_round(project: Repo) -> None:
    store, worktree = open_review(project)
    id = draft(store)
    sent = send(store, worktree)
    comment = store.read().comment(id)
    assert (sent.id, sent.comment_ids) == ("r1", [id])
    assert (comment.status, comment.round) == ("open", "r1")


def test_the_round_records_a_snapshot_kept_under_a_ref(project: Repo) -> None:
    store, worktree = open_review(project)
    draft(store)
    sent = send(store, worktree)
    assert sent.snapshot is not None
    assert project.git("rev-parse", "refs/review/main/r1").strip() == sent.snapshot


def test_sending_writes_the_round_as_instructions(project: Repo) -> None:
    store, worktree = open_review(project)
    id = draft(store)
    send(store, worktree)
    text = (store.folder / rounds.INSTRUCTIONS).read_text()
    assert f"### {id} · should · line 3" in text


def test_nothing_to_send_without_drafts_summary_or_approval(project: Repo) -> None:
    store, worktree = open_review(project)
    with pytest.raises(NothingToSend):
        send(store, worktree)
    assert store.read().rounds == []


def test_a_summary_alone_is_a_round(project: Repo) -> None:
    store, worktree = open_review(project)
    sent = send(store, worktree, "comment", "looks close")
    assert (sent.summary, sent.comment_ids) == ("looks close", [])


def test_an_approval_alone_is_a_round(project: Repo) -> None:
    store, worktree = open_review(project)
    assert send(store, worktree, "approve").verdict == "approve"


def test_a_round_whose_instructions_cannot_be_written_is_partly_sent(project: Repo) -> None:
    store, worktree = open_review(project)
    id = draft(store)
    (store.folder / rounds.INSTRUCTIONS).mkdir()  # a folder where the file should go
    with pytest.raises(PartlySent, match="review r1 was sent, but cannot write"):
        send(store, worktree)
    assert store.read().comment(id).status == "open"


def test_last_sent_is_none_before_the_first_round(project: Repo) -> None:
    store, _ = open_review(project)
    assert rounds.last_sent(store) is None


def test_last_sent_is_the_latest_round_and_its_snapshot(project: Repo) -> None:
    store, worktree = open_review(project)
    send(store, worktree, "comment", "first")
    second = send(store, worktree, "comment", "second")
    assert rounds.last_sent(store) == Since("r2", second.snapshot)
