"""Crash safety: a process killed with SIGKILL at any moment, while it writes the review, never
leaves a review file that does not parse, and every write it acknowledged is in the file; the
viewer killed while a comment is written or saved loses at most the last moments of typing.

`Store.update` writes a temporary file, fsyncs it and renames it over `review.json`: the rename
is the one moment the review changes, so a kill before it leaves the old file, a kill after it
the new one, and a write is acknowledged (its `update` returns) only after the rename.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import Repo
from review.state.model import Review
from review.state.store import Store
from review.tui.saving import UNSAVED
from tmux import Terminal, review_command

WRITES = 1000
"""Writes started in all, over all the runs, each run killed after a random delay."""
RUNS_A_FILE = 12
"""Runs that write to one review file before the next run starts a new one: the file stays
small, so the writes are quick and the kills fall in every part of them."""
LONGEST_RUN = 0.06
"""The longest a run writes before it is killed, in seconds; a write takes a few milliseconds."""


class Writers:
    """killed_writer.py, which forks a writer for each run it is asked for."""

    def __init__(self) -> None:
        script = Path(__file__).with_name("killed_writer.py")
        self.process = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def start(self, root: Path, run: int, seed: int) -> int:
        """Fork a writer on the review in `root`; its pid, once it is ready to write."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{root} {run} {seed}\n")
        self.process.stdin.flush()
        said = self.line()
        assert said.startswith("pid "), said
        assert self.line() == "ready"
        return int(said.split()[1])

    def said_until_ended(self) -> tuple[list[str], int]:
        """What the writer said after it was ready, and its wait status."""
        said = []
        while not (line := self.line()).startswith("ended "):
            said.append(line)
        return said, int(line.split()[1])

    def line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "killed_writer.py stopped (its error is above)"
        return line.rstrip("\n")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture
def writers() -> Iterator[Writers]:
    made = Writers()
    yield made
    made.close()


def test_a_writer_killed_at_random_points_leaves_a_file_that_parses_with_every_acknowledged_write(
    tmp_path: Path, writers: Writers
) -> None:
    chance = random.Random(13)
    started = runs = 0
    acknowledged: dict[Path, list[list[str]]] = {}
    while started < WRITES:
        root = tmp_path / f"worktree{runs // RUNS_A_FILE}"
        root.mkdir(exist_ok=True)
        pid = writers.start(root, runs, chance.randrange(1 << 30))
        time.sleep(chance.uniform(0, LONGEST_RUN))
        os.kill(pid, signal.SIGKILL)
        said, status = writers.said_until_ended()
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, said
        started += said.count("begin")
        runs += 1
        acknowledged.setdefault(root, []).extend(line.split() for line in said if line != "begin")

        review = Store(root).read()  # raises if the file does not parse
        assert_holds(review, acknowledged[root])

    assert runs >= WRITES // 50  # the kills fell in many runs, not in a few long ones

    # A writer killed between making its temporary file and renaming it leaves the file (about
    # one kill in ten); the next writer, holding the lock, removes it.
    for root in acknowledged:
        Store(root).update(lambda review: None)
    assert not list(tmp_path.glob("*/.review/.review.json.*.tmp"))


def test_only_the_review_files_own_leftovers_are_removed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.update(lambda review: None)
    folder = store.folder
    leftover = folder / ".review.json.0123abcd.tmp"
    others = [folder / ".unsaved.md.0123abcd.tmp", folder / ".review.json.broken-20260101T120000.0123abcd.tmp"]
    for path in [leftover, *others]:
        path.write_text("{")
    store.update(lambda review: None)
    assert not leftover.exists()
    assert all(path.exists() for path in others)  # another file's, which another may be writing


def assert_holds(review: Review, acknowledged: list[list[str]]) -> None:
    """Every acknowledged write is in `review`, and no id was given twice."""
    ids = [comment.id for comment in review.comments]
    assert len(ids) == len(set(ids))
    by_id = {comment.id: comment for comment in review.comments}
    for kind, id, body in acknowledged:
        assert id in by_id, f"{kind} {id} ({body}) was acknowledged and is not in the file"
        comment = by_id[id]
        if kind == "reply":
            assert body in [reply.body for reply in comment.thread], f"the reply {body} to {id} is lost"
        else:
            assert comment.body == body
            assert comment.is_note == (kind == "note")


# The viewer, killed


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_the_viewer_killed_while_a_comment_is_written_or_saved_keeps_the_text(project: Repo, tmp_path: Path) -> None:
    project.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 5\n", "line five\n"))
    unsaved = project.root / ".review" / UNSAVED

    # Killed while writing: what was typed a moment before is kept, what was typed at the
    # moment of the kill may be lost.
    with Viewer(project.root, tmp_path) as viewer:
        viewer.write_comment("typed a moment before")
        wait_until(lambda: unsaved.exists() and "typed a moment before" in unsaved.read_text())
        viewer.terminal.literal(" and at the moment of the kill")
        viewer.kill()
    assert "typed a moment before" in unsaved.read_text()
    Store(project.root).read()  # parses

    # Opened again, it says where the text is. Killed at once after ctrl+s (saved, being saved,
    # or the key not even read yet), the comment is in the review or its text in the unsaved file.
    with Viewer(project.root, tmp_path) as viewer:
        viewer.terminal.wait_for("Text you wrote earlier could not be saved")
        viewer.write_comment("saved as it was killed")
        wait_until(lambda: "saved as it was killed" in unsaved.read_text())
        viewer.terminal.keys("C-s")
        viewer.kill()
    bodies = [comment.body for comment in Store(project.root).read().comments]
    assert "saved as it was killed" in bodies or "saved as it was killed" in unsaved.read_text()

    with Viewer(project.root, tmp_path) as viewer:
        viewer.terminal.wait_for("line five")  # it opens, and shows the diff


class Viewer:
    """The real `review` in tmux, as the pane's own process, so that it can be killed by its pid."""

    def __init__(self, worktree: Path, cwd: Path) -> None:
        self.terminal = Terminal(cwd, width=100, height=30)
        self.terminal.run(f"exec {review_command()} {worktree}")
        self.terminal.wait_for("line five")
        self.pid = int(self.terminal.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))

    def write_comment(self, text: str) -> None:
        """Open the editor on line 4 and type `text`, until it shows."""
        self.terminal.keys("]", "j", "j", "j", "c")
        self.terminal.wait_for("Comment on src/app.py:4")
        self.terminal.literal(text)
        self.terminal.wait_for(text)

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.terminal.close()


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "it did not happen"
        time.sleep(0.05)
