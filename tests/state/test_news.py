"""News for the agent: a round it has not read, or a reviewer's reply it has not read. A channel
that points to it (the Stop hook, `review watch`) does not make it read; `review pending` and
`review wait` do, and then no channel points to it again."""

from __future__ import annotations

import json
import subprocess

from conftest import Repo
from review.state import comments, news
from review.state.model import Reply
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str) -> str:
    done = subprocess.run(
        [review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def stop(repo: Repo) -> str:
    """The reason the Stop hook blocks with; empty when it lets the agent stop."""
    event = json.dumps({"hook_event_name": "Stop", "cwd": str(repo.root), "stop_hook_active": False})
    done = subprocess.run(
        [review_command(), "hook", "claude"],
        input=event,
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    return str(json.loads(done.stdout)["reason"]) if done.stdout else ""


def asked(repo: Repo) -> Repo:
    """The agent was told of a review of one comment and asked the reviewer about it."""
    review(repo, "comment", "src/app.py:5", "-m", "Why double it?")
    review(repo, "send")
    review(repo, "pending")
    review(repo, "reply", "c1", "-m", "Should it be tripled?")
    return repo


def test_the_reviewers_answer_blocks_the_stop_until_it_is_read(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    assert stop(agent_worktree) == ""  # the agent's own reply is no news
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    reason = stop(agent_worktree)
    assert " pending  # The reviewer answered you on c1." in reason and " reply ID -m " in reason
    assert stop(agent_worktree) == reason  # pointed to, not read: pointed to again
    assert Store(agent_worktree.root).read().comment("c1").thread[1].delivered_at is None
    review(agent_worktree, "pending")
    assert Store(agent_worktree.root).read().comment("c1").thread[1].delivered_at is not None
    assert stop(agent_worktree) == ""


def test_news_is_pointed_to_at_most_three_times(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    assert all(stop(agent_worktree) for _ in range(3))
    assert stop(agent_worktree) == ""
    reply = Store(agent_worktree.root).read().comment("c1").thread[1]
    assert (reply.delivered_at, [n.channel for n in reply.notices]) == (None, ["stop-hook"] * 3)
    assert news.delivery(Store(agent_worktree.root).read()) == news.Delivery(
        "not read", 3, ("stop-hook",), reply.notices[-1].at
    )
    # A new reply is new news, pointed to afresh.
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "Did you see this?")
    assert "answered you on c1" in stop(agent_worktree)


def test_pending_marks_the_reviewers_reply_new_until_the_agent_answers(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    text = review(agent_worktree, "pending")
    assert "The reviewer answered you on c1: the new replies are marked **New:**." in text
    assert "\n*agent, " in text and "Should it be tripled?" in text
    assert "\n**New:** *reviewer, " in text and text.rstrip().endswith('reply c1 -m "..."`')
    assert stop(agent_worktree) == ""  # told once
    assert "**New:** *reviewer, " in review(agent_worktree, "pending")  # still to be answered
    review(agent_worktree, "reply", "c1", "-m", "Halved it is.")
    assert "**New:**" not in review(agent_worktree, "pending")


def test_a_reply_the_hook_told_of_is_marked_new_in_pending(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    assert "answered you on c1" in stop(agent_worktree)
    assert "\n**New:** *reviewer, " in review(agent_worktree, "pending")


def test_pending_json_says_which_replies_are_new(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    data = json.loads(review(agent_worktree, "pending", "--json"))
    assert set(data) == {"worktree", "round", "comments"}
    assert [(r["author"], r["new"]) for r in data["comments"][0]["thread"]] == [("agent", False), ("reviewer", True)]
    review(agent_worktree, "resolve", "c1", "-m", "Halved")
    comments.set_status(Store(agent_worktree.root), "c1", "open")
    again = json.loads(review(agent_worktree, "pending", "--json"))
    assert [r["new"] for r in again["comments"][0]["thread"]] == [False, False, False]


def test_an_answer_on_an_addressed_comment_is_no_news_until_it_is_reopened(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "resolve", "c1", "-m", "Tripled it")
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "I said halved.")
    assert stop(agent_worktree) == ""  # the reviewer's move: resolve it, or reopen it
    assert review(agent_worktree, "pending") == ""
    comments.set_status(Store(agent_worktree.root), "c1", "open")
    assert "answered you on c1" in stop(agent_worktree)
    assert "I said halved." in review(agent_worktree, "pending")


def test_an_answer_on_a_resolved_comment_is_no_news(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "Fine, leave it.")
    comments.set_status(Store(agent_worktree.root), "c1", "resolved")
    assert stop(agent_worktree) == ""
    assert review(agent_worktree, "pending") == ""


def test_a_reply_on_a_draft_goes_with_its_round(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "And why here?")
    assert stop(agent_worktree) == ""
    review(agent_worktree, "send")
    assert "1 review comment waits for you" in stop(agent_worktree)
    review(agent_worktree, "pending")
    assert stop(agent_worktree) == ""


def test_a_reply_the_agent_answered_after_is_no_news(agent_worktree: Repo) -> None:
    # As in a file written before replies were delivered: nothing recorded, but the agent answered.
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    review(agent_worktree, "send")
    review(agent_worktree, "pending")

    def converse(current):  # type: ignore[no-untyped-def]
        current.comment("c1").thread += [Reply(author="reviewer", body="Well?"), Reply(author="agent", body="Spec.")]

    Store(agent_worktree.root).update(converse)
    assert stop(agent_worktree) == ""


def test_an_approval_does_not_interrupt_the_agent(agent_worktree: Repo) -> None:
    # Nothing to fix: only `review wait` and `review pending` tell of it.
    review(agent_worktree, "send", "--approve", "-m", "Ship it")
    assert stop(agent_worktree) == ""
    assert Store(agent_worktree.root).read().rounds[0].delivered_at is None


def test_pending_shows_an_approval_it_was_not_told_of(agent_worktree: Repo) -> None:
    review(agent_worktree, "send", "--approve", "-m", "Ship it")
    text = review(agent_worktree, "pending")
    assert "approved" in text and "> Ship it" in text and "Nothing to change." in text
    assert review(agent_worktree, "pending") == ""
    assert stop(agent_worktree) == ""


def test_a_new_round_and_an_answer_are_told_together(agent_worktree: Repo) -> None:
    asked(agent_worktree)
    review(agent_worktree, "reply", "c1", "--as", "reviewer", "-m", "No, halved.")
    review(agent_worktree, "comment", "src/app.py:30", "-m", "And this one?")
    review(agent_worktree, "send")
    reason = stop(agent_worktree)
    assert "# 2 review comments wait for you on this worktree; the reviewer answered you on c1. " in reason
    review(agent_worktree, "pending", "--json")
    assert stop(agent_worktree) == ""
