"""Damaged and foreign review files, met by the real verbs and the viewer: a truncated file, one
that is not JSON or not UTF-8, an unknown or a newer schema, keys from a newer version, a comment
on a file that is gone, a round whose snapshot is gone. Each gets a clear line; the file is never
destroyed or downgraded, and what this version does not know survives its writes."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from conftest import Repo, settle
from review.repo import git
from review.state.store import Store
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from tmux import review_command

VERBS = [
    ("comment", "src/app.py:5", "-m", "a comment"),
    ("note", "src/app.py:5", "-m", "a note"),
    ("reply", "c1", "-m", "an answer"),
    ("resolve", "c1", "-m", "done"),
    ("send", "--approve"),
    ("pending",),
    ("export", "--format", "json"),
]


def review(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60)


def ok(repo: Repo, *args: str) -> str:
    done = review(repo, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def row_of(repo: Repo) -> dict[str, Any]:
    """The worktree's row in `review status --json`."""
    [row] = [row for row in json.loads(ok(repo, "status", "--json"))["worktrees"] if row["path"] == str(repo.root)]
    return row


@pytest.fixture
def reviewed(agent_worktree: Repo) -> Repo:
    """A worktree with a round sent (c1, c2) and a draft (c3): every kind of record in the file."""
    ok(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    ok(agent_worktree, "comment", "src/util.py:2", "-m", "Why 42?")
    ok(agent_worktree, "send", "-m", "first round")
    ok(agent_worktree, "reply", "c1", "-m", "It must be doubled")
    ok(agent_worktree, "comment", "docs/guide.md", "-m", "A draft")
    return agent_worktree


def damaged(whole: bytes) -> dict[str, tuple[bytes, str]]:
    """Damaged versions of a real review file, with the words the error must say."""
    return {
        "truncated early": (whole[:7], "cannot be read"),
        "truncated halfway": (whole[: len(whole) // 2], "cannot be read"),
        "truncated before the last brace": (whole.rstrip()[:-1], "cannot be read"),
        "not JSON": (b"\x00\x01garbage\xff" * 20, "cannot be read"),
        "not UTF-8": (whole.replace(b"Why", b"\xff\xfe", 1), "not UTF-8"),
        "a list": (b"[]\n", "not an object"),
        "an unknown schema": (whole.replace(b'"review/1"', b'"reviews/7"', 1), "unknown schema 'reviews/7'"),
        "a newer schema": (whole.replace(b'"review/1"', b'"review/2"', 1), "newer version of review"),
    }


def test_every_verb_refuses_a_damaged_file_in_one_line_and_leaves_it(reviewed: Repo) -> None:
    path = Store(reviewed.root).path
    tried = 0
    for name, (data, reason) in damaged(path.read_bytes()).items():
        path.write_bytes(data)
        for verb in VERBS:
            done = review(reviewed, *verb)
            assert done.returncode == 1, (name, verb, done.stdout)
            assert len(done.stderr.splitlines()) == 1 and reason in done.stderr, (name, verb, done.stderr)
            assert "Traceback" not in done.stderr
            assert path.read_bytes() == data, (name, verb)
            tried += 1
        assert reason in row_of(reviewed)["problem"], name
        assert path.read_bytes() == data
    assert tried == 8 * len(VERBS)


def test_a_damaged_file_is_copied_once_and_a_newer_one_not_at_all(reviewed: Repo) -> None:
    store = Store(reviewed.root)
    whole = store.path.read_bytes()

    store.path.write_bytes(whole[:100])
    for verb in VERBS:
        review(reviewed, *verb)
    copies = sorted(store.folder.glob("review.json.broken-*"))
    assert [copy.read_bytes() for copy in copies] == [whole[:100]]

    newer = whole.replace(b'"review/1"', b'"review/2"', 1)
    store.path.write_bytes(newer)
    for verb in VERBS:
        review(reviewed, *verb)
    assert sorted(store.folder.glob("review.json.broken-*")) == copies  # not broken: just newer
    assert store.path.read_bytes() == newer


async def test_the_viewer_shows_the_diff_and_never_writes_a_newer_review(reviewed: Repo) -> None:
    store = Store(reviewed.root)
    newer = store.path.read_bytes().replace(b'"review/1"', b'"review/2"', 1)
    store.path.write_bytes(newer)

    app = make_app(git.find_worktree(reviewed.root), watch=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        screen = app.screen_stack[0]
        assert isinstance(screen, ReviewScreen) and screen.diff is not None
        assert len(screen.diff.files) == 5
        await pilot.press("x")  # marking a file viewed is a write
        await pilot.pause(0.5)
        assert "newer version of review" in " ".join(str(toast.message) for toast in app._notifications)

    assert store.path.read_bytes() == newer


def _with_unknown_keys(document: dict[str, Any]) -> dict[str, Any]:
    """Keys that a newer version might write, at every level of the file."""
    document["future"] = {"top": [1, 2]}
    for comment in document["comments"]:
        comment["future_comment"] = comment["id"]
        if comment.get("anchor"):
            comment["anchor"]["future_anchor"] = True
        for reply in comment.get("thread", []):
            reply["future_reply"] = "kept"
    for sent in document["rounds"]:
        sent["future_round"] = {"nested": None}
    return document


def test_keys_from_a_newer_version_survive_every_verb(reviewed: Repo) -> None:
    store = Store(reviewed.root)
    store.path.write_text(json.dumps(_with_unknown_keys(json.loads(store.path.read_bytes()))))

    for verb in VERBS:
        ok(reviewed, *verb)
    ok(reviewed, "comment", "src/app.py:30", "-m", "another")
    ok(reviewed, "send", "-m", "second round")

    after = json.loads(store.path.read_bytes())
    assert after["future"] == {"top": [1, 2]} and after["schema"] == "review/1"
    first = {comment["id"]: comment for comment in after["comments"]}
    assert [first[name]["future_comment"] for name in ("c1", "c2", "c3")] == ["c1", "c2", "c3"]
    assert first["c1"]["anchor"]["future_anchor"] is True
    assert first["c1"]["thread"][0]["future_reply"] == "kept"
    assert "future_comment" not in first["c4"]  # a new comment gets no invented keys
    assert after["rounds"][0]["future_round"] == {"nested": None}
    assert len(after["rounds"]) == 3  # r1, the approval, and the second round


def test_a_comment_on_a_file_that_is_gone_is_still_read_and_answered(reviewed: Repo) -> None:
    (reviewed.root / "src" / "util.py").unlink()

    pending = ok(reviewed, "pending")
    assert "c2" in pending and "Why 42?" in pending and "src/util.py" in pending
    ok(reviewed, "reply", "c2", "-m", "I removed the file")
    ok(reviewed, "resolve", "c2", "-m", "gone")
    [gone] = [comment for comment in Store(reviewed.root).read().comments if comment.id == "c2"]
    assert gone.status == "addressed"


async def test_the_viewer_opens_with_a_comment_on_a_file_that_is_gone(reviewed: Repo) -> None:
    (reviewed.root / "src" / "util.py").unlink()
    app = make_app(git.find_worktree(reviewed.root), watch=False)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        screen = app.screen_stack[0]
        assert isinstance(screen, ReviewScreen) and screen.diff is not None
        assert [comment.id for comment in screen.review.comments] == ["c1", "c2", "c3"]
        assert not [toast for toast in app._notifications if toast.severity == "error"]


def test_a_round_whose_snapshot_is_gone(reviewed: Repo) -> None:
    ref = f"refs/review/{git.worktree_name(git.find_worktree(reviewed.root))}/r1"
    snapshot = reviewed.git("rev-parse", ref).strip()

    # The ref deleted, the commit still there: the review since then is still shown.
    reviewed.git("update-ref", "-d", ref)
    assert review(reviewed, "--since-review", "--help").returncode == 0
    # Garbage-collected as well: the commit is gone for good.
    reviewed.git("reflog", "expire", "--expire=now", "--all")
    reviewed.git("gc", "--quiet", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", snapshot], cwd=reviewed.root).returncode != 0

    since = review(reviewed, "--since-review")
    assert since.returncode == 1
    assert since.stderr.strip() == "review: the snapshot of review r1 is gone from the repository"

    # Everything else goes on: the agent reads and answers, the reviewer sends a new round.
    assert "c1" in ok(reviewed, "pending")
    ok(reviewed, "resolve", "c1", "-m", "done")
    ok(reviewed, "send", "-m", "second round")
    assert [sent.id for sent in Store(reviewed.root).read().rounds] == ["r1", "r2"]
    assert row_of(reviewed)["problem"] is None
