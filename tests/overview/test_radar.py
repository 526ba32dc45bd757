"""The conflict radar (`review.overview.radar`, through `Overview`): which worktrees change the
same files, whether merging them would conflict, and whether each still merges into the default
branch, found by trial merges that touch nothing in the repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Repo, app_with
from review.overview.rows import Row
from review.overview.status import Overview
from review.repo.merge import ConflictHunk

APP = "".join(f"line {n}\n" for n in range(1, 21))
"""src/app.py as the `project` fixture commits it."""


def rows(overview: Overview) -> dict[str, Row]:
    return {row.name: row for row in overview.read_all()}


def test_two_worktrees_that_edit_the_same_lines_conflict(project: Repo, overview: Callable[[Path], Overview]) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    one.commit("one")
    two.write("src/app.py", app_with(l5="five by two"))
    two.commit("two")
    found = rows(overview(project.root))
    [overlap] = found["one"].overlaps
    assert overlap.worktree == two.root
    assert (overlap.files, overlap.conflict, overlap.conflict_files) == (["src/app.py"], True, ["src/app.py"])
    [back] = found["two"].overlaps
    assert (back.worktree, back.conflict) == (one.root, True)


def test_the_conflict_lists_each_sides_lines_the_asking_side_first(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one", l6="six by one"))
    one.commit("one")
    two.write("src/app.py", app_with(l5="five by two"))
    two.commit("two")
    opened = overview(project.root)
    found = rows(opened)
    assert opened.conflicts(found["one"], found["two"]) == [
        ("src/app.py", [ConflictHunk(line=5, ours=["five by one", "six by one"], theirs=["five by two", "line 6"])])
    ]
    assert opened.conflicts(found["two"], found["one"]) == [
        ("src/app.py", [ConflictHunk(line=5, ours=["five by two", "line 6"], theirs=["five by one", "six by one"])])
    ]


def test_the_hunks_do_not_depend_on_the_users_conflict_style(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    project.git("config", "merge.conflictStyle", "diff3")
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    opened = overview(project.root)
    found = rows(opened)
    [(_, [hunk])] = opened.conflicts(found["one"], found["two"])
    assert (hunk.ours, hunk.theirs) == (["five by one"], ["five by two"])


def test_the_same_file_changed_in_different_places_overlaps_without_conflict(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l2="two by one"))
    one.commit("one")
    two.write("src/app.py", app_with(l18="eighteen by two"))
    two.commit("two")
    opened = overview(project.root)
    found = rows(opened)
    [overlap] = found["one"].overlaps
    assert (overlap.worktree, overlap.files) == (two.root, ["src/app.py"])
    assert (overlap.conflict, overlap.conflict_files) == (False, [])
    assert opened.conflicts(found["one"], found["two"]) == []


def test_a_rename_on_one_side_and_an_edit_on_the_other_merge_cleanly(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.git("mv", "src/app.py", "src/main.py")
    one.commit("rename")
    two.write("src/app.py", app_with(l5="five by two"))
    two.commit("edit")
    found = rows(overview(project.root))
    [overlap] = found["one"].overlaps
    assert overlap.files == ["src/app.py"]
    assert (overlap.conflict, overlap.conflict_files) == (False, [])
    assert found["one"].changed == {"src/app.py", "src/main.py"}


def test_a_conflict_only_in_unstaged_work_is_found(project: Repo, overview: Callable[[Path], Overview]) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    found = rows(overview(project.root))
    assert (found["one"].ahead, found["two"].ahead) == (0, 0)
    [overlap] = found["one"].overlaps
    assert (overlap.conflict, overlap.conflict_files) == (True, ["src/app.py"])


def test_a_worktree_with_only_untracked_files_counts_them(project: Repo, overview: Callable[[Path], Overview]) -> None:
    one = project.worktree("one", "agent/one")
    one.write("notes/todo.md", "a\nb\nc\n")
    row = rows(overview(project.root))["one"]
    assert (row.files, row.added, row.removed) == (1, 3, 0)
    assert row.changed == {"notes/todo.md"}


def test_the_same_untracked_file_added_twice_differently_conflicts(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("notes/todo.md", "first\n")
    two.write("notes/todo.md", "second\n")
    opened = overview(project.root)
    found = rows(opened)
    [overlap] = found["one"].overlaps
    assert (overlap.files, overlap.conflict, overlap.conflict_files) == (["notes/todo.md"], True, ["notes/todo.md"])
    [(path, [hunk])] = opened.conflicts(found["one"], found["two"])
    assert (path, hunk.ours, hunk.theirs) == ("notes/todo.md", ["first"], ["second"])


def test_worktrees_that_change_different_files_do_not_overlap(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/util.py", "def helper():\n    return 2\n")
    found = rows(overview(project.root))
    assert found["one"].overlaps == found["two"].overlaps == []


def test_each_worktree_merges_cleanly_into_the_default_branch_until_it_moves_on(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    one.commit("one")
    two.write("src/app.py", app_with(l18="eighteen by two"))
    found = rows(overview(project.root))
    assert (found["one"].merges_cleanly, found["two"].merges_cleanly) == (True, True)
    assert found["repo"].merges_cleanly is None  # it is the default branch

    project.write("src/app.py", app_with(l5="five on main"))
    project.commit("main moves on")
    found = rows(overview(project.root))
    assert (found["one"].merges_cleanly, found["one"].default_conflict_files) == (False, ["src/app.py"])
    assert (found["two"].merges_cleanly, found["two"].default_conflict_files) == (True, [])


def test_a_conflict_with_the_default_branch_lists_the_worktrees_side_first(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one = project.worktree("one", "agent/one")
    one.write("src/app.py", app_with(l5="five by one"))
    one.commit("one")
    project.write("src/app.py", app_with(l5="five on main"))
    project.commit("main moves on")
    opened = overview(project.root)
    found = rows(opened)
    assert opened.conflicts(found["one"], None) == [
        ("src/app.py", [ConflictHunk(line=5, ours=["five by one"], theirs=["five on main"])])
    ]


def test_the_default_branch_moving_on_is_seen_by_a_refresh(project: Repo, overview: Callable[[Path], Overview]) -> None:
    one = project.worktree("one", "agent/one")
    one.write("src/app.py", app_with(l5="five by one"))
    opened = overview(project.root)
    rows(opened)
    project.write("src/app.py", app_with(l5="five on main"))
    project.commit("main moves on")
    found = {row.name: row for row in opened.refresh()}
    assert (found["one"].merges_cleanly, found["one"].behind) == (False, 1)


def state_of_everything(project: Repo, worktrees: list[Repo]) -> dict[str, object]:
    """What reading the overview must leave as it was: each worktree's status and index, every
    ref, and how many objects the repository holds."""
    state: dict[str, object] = {
        "refs": project.git("for-each-ref"),
        "objects": project.git("count-objects", "-v"),
    }
    for worktree in [project, *worktrees]:
        index = Path(worktree.git("rev-parse", "--path-format=absolute", "--git-path", "index").strip())
        state[f"{worktree.root.name} status"] = worktree.git("status", "--porcelain", "--untracked-files=all")
        state[f"{worktree.root.name} index"] = index.read_bytes()
    return state


def test_reading_the_overview_touches_no_worktree_index_ref_or_object(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two, three = (project.worktree(name, f"agent/{name}") for name in ("one", "two", "three"))
    one.write("src/app.py", app_with(l5="five by one"))
    one.commit("one")
    one.write("src/util.py", "def helper():\n    return 3\n")  # unstaged
    two.write("src/app.py", app_with(l5="five by two"))
    two.git("add", "src/app.py")  # staged
    two.write("notes/new.md", "untracked\n")
    three.write("notes/new.md", "also untracked\n")
    project.write("README.md", "# project, edited on main\n")
    before = state_of_everything(project, [one, two, three])

    opened = overview(project.root)
    found = rows(opened)
    opened.conflicts(found["one"], found["two"])
    opened.conflicts(found["two"], found["three"])
    opened.conflicts(found["one"], None)
    opened.refresh([one.root])

    assert found["one"].overlaps[0].conflict  # the radar did merge something
    assert state_of_everything(project, [one, two, three]) == before


def test_closing_the_overview_removes_its_scratch_objects(project: Repo) -> None:
    one = project.worktree("one", "agent/one")
    one.write("src/app.py", app_with(l5="five by one"))
    opened = Overview(project.root)
    opened.read_all()
    assert any(opened.scratch.folder.iterdir())
    opened.close()
    assert not opened.scratch.folder.exists()


def test_a_worktree_git_cannot_merge_leaves_the_other_merges_standing(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one = project.worktree("one", "agent/one")
    one.write("src/app.py", app_with(l5="five by one"))
    project.git("worktree", "add", "--quiet", "--detach", str(project.root.parent / "lonely"))
    lonely = Repo(project.root.parent / "lonely")
    lonely.git("checkout", "--quiet", "--orphan", "lonely")
    lonely.commit("a history of its own")
    lonely.write("src/app.py", app_with(l5="five, lonely"))  # uncommitted: its diff touches src/app.py
    found = rows(overview(project.root))
    [overlap] = found["lonely"].overlaps
    assert (overlap.worktree, overlap.conflict) == (one.root, None)  # unrelated histories: not tried
    assert found["lonely"].merges_cleanly is None
    assert found["one"].merges_cleanly is True


def test_a_merge_is_remembered_between_runs_and_tried_again_only_when_the_work_changes(
    project: Repo, overview: Callable[[Path], Overview], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    rows(overview(project.root))
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))  # git's own log of every command it runs

    again = overview(project.root)
    found = rows(again)
    assert found["one"].overlaps[0].conflict is True  # as remembered
    assert "merge-tree" not in trace.read_text()
    # the hunks of a remembered conflict are read from a fresh merge of the same two snapshots
    [(path, [hunk])] = again.conflicts(found["one"], found["two"])
    assert (path, hunk.ours, hunk.theirs) == ("src/app.py", ["five by one"], ["five by two"])

    trace.write_text("")
    two.write("src/app.py", app_with(l9="nine by two"))
    changed = rows(overview(project.root))
    assert changed["one"].overlaps[0].conflict is False
    assert "merge-tree" in trace.read_text()
