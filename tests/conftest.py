"""Real git repositories in tmp_path, with git isolated from the machine's configuration and
fixed dates so that commit ids and snapshots are stable."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from review.overview.status import Overview
from review.repo import colouring, highlight
from sshd import sshd  # noqa: F401 (the fixture of an sshd on a loopback port, for the tests of other machines)


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"):
        monkeypatch.delenv(var, raising=False)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test Author\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        '[protocol "file"]\n\tallow = always\n'
    )
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T12:00:00+00:00")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T12:00:00+00:00")


_COLOURER = colouring.start


@pytest.fixture(autouse=True)
def lexed_in_the_viewer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first screen's colours are lexed in the viewer, as when the child that makes them apart
    (`colouring`) cannot be started: a child for each review opened made the tests a quarter
    slower. The tests of the child ask for it (`coloured_apart`)."""
    monkeypatch.setattr(colouring, "start", lambda: None)


@pytest.fixture
def coloured_apart(lexed_in_the_viewer: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first screen's colours made in a child process, as in use; given all the time it needs
    (niced, on a loaded machine, it may take seconds)."""
    monkeypatch.setattr(colouring, "start", _COLOURER)
    monkeypatch.setattr(colouring, "ANSWER_WAIT", 60.0)


def recalled(path: str, lines: list[str]) -> object:
    """The colours of a text (`lines` of the file at `path`) recalled for `highlight` to give
    without lexing it; None when there are none."""
    return highlight._recalled.get(highlight._key(path, "\n".join(lines) + "\n"))


class Repo:
    """A git working tree for a test, with short ways to write, stage and commit."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, input: bytes | None = None) -> str:
        proc = subprocess.run(["git", *args], cwd=self.root, input=input, capture_output=True, check=False)
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "surrogateescape")

    def write(self, path: str | bytes, content: str | bytes) -> Path:
        target = self.root / os.fsdecode(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_bytes(content.encode())
        else:
            target.write_bytes(content)
        return target

    def commit(self, message: str = "change", *paths: str) -> str:
        self.git("add", "--all", *(["--", *paths] if paths else []))
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def worktree(self, name: str, branch: str, start: str = "main") -> Repo:
        path = self.root.parent / name
        self.git("worktree", "add", "--quiet", "-b", branch, str(path), start)
        return Repo(path)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """An empty repository on branch main."""
    root = tmp_path / "repo"
    root.mkdir()
    made = Repo(root)
    made.git("init", "--quiet")
    return made


@pytest.fixture
def project(repo: Repo) -> Repo:
    """A repository with one commit of a few files on main."""
    repo.write("README.md", "# project\n")
    repo.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)))
    repo.write("src/util.py", "def helper():\n    return 1\n")
    repo.commit("initial")
    return repo


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the diff is loaded and every worker (highlighting, loading) has finished."""
    from review.tui.screens.review_screen import ReviewScreen

    for _ in range(200):
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, ReviewScreen) and screen.diff is not None:
            break
    for _ in range(20):
        busy = [worker for worker in pilot.app.workers if worker.group != "watch" and worker.is_running]
        if not busy:
            break
        await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause()


@pytest.fixture
def agent_worktree(project: Repo) -> Repo:
    """A worktree whose diff has several files and hunks, a binary file and a long line."""
    project.write("src/app.py", "".join(f"value_{n} = {n}\n" for n in range(1, 61)))
    project.commit("a longer app")
    agent = project.worktree("agent", "agent/work")
    lines = [f"value_{n} = {n}\n" for n in range(1, 61)]
    for n in (5, 30, 55):
        lines[n - 1] = f"value_{n} = {n} * 2  # doubled\n"
    agent.write("src/app.py", "".join(lines))
    agent.commit("double some values")
    agent.write("src/util.py", "def helper():\n    return 42\n")
    agent.write("docs/guide.md", "# Guide\n\nHow to use it.\n")
    agent.write("image.bin", b"\x00\x01\x02binary")
    agent.write("long.txt", "start " + "x" * 300 + " end\n")
    return agent


async def until_seen(pilot, change, seen, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Make `change` (an edit by the agent) until `seen()` says the viewer shows it.

    The viewer's file watcher starts in a worker and may not be watching yet when the test first
    edits, so the edit is made again (the same content, a new modification time) each second
    until it shows; the test waits on that, not on a fixed pause.
    """
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        change()
        again = time.monotonic() + 1.0
        while time.monotonic() < min(again, deadline):
            await pilot.pause(0.05)
            if seen():
                return
    assert seen(), "the viewer never showed the change"


def app_with(**lines: str) -> str:
    """src/app.py with some lines replaced, e.g. `app_with(l5="five")`."""
    text = [f"line {n}" for n in range(1, 21)]
    for key, value in lines.items():
        text[int(key.removeprefix("l")) - 1] = value
    return "".join(f"{line}\n" for line in text)


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder temporary files go to (git's output, the copy of the index), for this test
    alone."""
    folder = tmp_path / "temporary"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def overview() -> Iterator[Callable[[Path], Overview]]:
    """Open an overview of a repository; closed at the end of the test."""
    opened: list[Overview] = []

    def open_(path: Path) -> Overview:
        made = Overview(path)
        opened.append(made)
        return made

    yield open_
    for made in opened:
        made.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every test in tests/hardening is a hardening test, so `pytest -m hardening` runs them alone.
    # (A conftest.py of its own there would shadow this one's name, `conftest`, for its modules.)
    hardening = Path(__file__).parent / "hardening"
    for item in items:
        if hardening in Path(item.path).parents:
            item.add_marker(pytest.mark.hardening)
