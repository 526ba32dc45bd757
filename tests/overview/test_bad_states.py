"""Worktrees in a state the overview cannot read in full: each is a row that says what is wrong (or
worth knowing) in one line, and every other row reads as it would without it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Repo, app_with
from review.overview.rows import Row
from review.overview.status import Overview
from review.state.store import Store


@pytest.fixture
def healthy(project: Repo) -> Repo:
    """A worktree in good order beside the broken one: one file changed, one line."""
    made = project.worktree("healthy", "agent/healthy")
    made.write("src/app.py", app_with(l5="five, healthy"))
    return made


def rows(overview: Overview) -> dict[str, Row]:
    return {row.name: row for row in overview.read_all()}


def assert_healthy(row: Row) -> None:
    assert (row.problem, row.note) == ("", "")
    assert (row.files, row.added, row.removed, row.ahead, row.behind) == (1, 1, 1, 0, 0)
    assert row.merges_cleanly is True


def one_line(text: str) -> str:
    assert text and "\n" not in text
    return text


def test_a_worktree_whose_folder_was_deleted_says_so(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    gone = project.worktree("gone", "agent/gone")
    gone.write("src/app.py", app_with(l5="five, gone"))
    shutil.rmtree(gone.root)
    found = rows(overview(project.root))
    assert one_line(found["gone"].problem) == "its folder is gone; `git worktree prune` forgets it"
    assert (found["gone"].waits_on, found["gone"].reason, found["gone"].overlaps) == (
        "nothing",
        found["gone"].problem,
        [],
    )
    assert_healthy(found["healthy"])
    assert found["healthy"].overlaps == []


def test_a_locked_worktree_is_read_and_says_why_it_is_locked(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    locked = project.worktree("locked", "agent/locked")
    locked.write("notes.md", "a note\n")
    project.git("worktree", "lock", "--reason", "on a USB disk", str(locked.root))
    found = rows(overview(project.root))
    assert one_line(found["locked"].note) == "locked: on a USB disk"
    assert (found["locked"].problem, found["locked"].files) == ("", 1)
    assert_healthy(found["healthy"])


def test_a_detached_head_is_read_and_says_so(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    detached = project.worktree("detached", "agent/detached")
    detached.write("notes.md", "a note\n")
    detached.commit("a note")
    detached.git("checkout", "--quiet", "--detach")
    found = rows(overview(project.root))
    row = found["detached"]
    assert one_line(row.note) == "detached HEAD"
    assert (row.problem, row.branch, row.files, row.ahead, row.merges_cleanly) == ("", None, 1, 1, True)
    assert_healthy(found["healthy"])


def test_a_worktree_in_the_middle_of_a_rebase_with_a_conflict_says_so(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    rebasing = project.worktree("rebasing", "agent/rebasing")
    rebasing.write("src/util.py", "def helper():\n    return 2\n")
    rebasing.commit("two")
    project.write("src/util.py", "def helper():\n    return 3\n")
    project.commit("three on main")
    with pytest.raises(AssertionError, match="rebase"):
        rebasing.git("rebase", "main")
    found = rows(overview(project.root))
    row = found["rebasing"]
    assert one_line(row.note) == "in the middle of a rebase"
    assert (row.problem, row.files) == ("", 1)
    assert row.changed == {"src/util.py"}
    assert (found["healthy"].problem, found["healthy"].files) == ("", 1)
    assert found["healthy"].behind == 1


def test_a_worktree_in_the_middle_of_a_merge_with_conflict_markers_says_so(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    merging = project.worktree("merging", "agent/merging")
    merging.write("src/util.py", "def helper():\n    return 2\n")
    merging.commit("two")
    project.write("src/util.py", "def helper():\n    return 3\n")
    project.commit("three on main")
    with pytest.raises(AssertionError, match="merge"):
        merging.git("merge", "--quiet", "main")
    assert "<<<<<<<" in (merging.root / "src/util.py").read_text()
    found = rows(overview(project.root))
    row = found["merging"]
    assert one_line(row.note) == "in the middle of a merge"
    assert (row.problem, row.files) == ("", 1)
    assert (found["healthy"].problem, found["healthy"].files) == ("", 1)


def test_an_unreadable_review_file_is_the_rows_problem_and_no_other_rows(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    broken = project.worktree("broken", "agent/broken")
    broken.write("notes.md", "a note\n")
    store = Store(broken.root)
    store.make_folder()
    store.path.write_text("this is not json")
    found = rows(overview(project.root))
    row = found["broken"]
    assert str(store.path) in one_line(row.problem)
    assert (row.waits_on, row.files) == ("nothing", 1)
    assert_healthy(found["healthy"])


def test_a_worktree_whose_git_file_is_gone_says_so(
    project: Repo, healthy: Repo, overview: Callable[[Path], Overview]
) -> None:
    orphan = project.worktree("orphan", "agent/orphan")
    (orphan.root / ".git").unlink()
    found = rows(overview(project.root))
    assert one_line(found["orphan"].problem) == "its .git file is missing: not a worktree any more"
    assert_healthy(found["healthy"])


@pytest.fixture
def bare(project: Repo, tmp_path: Path) -> Repo:
    """A bare clone of the project, with two linked worktrees that change the same line."""
    made = Repo(tmp_path / "bare.git")
    project.git("clone", "--quiet", "--bare", str(project.root), str(made.root))
    for name in ("one", "two"):
        made.git("worktree", "add", "--quiet", "-b", f"agent/{name}", str(tmp_path / name), "main")
        Repo(tmp_path / name).write("src/app.py", app_with(l5=f"five by {name}"))
    return made


def test_a_bare_main_repository_is_a_row_and_its_worktrees_are_read(
    bare: Repo, overview: Callable[[Path], Overview]
) -> None:
    opened = overview(bare.root)
    found = rows(opened)
    assert list(found) == ["bare.git", "one", "two"]
    assert one_line(found["bare.git"].problem) == "bare repository: it has no working tree to review"
    assert (found["bare.git"].waits_on, found["bare.git"].reason) == ("nothing", found["bare.git"].problem)
    assert opened.repo.default_branch == "main"
    for name in ("one", "two"):
        assert (found[name].problem, found[name].files, found[name].merges_cleanly) == ("", 1, True)
    assert found["one"].overlaps[0].conflict is True
    assert opened.as_json()["repo"] == str(bare.root)


def test_a_bare_repositorys_overview_opens_from_one_of_its_worktrees(
    bare: Repo, overview: Callable[[Path], Overview]
) -> None:
    found = rows(overview(bare.root.parent / "one"))
    assert list(found) == ["bare.git", "one", "two"]
    assert (found["two"].problem, found["two"].files) == ("", 1)
