"""`review demo` makes a real project with three agents at work."""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

import pytest

from review import demo
from review.errors import ReviewError
from review.repo import git, scope
from review.repo.diff import Status
from review.repo.scope import Scope


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> demo.Demo:
    return demo.create(tmp_path_factory.mktemp("demo") / "here")


def porcelain(path: Path) -> set[str]:
    out = subprocess.run(["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True, check=True).stdout
    return {line[:2] for line in out.splitlines()}


def test_main_has_a_few_commits_and_three_agent_worktrees(made: demo.Demo) -> None:
    entries = git.list_worktrees(git.find_worktree(made.repository))
    assert entries[0].branch == "main"
    assert {e.branch for e in entries[1:]} == {"agent/currency", "agent/csv-export", "agent/cleanup"}
    log = subprocess.run(
        ["git", "log", "--oneline", "main"], cwd=made.repository, capture_output=True, text=True
    ).stdout
    assert len(log.splitlines()) == 3


@pytest.mark.parametrize("agent", ["currency", "csv-export", "cleanup"])
def test_each_agent_has_commits_and_staged_unstaged_and_untracked_work(made: demo.Demo, agent: str) -> None:
    path = made.agents[agent]
    ahead = subprocess.run(
        ["git", "rev-list", "--count", "main..HEAD"], cwd=path, capture_output=True, text=True
    ).stdout
    assert int(ahead) >= 1
    states = porcelain(path)
    assert any(s[0] not in " ?" for s in states), "something staged"
    assert any(s[1] not in " ?" for s in states), "something unstaged"
    assert "??" in states, "something untracked"


@pytest.mark.parametrize("agent", ["currency", "csv-export", "cleanup"])
def test_each_agent_adds_renames_and_deletes(made: demo.Demo, agent: str) -> None:
    _, diff = scope.load(git.find_worktree(made.agents[agent]), Scope())
    statuses = {f.status for f in diff.files}
    assert {Status.ADDED, Status.RENAMED, Status.DELETED, Status.MODIFIED} <= statuses


def test_two_agents_would_conflict_in_the_ledger(made: demo.Demo) -> None:
    merged = subprocess.run(
        ["git", "merge-tree", "--write-tree", "--name-only", "agent/currency", "agent/csv-export"],
        cwd=made.repository,
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 1
    assert "tally/ledger.py" in merged.stdout


def test_the_demo_project_is_real_python(made: demo.Demo) -> None:
    for path in [made.repository, *made.agents.values()]:
        for source in path.rglob("*.py"):
            compile(source.read_text(), str(source), "exec")


def test_two_demos_are_identical(tmp_path: Path) -> None:
    one = demo.create(tmp_path / "one")
    two = demo.create(tmp_path / "two")
    head = ["git", "rev-parse", "HEAD"]
    for a, b in zip(one.agents.values(), two.agents.values(), strict=True):
        assert subprocess.check_output(head, cwd=a) == subprocess.check_output(head, cwd=b)


def test_main_is_pinned(made: demo.Demo) -> None:
    """The demo fixes every date and name, so main's commit is the same everywhere, always."""
    head = subprocess.check_output(["git", "rev-parse", "main"], cwd=made.repository, text=True).strip()
    assert head == "6efc73accd58148adfe3f5b71e9ed3ef838e26df"


def package_files(writer: str) -> dict[str, bytes]:
    folder = Path(str(resources.files("review") / "demo_files" / writer))
    # pip compiles the .py files of an installed wheel: their __pycache__ is not the demo's
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_main_is_made_of_the_package_data_and_nothing_else(made: demo.Demo) -> None:
    tracked = subprocess.check_output(["git", "ls-tree", "-r", "--name-only", "main"], cwd=made.repository, text=True)
    files = package_files("main")
    assert set(tracked.splitlines()) == set(files)
    for path, data in files.items():
        assert subprocess.check_output(["git", "show", f"main:{path}"], cwd=made.repository) == data


@pytest.mark.parametrize("agent", ["currency", "csv-export", "cleanup"])
def test_the_agents_whole_files_are_the_package_data(made: demo.Demo, agent: str) -> None:
    files = package_files(agent)
    assert files
    for path, data in files.items():
        assert (made.agents[agent] / path).read_bytes() == data


def test_a_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("mine")
    with pytest.raises(ReviewError, match="not empty"):
        demo.create(tmp_path / "taken")
    assert (tmp_path / "taken" / "file").read_text() == "mine"
