"""A sent round exported for a chat, as JSON and as a GitHub review, through `review.state.export`."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from conftest import Repo
from review.errors import UnknownRound
from review.repo.text import inert_json
from review.state import comments, export, rounds
from review.state.comments import Where
from review.state.here import Here
from review.state.model import Severity, Verdict

EVIL_CODE = 'fence = "```"  # \x1b[2J\u202eevil'
"""A line of code with a run of backticks, an escape sequence and a bidirectional override."""

# The fields GitHub documents for "Create a review for a pull request"
# (https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request).
REVIEW_FIELDS = {"commit_id", "body", "event", "comments"}
COMMENT_FIELDS = {"path", "position", "body", "line", "side", "start_line", "start_side"}


def comment(
    here: Here,
    path: str,
    line: int | None = None,
    end: int | None = None,
    *,
    old: bool = False,
    severity: Severity = "should",
    body: str = "a comment",
) -> str:
    side = "old" if old else "new"
    where = Where(path, side, line, end if end is not None else line)
    return comments.add(here.store, where, body, severity, here.read(path, side), here.sides.old if old else None).id


def send(repo: Repo, verdict: Verdict = "request_changes", summary: str = "") -> str:
    here = Here(repo.root)
    return rounds.send(here.store, here.worktree, verdict, summary, here.read).id


@dataclass
class Sent:
    """A worktree with one sent round of every kind of comment, and the ids of its comments."""

    repo: Repo
    new: str
    old: str
    range: str
    file: str
    moved: str
    lost: str
    evil: str

    def export(self, round: str | None = None) -> tuple[Here, export.Round, list[export.Instruction]]:
        here = Here(self.repo.root)
        review = here.reanchored()
        sent = export.chosen_round(review, round)
        return here, sent, export.gather(review, sent, here.read)


@pytest.fixture
def sent(agent_worktree: Repo) -> Sent:
    agent_worktree.write("src/evil.py", f"ok = 1\n{EVIL_CODE}\nok = 2\n")
    here = Here(agent_worktree.root)
    made = Sent(
        agent_worktree,
        new=comment(here, "src/app.py", 5, severity="must", body="Why double it? \x1b[31mred\x1b[0m"),
        old=comment(here, "src/app.py", 30, old=True, severity="nit", body="This was fine"),
        range=comment(here, "src/app.py", 54, 56, body="One loop would do"),
        file=comment(here, "docs/guide.md", severity="question", body="Is this needed?"),
        moved=comment(here, "src/util.py", 2, body="Name the number"),
        lost=comment(here, "long.txt", 1, body="Too long"),
        evil=comment(here, "src/evil.py", 2, body="Use ``` here?"),
    )
    assert send(agent_worktree, summary="Two things \x1b[2J first") == "r1"
    comments.reply(here.store, made.new, "agent", "Done\x1b]0;pwned\x07, see ````")
    comments.reply(here.store, made.new, "reviewer", "Thanks")
    comments.resolve(here.store, made.old, "Put it back")
    # After sending, the agent moves the code of one comment and deletes that of another.
    agent_worktree.write("src/util.py", "import os\n\n\ndef helper():\n    return 42\n")
    agent_worktree.write("long.txt", "short now\n")
    return made


def test_the_latest_round_is_exported_unless_another_is_named(sent: Sent) -> None:
    here = Here(sent.repo.root)
    later = comment(here, "src/app.py", 1, body="Later")
    assert send(sent.repo) == "r2"
    _, latest, items = sent.export()
    assert (latest.id, [item.comment.id for item in items]) == ("r2", [later])
    _, first, items = sent.export("r1")
    assert first.id == "r1" and later not in {item.comment.id for item in items}


def test_an_unknown_round_is_an_error_that_names_the_rounds_sent(sent: Sent) -> None:
    with pytest.raises(UnknownRound, match=r"no round 'r9' in this worktree's review \(sent: r1\)"):
        sent.export("r9")


def test_no_round_sent_yet_is_an_error(project: Repo) -> None:
    with pytest.raises(UnknownRound, match="no review has been sent"):
        export.chosen_round(Here(project.root).reanchored(), None)


def test_a_round_keeps_every_comment_sent_in_it_whatever_its_status(sent: Sent) -> None:
    _, _, items = sent.export()
    statuses = {item.comment.id: item.comment.status for item in items}
    assert set(statuses) == {sent.new, sent.old, sent.range, sent.file, sent.moved, sent.lost, sent.evil}
    assert statuses[sent.old] == "addressed" and statuses[sent.new] == "open"


def test_markdown_names_the_worktree_branch_round_verdict_and_summary(sent: Sent) -> None:
    here, round, items = sent.export()
    text = export.markdown(here.worktree, round, items)
    assert text.startswith("# Review of agent (agent/work): round r1, changes requested\n\nSent ")
    assert "7 comments" in text
    assert "\n> Two things ^[[2J first\n" in text


def test_markdown_gives_each_comment_its_lines_as_the_file_is_now(sent: Sent) -> None:
    here, round, items = sent.export()
    text = export.markdown(here.worktree, round, items)
    assert f"### {sent.new} · must · line 5 · open\n" in text
    assert f"### {sent.old} · nit · line 30 of the old version (removed code) · addressed\n" in text
    assert f"### {sent.range} · should · lines 54-56 · open\n" in text
    assert f"### {sent.file} · question · the whole file · open\n" in text
    assert f"### {sent.moved} · should · line 5 (moved since the comment was written) · open\n" in text
    assert f"### {sent.lost} · should · the code it was on is gone from the file; it is quoted as it was · open" in text


def test_markdown_groups_by_file_and_quotes_the_code_now(sent: Sent) -> None:
    here, round, items = sent.export()
    text = export.markdown(here.worktree, round, items)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## docs/guide.md", "## long.txt", "## src/app.py", "## src/evil.py", "## src/util.py"]
    assert "```\n 4 def helper():\n>5     return 42\n```" in text  # the quote follows the code
    assert "```\n>start " in text  # the lost comment's code, as it was


def test_markdown_shows_hostile_text_inert_and_fences_it(sent: Sent) -> None:
    here, round, items = sent.export()
    text = export.markdown(here.worktree, round, items)
    assert not any(char in text for char in "\x1b\x07\u202e")
    assert '>2 fence = "```"  # ^[[2J<U+202E>evil' in text
    assert '````\n 1 ok = 1\n>2 fence = "```"' in text  # a fence longer than the code's backticks
    assert "Why double it? ^[[31mred^[[0m" in text
    assert "*agent, " in text and ":*\n> Done^[]0;pwned^G, see ````" in text


def test_markdown_for_people_does_not_tell_the_agent_how_to_answer(sent: Sent) -> None:
    here, round, items = sent.export()
    text = export.markdown(here.worktree, round, items)
    assert "Answer:" not in text and "**New:**" not in text


def test_json_has_the_fields_of_pending_with_each_comments_status(sent: Sent) -> None:
    here, round, items = sent.export()
    document = json.loads(inert_json(export.as_json(here.worktree, round, items)))
    assert set(document) == {"worktree", "round", "comments"}
    assert document["round"]["id"] == "r1" and document["round"]["verdict"] == "request_changes"
    by_id = {found["id"]: found for found in document["comments"]}
    assert set(by_id[sent.moved]) == {
        "id",
        "path",
        "side",
        "line",
        "end_line",
        "severity",
        "status",
        "anchor_state",
        "body",
        "code",
        "thread",
    }
    assert (by_id[sent.moved]["line"], by_id[sent.moved]["anchor_state"]) == (5, "moved")
    assert (by_id[sent.old]["side"], by_id[sent.old]["status"]) == ("old", "addressed")
    assert by_id[sent.evil]["code"] == [EVIL_CODE]  # faithful in JSON, and inert when printed:
    assert "\x1b" not in inert_json(export.as_json(here.worktree, round, items))


def test_github_review_has_only_the_documented_fields(sent: Sent) -> None:
    here, round, items = sent.export()
    review = export.github(round, items, here.worktree.head)
    assert set(review) == REVIEW_FIELDS
    assert (review["event"], review["commit_id"]) == ("REQUEST_CHANGES", here.worktree.head)
    for line_comment in review["comments"]:
        assert set(line_comment) <= COMMENT_FIELDS
        assert {"path", "body", "line", "side"} <= set(line_comment)


def test_github_comments_are_on_the_lines_of_each_side_now(sent: Sent) -> None:
    here, round, items = sent.export()
    review = export.github(round, items, here.worktree.head)
    by_line = {(c["path"], c["line"], c["side"]): c for c in review["comments"]}
    assert set(by_line) == {
        ("src/app.py", 5, "RIGHT"),
        ("src/app.py", 30, "LEFT"),
        ("src/app.py", 56, "RIGHT"),
        ("src/evil.py", 2, "RIGHT"),
        ("src/util.py", 5, "RIGHT"),
    }
    ranged = by_line[("src/app.py", 56, "RIGHT")]
    assert (ranged["start_line"], ranged["start_side"]) == (54, "RIGHT")
    assert "start_line" not in by_line[("src/app.py", 5, "RIGHT")]


def test_github_comment_bodies_start_with_the_severity_and_carry_the_thread(sent: Sent) -> None:
    here, round, items = sent.export()
    review = export.github(round, items, here.worktree.head)
    body = next(c["body"] for c in review["comments"] if c["line"] == 5)
    first, agent, reviewer = body.split("\n\n")
    assert first == "**must:** Why double it? ^[[31mred^[[0m"
    assert agent.startswith("*agent, ") and agent.endswith(":* Done^[]0;pwned^G, see ````")
    assert reviewer.startswith("*reviewer, ") and reviewer.endswith(":* Thanks")
    assert next(c["body"] for c in review["comments"] if c["side"] == "LEFT").startswith("**nit:** This was fine")


def test_github_review_body_holds_the_summary_and_the_comments_off_the_lines(sent: Sent) -> None:
    here, round, items = sent.export()
    body = export.github(round, items, here.worktree.head)["body"]
    summary, file_level, lost = body.split("\n\n", 2)
    assert summary == "Two things ^[[2J first"
    assert file_level == "On the whole of `docs/guide.md`: **question:** Is this needed?"
    assert lost.startswith("On `long.txt`, code that is gone from the file now:\n\n```\n>start xxx")
    assert lost.endswith("```\n\n**should:** Too long")


@pytest.mark.parametrize(
    ("verdict", "event"), [("approve", "APPROVE"), ("comment", "COMMENT"), ("request_changes", "REQUEST_CHANGES")]
)
def test_the_verdict_becomes_the_event(project: Repo, verdict: Verdict, event: str) -> None:
    here = Here(project.root)
    comment(here, "src/app.py", 3)
    send(project, verdict)
    review = here.reanchored()
    round = export.chosen_round(review, None)
    made = export.github(round, export.gather(review, round, here.read))
    assert made["event"] == event
    assert "commit_id" not in made  # only when known
    # GitHub refuses a review that requests changes or comments without a body.
    assert made["body"] == "Review r1: see the comments on the lines."
