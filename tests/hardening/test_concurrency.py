"""Concurrency: eight processes running the verbs as fast as they can, and the reviewer writing in
the viewer at the same time, lose nothing and never wait for good; a lock left by a killed
process blocks no one.

The processes are those of benchmarks/bench_writers.py, which prints how long their writes take
(p50, p99, the longest); this test checks what they wrote, never how fast.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot

from bench_writers import FILE, LINES, Writers, make_worktree
from conftest import settle
from review.errors import ReviewLocked
from review.repo import git
from review.state import files
from review.state.model import Comment, Review
from review.state.store import Store
from review.tui.app import make_app
from review.tui.dialogs.comment_editor import CommentEditor
from review.tui.layout import Place
from review.tui.screens.review_screen import ReviewScreen
from review.tui.widgets.diff_view import DiffView

PROCESSES = 8
OPERATIONS = 200
"""Verbs each process runs: comment, note, reply, resolve and send, mixed at random, as the issue
asks (bench_writers.py runs the same, with the figures)."""


@pytest.mark.alone  # beside another worker's tests, the viewer fell 30 s behind its events
async def test_eight_processes_and_the_viewer_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    root = make_worktree(tmp_path / "worktree")
    async with make_app(git.find_worktree(root), watch=False).run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        writers = Writers.start(root, PROCESSES, OPERATIONS, seed=13, on_lines=0.5)
        typed: list[str] = []
        while writers.running():
            typed.append(f"the reviewer's comment {len(typed)}")
            await comment_in_viewer(pilot, len(typed) % LINES + 1, typed[-1])
        for _ in range(600):  # the viewer saves in the background: its last comments may wait
            if not screen.saving.waiting:
                break
            await pilot.pause(0.05)
        assert not screen.saving.waiting and not screen.saving.stuck
    records = writers.wait()  # each process ran every verb, none failed (ReviewLocked included)

    review = Store(root).read()
    assert len(records) == PROCESSES * OPERATIONS
    assert_unique_ids(review)
    comments = {comment.id: comment for comment in review.comments}
    rounds = {sent.id: sent for sent in review.rounds}
    for record in records:
        op, body, made, target = record["op"], record["body"], record["made"], record["target"]
        if op in ("comment", "note"):
            assert comments[str(made)].body == body
            assert comments[str(made)].is_note == (op == "note")
        elif op == "send":
            assert rounds[str(made)].summary == body
        else:
            comment = comments[str(target)]
            assert body in [reply.body for reply in comment.thread], f"{op} {body} on {target} is lost"
            if op == "resolve":
                assert comment.status == "addressed"
    assert_sent_comments_are_not_drafts(records, comments)
    bodies = [comment.body for comment in review.comments if comment.author == "reviewer"]
    assert typed and all(bodies.count(text) == 1 for text in typed)
    assert len(review.comments) == len(typed) + sum(r["op"] in ("comment", "note") for r in records)


async def comment_in_viewer(pilot: Pilot, line: int, text: str) -> None:  # type: ignore[type-arg]
    """Write a comment on a line of FILE in the viewer, as the reviewer does: c, the text, ctrl+s."""
    await on_screen(pilot, ReviewScreen)  # (the last comment's editor closes once it is saved)
    view = pilot.app.screen.query_one(DiffView)
    assert view.diff_layout is not None
    view.go_to(view.diff_layout.find(Place(FILE, new=line)) or 0)
    await pilot.press("c")
    await on_screen(pilot, CommentEditor)
    pilot.app.screen.query_one("TextArea").insert(text)  # type: ignore[attr-defined]
    await pilot.press("ctrl+s")
    await pilot.pause()


async def on_screen(pilot: Pilot, kind: type) -> None:  # type: ignore[type-arg]
    """Wait for a screen of `kind` to be on top: with eight writers on two cores, a frame or two
    can take longer than a pause."""
    for _ in range(200):
        if isinstance(pilot.app.screen, kind):
            return
        await pilot.pause(0.05)
    assert isinstance(pilot.app.screen, kind)


def assert_unique_ids(review: Review) -> None:
    ids = [comment.id for comment in review.comments]
    assert len(ids) == len(set(ids))
    round_ids = [sent.id for sent in review.rounds]
    assert len(round_ids) == len(set(round_ids))


def assert_sent_comments_are_not_drafts(records: list[dict[str, object]], comments: dict[str, Comment]) -> None:
    """A comment a process wrote before it sent a round went out with a round (that one or
    another process's): none is left a draft."""
    for process in {record["process"] for record in records}:
        own = [record for record in records if record["process"] == process]
        last_send = max((n for n, record in enumerate(own) if record["op"] == "send"), default=-1)
        for record in own[:last_send]:
            if record["op"] == "comment":
                assert comments[str(record["made"])].status != "draft"


def test_a_writer_that_has_waited_long_tries_for_the_lock_as_often_as_a_newcomer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pauses that grew with the wait let newcomers, trying often, overtake it again and again
    # (bench_writers.py: the longest wait of eight busy writers halved once they did not grow).
    store = Store(tmp_path, lock_timeout=0.2)
    store.make_folder()
    holder = os.open(store.lock_path, os.O_RDWR | os.O_CREAT)  # its own open file description
    fcntl.flock(holder, fcntl.LOCK_EX)
    pauses: list[float] = []
    sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda seconds: (pauses.append(seconds), sleep(seconds)))
    try:
        with pytest.raises(ReviewLocked):
            store.update(lambda review: None)
    finally:
        os.close(holder)
    assert len(pauses) > 10
    assert set(pauses) == {files.LOCK_POLL}


# A lock left by a killed process

HOLDER = """
import sys, time
from review.state.store import Store

def change(review):
    review.viewed["never.py"] = "written"  # the change made, not yet written
    print("inside", flush=True)  # and the lock held
    time.sleep(600)

Store(sys.argv[1]).update(change)
"""


def test_a_writer_killed_while_it_holds_the_lock_blocks_no_one(tmp_path: Path) -> None:
    """The lock is `flock` on `.review/lock`, and a flock belongs to the open file description of
    the process that took it: when the process dies, however it dies, the kernel closes its files
    and the lock goes with them, before its parent can even see it is dead. Nothing has to break
    a lock by hand, and nothing should: the lock file itself is never deleted (a writer that
    deleted a lock file it thought stale could delete the one another writer had just locked,
    and two writers would each hold a lock on a different file). The killed writer wrote nothing:
    `review.json` is only ever replaced whole, by a rename, after the change is made.
    """
    store = Store(tmp_path)
    store.update(lambda review: review.viewed.update({"a.py": "before"}))
    before = store.path.read_bytes()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE)
    assert holder.stdout is not None
    assert holder.stdout.readline() == b"inside\n"
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    holder.stdout.close()

    assert store.path.read_bytes() == before
    # No wait at all: a writer that may not wait gets the lock on its first try.
    Store(tmp_path, lock_timeout=0).update(lambda review: review.viewed.update({"b.py": "after"}))
    assert Store(tmp_path).read().viewed == {"a.py": "before", "b.py": "after"}
