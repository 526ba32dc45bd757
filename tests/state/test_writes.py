"""A file review cannot write is the program's own one-line error, from every writer."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity as agent
from review.errors import CannotWrite
from review.state.files import replace_atomically
from review.state.store import Store
from tmux import review_command


def test_writing_over_a_folder_is_cannot_write_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(CannotWrite, match="taken"):
        replace_atomically(tmp_path / "taken", b"data")


def test_writing_into_a_missing_folder_is_cannot_write(tmp_path: Path) -> None:
    with pytest.raises(CannotWrite, match="missing"):
        replace_atomically(tmp_path / "missing" / "file", b"data")


def test_the_agents_state_that_cannot_be_written_is_cannot_write(project: Repo) -> None:
    Store(project.root).make_folder()
    (project.root / ".review" / agent.FILE).mkdir()
    with pytest.raises(CannotWrite):
        agent.record(project.root, "idle", "claude", "Stop")


def test_send_that_cannot_write_the_instructions_is_one_line_and_status_1(project: Repo) -> None:
    project.write("src/app.py", "changed\n")
    review = review_command()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([review, *args], cwd=project.root, capture_output=True, text=True, timeout=60)

    assert run("comment", "src/app.py:1", "-m", "why?").returncode == 0
    (project.root / ".review" / "instructions.md").mkdir()
    done = run("send")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "instructions.md" in done.stderr and "Traceback" not in done.stderr
    assert "review r1 was sent, but" in done.stderr
    assert [r.id for r in Store(project.root).read().rounds] == ["r1"]
