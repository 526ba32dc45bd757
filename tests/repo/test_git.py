"""The git layer on real repositories: finding the worktree, branches and every worktree."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from review.errors import BadRevision, NotARepository
from review.repo import git


def test_finds_the_root_from_a_subfolder(project: Repo) -> None:
    worktree = git.find_worktree(project.root / "src")
    assert worktree.root == project.root.resolve()
    assert worktree.branch == "main"
    assert worktree.head == project.head()
    assert not worktree.is_linked


def test_finds_the_root_from_a_file_path(project: Repo) -> None:
    assert git.find_worktree(project.root / "src" / "app.py").root == project.root.resolve()


def test_a_linked_worktree_knows_its_own_root_and_the_shared_repository(project: Repo) -> None:
    agent = project.worktree("agent", "agent/one")
    worktree = git.find_worktree(agent.root)
    assert worktree.root == agent.root.resolve()
    assert worktree.branch == "agent/one"
    assert worktree.is_linked
    assert worktree.common_dir == (project.root / ".git").resolve()


def test_detached_head_has_no_branch(project: Repo) -> None:
    project.git("checkout", "--quiet", "--detach")
    worktree = git.find_worktree(project.root)
    assert worktree.branch is None
    assert worktree.head == project.head()


def test_an_empty_repository_has_a_branch_but_no_head(repo: Repo) -> None:
    worktree = git.find_worktree(repo.root)
    assert worktree.branch == "main"
    assert worktree.head is None


def test_a_path_outside_any_repository_is_one_clear_error(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(NotARepository, match="is not inside a git repository"):
        git.find_worktree(outside)


def test_a_missing_path_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotARepository, match="no such file or directory"):
        git.find_worktree(tmp_path / "missing")


def test_the_git_folder_itself_is_not_a_worktree(project: Repo) -> None:
    with pytest.raises(NotARepository, match="not inside a working tree"):
        git.find_worktree(project.root / ".git")


def test_default_branch_is_main(project: Repo) -> None:
    assert git.default_branch(git.find_worktree(project.root)) == "main"


def test_default_branch_falls_back_to_master(project: Repo) -> None:
    project.git("branch", "-m", "main", "master")
    assert git.default_branch(git.find_worktree(project.root)) == "master"


def test_review_base_in_git_config_wins(project: Repo) -> None:
    project.git("branch", "trunk")
    project.git("config", "review.base", "trunk")
    assert git.default_branch(git.find_worktree(project.root)) == "trunk"


def test_default_branch_follows_origin_head(project: Repo, tmp_path: Path) -> None:
    project.git("branch", "-m", "main", "develop")
    clone = tmp_path / "clone"
    Repo(tmp_path).git("clone", "--quiet", str(project.root), str(clone))
    Repo(clone).git("checkout", "--quiet", "-b", "feature")
    Repo(clone).git("branch", "-D", "develop")
    assert git.default_branch(git.find_worktree(clone)) == "origin/develop"


def test_no_default_branch_when_there_is_none(project: Repo) -> None:
    project.git("branch", "-m", "main", "trunk")
    assert git.default_branch(git.find_worktree(project.root)) is None


def test_lists_every_worktree_main_first(project: Repo) -> None:
    one = project.worktree("one", "agent/one")
    two = project.worktree("two with space", "agent/two")
    Repo(two.root).git("checkout", "--quiet", "--detach")
    entries = git.list_worktrees(git.find_worktree(one.root))
    assert [e.path for e in entries] == [project.root.resolve(), one.root.resolve(), two.root.resolve()]
    assert [e.branch for e in entries] == ["main", "agent/one", None]
    assert entries[2].detached
    assert entries[0].head == project.head()


def test_a_bad_revision_is_one_clear_error(project: Repo) -> None:
    with pytest.raises(BadRevision, match="unknown revision 'nope'"):
        git.resolve_commit(git.find_worktree(project.root), "nope")


def test_a_revision_that_looks_like_an_option_is_refused(project: Repo) -> None:
    with pytest.raises(BadRevision):
        git.resolve_commit(git.find_worktree(project.root), "--output=/tmp/x")


def test_blob_sizes_are_those_the_repository_has(project: Repo) -> None:
    blob = project.git("hash-object", "-w", "--stdin", input=b"twelve bytes").strip()
    missing = "0123456789abcdef" * 2 + "01234567"
    found = git.blob_sizes(git.find_worktree(project.root), [blob, missing, "HEAD:README.md", ""])
    # (a name that is not an id, such as a revision's path, is not looked up)
    assert found == {blob: 12}


def test_untracked_files_respect_gitignore(project: Repo) -> None:
    project.write(".gitignore", "*.log\n")
    project.write("new.txt", "new\n")
    project.write("debug.log", "noise\n")
    found = git.untracked_files(git.find_worktree(project.root))
    assert sorted(found) == [b".gitignore", b"new.txt"]


def test_the_real_index_is_untouched_by_showing_untracked_files(project: Repo) -> None:
    project.write("new.txt", "new\n")
    before = (project.root / ".git" / "index").read_bytes()
    worktree = git.find_worktree(project.root)
    git.diff_output(worktree, worktree.head or "", untracked=True)
    assert (project.root / ".git" / "index").read_bytes() == before
    assert project.git("status", "--porcelain") == "?? new.txt\n"
