"""`review note`, run as a process: the agent's note on lines, on a file, on the whole change."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [review_command(), *args], cwd=cwd or repo.root, capture_output=True, text=True, timeout=60, check=False
    )


def ok(repo: Repo, *args: str, cwd: Path | None = None) -> str:
    done = review(repo, *args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_note_on_lines_prints_its_id_and_anchors_it_as_a_comment_is(agent_worktree: Repo) -> None:
    assert ok(agent_worktree, "note", "src/app.py:29-31", "-m", "Doubled: the spec says so").strip() == "n1"
    [note] = Store(agent_worktree.root).read().comments
    assert (note.author, note.status, note.path, note.line, note.end_line) == ("agent", "note", "src/app.py", 29, 31)
    assert note.anchor is not None and note.anchor.lines[1] == "value_30 = 30 * 2  # doubled"


def test_note_without_a_file_is_on_the_whole_change_and_json_says_where(agent_worktree: Repo) -> None:
    said = json.loads(ok(agent_worktree, "note", "-m", "One idea: double the checkpoints", "--json"))
    assert said == {"id": "n1", "path": "", "side": "new", "line": None, "end_line": None}


def test_note_paths_are_relative_to_where_it_runs_and_may_be_on_the_old_side(agent_worktree: Repo) -> None:
    ok(
        agent_worktree,
        "note",
        "app.py:30",
        "--old",
        "-m",
        "Was fine, but see the spec",
        cwd=agent_worktree.root / "src",
    )
    ok(agent_worktree, "note", "docs/guide.md", "-m", "A new guide")
    old, file_level = Store(agent_worktree.root).read().comments
    assert (old.path, old.side, old.line) == ("src/app.py", "old", 30)
    assert (file_level.path, file_level.line, file_level.id) == ("docs/guide.md", None, "n2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("src/app.py:999",), "not in the file"),
        (("missing.py:1",), "missing.py: no such file"),
        (("missing.py",), "missing.py: no such file"),
        (("--old",), "--old names a side of a file"),
    ],
)
def test_bad_note_targets_are_one_line_errors(agent_worktree: Repo, args: tuple[str, ...], message: str) -> None:
    done = review(agent_worktree, "note", *args, "-m", "x")
    assert done.returncode == 1
    assert message in done.stderr and len(done.stderr.splitlines()) == 1
    assert Store(agent_worktree.root).read().comments == []


def test_a_note_is_pending_once_the_reviewer_answers_and_until_the_agent_replies(agent_worktree: Repo) -> None:
    ok(agent_worktree, "note", "src/app.py:5", "-m", "Doubled on purpose")
    assert ok(agent_worktree, "pending") == ""
    ok(agent_worktree, "reply", "n1", "--as", "reviewer", "-m", "Whose purpose?")
    [shown] = json.loads(ok(agent_worktree, "pending", "--json"))["comments"]
    assert (shown["id"], shown["status"], shown["thread"][0]["new"]) == ("n1", "note", True)
    ok(agent_worktree, "reply", "n1", "-m", "The spec's, section 4")
    assert ok(agent_worktree, "pending") == ""


def test_resolving_a_note_is_refused_with_the_command_that_answers_it(agent_worktree: Repo) -> None:
    ok(agent_worktree, "note", "src/app.py:5", "-m", "Doubled on purpose")
    done = review(agent_worktree, "resolve", "n1", "-m", "done")
    assert done.returncode == 1
    assert done.stderr.startswith("review: n1 is your note for the reviewer, not a comment to resolve")
    assert 'reply n1 -m "..."' in done.stderr and len(done.stderr.splitlines()) == 1
    assert Store(agent_worktree.root).read().comments[0].status == "note"


def test_sending_does_not_send_notes(agent_worktree: Repo) -> None:
    ok(agent_worktree, "note", "src/app.py:5", "-m", "Doubled on purpose")
    ok(agent_worktree, "comment", "src/app.py:30", "-m", "And here?")
    assert ok(agent_worktree, "send").startswith("Sent review r1: 1 comment,")
