"""The round trip from the command line: comment, send, pending, reply, resolve, as processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.repo import git, scope
from review.repo.scope import Scope
from review.state import rounds
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [review_command(), *args], cwd=cwd or repo.root, capture_output=True, text=True, timeout=60, check=False
    )


def ok(repo: Repo, *args: str) -> str:
    done = review(repo, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def worked(agent_worktree: Repo) -> Repo:
    return agent_worktree


def test_comment_prints_the_new_id_and_saves_a_draft(worked: Repo) -> None:
    assert ok(worked, "comment", "src/app.py:5", "-m", "Why double it?").strip() == "c1"
    assert ok(worked, "comment", "src/app.py:29-31", "--severity", "must", "-m", "Range").strip() == "c2"
    [first, second] = Store(worked.root).read().comments
    assert (first.path, first.side, first.line, first.end_line, first.status) == ("src/app.py", "new", 5, 5, "draft")
    assert first.anchor is not None and first.anchor.lines == ["value_5 = 5 * 2  # doubled"]
    assert (second.line, second.end_line, second.severity) == (29, 31, "must")


def test_comment_on_a_whole_file_and_on_the_old_side(worked: Repo) -> None:
    ok(worked, "comment", "docs/guide.md", "-m", "Is this needed?")
    ok(worked, "comment", "src/app.py:30", "--old", "-m", "This was fine")
    file_level, old = Store(worked.root).read().comments
    assert file_level.line is None and file_level.anchor is None
    assert (old.side, old.line) == ("old", 30)
    assert old.anchor is not None and old.anchor.lines == ["value_30 = 30"]


def test_comment_paths_are_relative_to_where_it_runs(worked: Repo) -> None:
    done = review(worked, "comment", "app.py:2", "-m", "From inside src", cwd=worked.root / "src")
    assert done.returncode == 0, done.stderr
    assert Store(worked.root).read().comments[0].path == "src/app.py"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("src/app.py:999", "not in the file"),
        ("src/app.py:5-3", "not a range"),
        ("../elsewhere.py:1", "not inside the worktree"),
        ("missing.py:1", "missing.py: no such file"),
        ("missing.py", "missing.py: no such file"),
    ],
)
def test_bad_comment_targets_are_one_line_errors(worked: Repo, target: str, message: str) -> None:
    done = review(worked, "comment", target, "-m", "x")
    assert done.returncode == 1
    assert message in done.stderr and len(done.stderr.splitlines()) == 1
    assert Store(worked.root).read().comments == []


def test_send_makes_a_round_with_a_snapshot_and_instructions(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "--severity", "must", "-m", "Why double it?")
    ok(worked, "comment", "src/util.py:2", "-m", "Name the number")
    out = ok(worked, "send", "-m", "Two things", "--request-changes")
    assert out.strip() == "Sent review r1: 2 comments, request changes."
    review_state = Store(worked.root).read()
    [sent] = review_state.rounds
    assert (sent.verdict, sent.summary, sent.comment_ids) == ("request_changes", "Two things", ["c1", "c2"])
    assert all(c.status == "open" and c.round == "r1" for c in review_state.comments)
    ref = worked.git("rev-parse", "refs/review/agent/r1").strip()
    assert ref == sent.snapshot
    # the snapshot holds the untracked file as it was
    assert worked.git("show", f"{ref}:docs/guide.md") == "# Guide\n\nHow to use it.\n"
    text = (worked.root / ".review" / "instructions.md").read_text()
    assert "Why double it?" in text and "review resolve c1" in text
    assert worked.git("status", "--porcelain", "--", ".review") == ""


def test_sending_nothing_is_refused(worked: Repo) -> None:
    done = review(worked, "send")
    assert done.returncode == 1
    assert "nothing to send" in done.stderr


def test_an_approval_needs_no_comments(worked: Repo) -> None:
    assert ok(worked, "send", "--approve").startswith("Sent review r1: 0 comments, approve")


def test_pending_is_silent_when_nothing_is_open(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "-m", "a draft is not pending")
    done = review(worked, "pending")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_pending_gives_precise_instructions(worked: Repo) -> None:
    ok(worked, "comment", "src/util.py:2", "--severity", "nit", "-m", "Name the number")
    ok(worked, "comment", "src/app.py:5", "--severity", "must", "-m", "Why double it?")
    ok(worked, "comment", "src/app.py:30", "--severity", "should", "-m", "And this one?")
    ok(worked, "send", "-m", "Please look")
    text = ok(worked, "pending")
    assert text.startswith("# Review of agent: round r1, comments\n")
    assert "> Please look" in text
    # by file in diff order, must before should
    assert text.index("## src/app.py") < text.index("## src/util.py")
    assert text.index("### c2 · must · line 5") < text.index("### c3 · should · line 30")
    # the code is quoted with a line of context on each side, the commented line marked
    assert "```\n 4 value_4 = 4\n>5 value_5 = 5 * 2  # doubled\n 6 value_6 = 6\n```" in text
    assert 'review resolve c2 -m "..."' in text and 'review reply c2 -m "..."' in text


def test_pending_json_follows_the_contract(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:29-31", "--severity", "must", "-m", "Range")
    ok(worked, "send", "-m", "Summary")
    data = json.loads(ok(worked, "pending", "--json"))
    assert set(data) == {"worktree", "round", "comments"}
    assert data["worktree"] == str(worked.root.resolve())
    assert set(data["round"]) == {"id", "verdict", "summary", "sent_at"}
    [comment] = data["comments"]
    assert set(comment) == {
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
    assert comment["code"] == ["value_29 = 29", "value_30 = 30 * 2  # doubled", "value_31 = 31"]
    assert (comment["line"], comment["end_line"], comment["anchor_state"]) == (29, 31, "exact")


def test_pending_follows_the_code_the_agent_moved(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:30", "-m", "Why double it?")
    ok(worked, "send")
    app = worked.root / "src" / "app.py"
    app.write_text("# header\n# more\n" + app.read_text())
    [comment] = json.loads(ok(worked, "pending", "--json"))["comments"]
    assert (comment["line"], comment["anchor_state"]) == (32, "moved")
    assert comment["code"] == ["value_30 = 30 * 2  # doubled"]
    assert Store(worked.root).read().comments[0].line == 32


def test_a_comment_whose_code_is_gone_is_shown_at_file_level(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:30", "-m", "Why double it?")
    ok(worked, "send")
    app = worked.root / "src" / "app.py"
    app.write_text("".join(line for line in app.read_text().splitlines(keepends=True) if "value_30" not in line))
    [comment] = json.loads(ok(worked, "pending", "--json"))["comments"]
    assert (comment["line"], comment["anchor_state"]) == (None, "lost")
    assert comment["code"] == ["value_30 = 30 * 2  # doubled"]
    assert "the code it was on is gone" in ok(worked, "pending")


def test_reply_and_resolve_answer_the_comment(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "-m", "Why double it?")
    ok(worked, "send")
    said = ok(worked, "reply", "c1", "-m", "Because the spec says so")
    assert said.startswith("Replied to c1. `") and said.endswith(" wait` waits for the reviewer's answer.\n")
    assert ok(worked, "resolve", "c1", "-m", "Added a comment explaining it").strip() == "Marked c1 addressed."
    [comment] = Store(worked.root).read().comments
    assert comment.status == "addressed"
    assert [(r.author, r.body) for r in comment.thread] == [
        ("agent", "Because the spec says so"),
        ("agent", "Added a comment explaining it"),
    ]
    assert ok(worked, "pending") == ""


def test_the_reviewer_can_reply_from_the_command_line(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "-m", "Why?")
    ok(worked, "reply", "c1", "--as", "reviewer", "-m", "To be clear: the doubling")
    assert Store(worked.root).read().comments[0].thread[0].author == "reviewer"


def test_resolving_a_draft_or_an_unknown_comment_is_refused(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "-m", "Why double it?")
    done = review(worked, "resolve", "c1")
    assert done.returncode == 1 and "is a draft" in done.stderr
    done = review(worked, "resolve", "c9")
    assert done.returncode == 1 and done.stderr == "review: no comment 'c9' in this worktree's review\n"


def test_verbs_act_on_the_worktree_given_with_c(worked: Repo, tmp_path: Path) -> None:
    done = subprocess.run(
        [review_command(), "comment", "-C", str(worked.root), "src/app.py:5", "-m", "from elsewhere"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert Store(worked.root).read().comments[0].path == "src/app.py"


def test_an_unreadable_review_file_is_never_overwritten(worked: Repo) -> None:
    (worked.root / ".review").mkdir()
    broken = worked.root / ".review" / "review.json"
    broken.write_text("{not json")
    done = review(worked, "comment", "src/app.py:5", "-m", "x")
    assert done.returncode == 1
    assert str(broken) in done.stderr and len(done.stderr.splitlines()) == 1
    assert broken.read_text() == "{not json"


def test_since_review_compares_with_the_snapshot_sent(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:5", "-m", "Why?")
    ok(worked, "send")
    worked.write("src/util.py", "def helper():\n    return 43\n")
    worked.write("new_after_review.txt", "new\n")
    since = rounds.last_sent(Store(worked.root))
    _, diff = scope.load(git.find_worktree(worked.root), Scope(since_review=True), since)
    assert sorted(f.path for f in diff.files) == ["new_after_review.txt", "src/util.py"]


def test_since_review_before_any_review_is_one_clear_line(worked: Repo) -> None:
    done = review(worked, "--since-review")
    assert done.returncode == 1
    assert "no review has been sent" in done.stderr


def test_a_comment_follows_its_file_when_the_agent_renames_it(worked: Repo) -> None:
    ok(worked, "comment", "src/app.py:30", "-m", "Why double it?")
    ok(worked, "send")
    worked.git("mv", "src/app.py", "src/values.py")
    [comment] = json.loads(ok(worked, "pending", "--json"))["comments"]
    assert (comment["path"], comment["line"], comment["anchor_state"]) == ("src/values.py", 30, "exact")
    assert comment["code"] == ["value_30 = 30 * 2  # doubled"]
    stored = Store(worked.root).read().comments[0]
    assert (stored.path, stored.old_path) == ("src/values.py", "src/app.py")
