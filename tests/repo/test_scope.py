"""Diff scopes: what the reviewer sees for each choice of sides."""

from __future__ import annotations

import os

import pytest

from conftest import Repo
from review.errors import BadRevision
from review.repo import git, scope
from review.repo.diff import Status
from review.repo.scope import Scope


def files_of(repo: Repo, chosen: Scope = Scope()) -> dict[str, Status]:
    _, diff = scope.load(git.find_worktree(repo.root), chosen)
    return {f.path: f.status for f in diff.files}


@pytest.fixture
def agent(project: Repo) -> Repo:
    """An agent worktree with committed, staged, unstaged and untracked work."""
    agent = project.worktree("agent", "agent/work")
    agent.write("src/committed.py", "committed\n")
    agent.commit("agent commit")
    agent.write("src/staged.py", "staged\n")
    agent.git("add", "src/staged.py")
    agent.write("src/app.py", "changed\n")
    agent.write("src/untracked.py", "untracked\n")
    agent.write(".gitignore", "*.log\n")
    agent.write("build.log", "ignored\n")
    return agent


def test_default_scope_is_everything_the_agent_changed(agent: Repo) -> None:
    assert files_of(agent) == {
        ".gitignore": Status.ADDED,
        "src/app.py": Status.MODIFIED,
        "src/committed.py": Status.ADDED,
        "src/staged.py": Status.ADDED,
        "src/untracked.py": Status.ADDED,
    }


def test_a_new_folder_of_untracked_files_shows_each_file_but_the_ignored_ones(agent: Repo) -> None:
    # git names such a folder once when asked for untracked files; each of its files is still
    # in the diff, nested folders too, and what .gitignore ignores is not
    agent.write("new/a.py", "a\n")
    agent.write("new/deep/b.py", "b\n")
    agent.write("new/deep/trace.log", "ignored\n")
    agent.write("new/.review/stray", "not the review folder: only the worktree's own is left out\n")
    changed = files_of(agent)
    assert {path for path in changed if path.startswith("new/")} == {"new/a.py", "new/deep/b.py", "new/.review/stray"}
    assert all(changed[path] is Status.ADDED for path in changed if path.startswith("new/"))


def test_default_scope_starts_where_the_branch_left_main(agent: Repo, project: Repo) -> None:
    project.write("src/later_on_main.py", "main moved on\n")
    project.commit("main moves on")
    sides = scope.resolve(git.find_worktree(agent.root), Scope())
    assert sides.old == project.git("rev-parse", "HEAD~1").strip()
    assert sides.label == "main...working tree"
    assert "src/later_on_main.py" not in files_of(agent)


def test_on_the_default_branch_head_is_compared_with_the_working_tree(project: Repo) -> None:
    project.write("src/util.py", "def helper():\n    return 2\n")
    project.write("notes.txt", "untracked\n")
    sides = scope.resolve(git.find_worktree(project.root), Scope())
    assert sides.old == project.head()
    assert files_of(project) == {"notes.txt": Status.ADDED, "src/util.py": Status.MODIFIED}


def test_staged_scope_shows_the_index_only(agent: Repo) -> None:
    assert files_of(agent, Scope(staged=True)) == {"src/staged.py": Status.ADDED}


def test_base_scope_compares_from_the_given_ref(agent: Repo) -> None:
    changed = files_of(agent, Scope(base="agent/work"))
    assert "src/committed.py" not in changed
    assert changed["src/untracked.py"] is Status.ADDED


def test_range_scope_compares_two_commits(agent: Repo) -> None:
    assert files_of(agent, Scope(range="main..agent/work")) == {"src/committed.py": Status.ADDED}


def test_symmetric_range_starts_at_the_merge_base(agent: Repo, project: Repo) -> None:
    project.write("src/later_on_main.py", "main moved on\n")
    project.commit("main moves on")
    assert files_of(agent, Scope(range="main...agent/work")) == {"src/committed.py": Status.ADDED}
    assert "src/later_on_main.py" in files_of(agent, Scope(range="agent/work..main"))


def test_an_empty_repository_shows_every_file_as_added(repo: Repo) -> None:
    repo.write("first.py", "print('hello')\n")
    repo.write("staged.py", "x = 1\n")
    repo.git("add", "staged.py")
    assert files_of(repo) == {"first.py": Status.ADDED, "staged.py": Status.ADDED}
    assert files_of(repo, Scope(staged=True)) == {"staged.py": Status.ADDED}


def test_an_empty_repository_with_nothing_in_it_has_an_empty_diff(repo: Repo) -> None:
    assert files_of(repo) == {}


def test_detached_head_is_compared_from_its_merge_base_with_main(agent: Repo) -> None:
    agent.git("checkout", "--quiet", "--detach")
    changed = files_of(agent)
    assert changed["src/committed.py"] is Status.ADDED


def test_a_bad_base_is_one_clear_error(agent: Repo) -> None:
    with pytest.raises(BadRevision, match="unknown revision 'nowhere'"):
        files_of(agent, Scope(base="nowhere"))


@pytest.mark.parametrize("base", ["nowhere", "-p", "main^{tree}"])
def test_a_default_branch_that_is_not_a_commit_is_one_clear_error(agent: Repo, base: str) -> None:
    agent.git("config", "review.base", base)
    with pytest.raises(BadRevision) as refused:
        files_of(agent)
    assert str(refused.value) == f"the default branch '{base}' (review.base) is not a commit"


def test_a_default_branch_named_in_config_is_where_the_work_starts(agent: Repo) -> None:
    # (trunk holds the agent's commit, which main does not: measured from main, it would show)
    agent.git("branch", "trunk", "HEAD")
    agent.git("config", "review.base", "trunk")
    sides, diff = scope.load(git.find_worktree(agent.root), Scope())
    assert sides.old == agent.git("rev-parse", "trunk").strip()
    assert "src/committed.py" not in {f.path for f in diff.files}
    assert sides.label == "trunk...working tree"


def test_a_range_without_dots_is_refused(agent: Repo) -> None:
    with pytest.raises(BadRevision, match=r"A\.\.B"):
        files_of(agent, Scope(range="main"))


def test_a_range_with_an_unknown_side_is_refused(agent: Repo) -> None:
    with pytest.raises(BadRevision, match="unknown revision 'nope'"):
        files_of(agent, Scope(range="main..nope"))


def test_unrelated_histories_fall_back_to_head(agent: Repo) -> None:
    agent.git("checkout", "--quiet", "--orphan", "unrelated")
    agent.commit("unrelated root")
    agent.write("fresh.txt", "fresh\n")
    assert files_of(agent) == {"fresh.txt": Status.ADDED}


def _same_second_edit(agent: Repo) -> None:
    """A committed file changed to content of the same size with the same modification time, as
    an agent's edit within the second of the commit looks to git: only git's check of "racily
    clean" entries (an entry as new as the index itself) finds the change."""
    moment = 1_700_000_000
    path = agent.write("src/same.py", "x = 1\n")
    os.utime(path, (moment, moment))
    agent.commit("same size")
    agent.write("src/same.py", "x = 2\n")
    os.utime(path, (moment, moment))
    index = agent.root / agent.git("rev-parse", "--git-path", "index").strip()
    os.utime(index, (moment, moment))
    agent.write("src/new.py", "new\n")  # an untracked file: the diff goes through a copy of the index


@pytest.mark.parametrize("where", ["main", "agent"])
def test_a_same_size_edit_in_the_second_of_the_commit_is_in_the_diff(project: Repo, agent: Repo, where: str) -> None:
    repo = project if where == "main" else agent
    _same_second_edit(repo)
    assert "src/same.py" in repo.git("diff", "--name-only")  # git itself sees it
    _, diff = scope.load(git.find_worktree(repo.root), Scope())
    (same,) = [file for file in diff.files if file.path == "src/same.py"]
    assert [line.text for hunk in same.hunks for line in hunk.lines if line.kind == "+"] == ["x = 2"]
    assert "src/new.py" in {file.path for file in diff.files}


def test_a_same_size_edit_in_the_second_of_the_commit_is_in_the_snapshot(agent: Repo) -> None:
    _same_second_edit(agent)
    snapshot = git.snapshot(git.find_worktree(agent.root), "test")
    assert agent.git("show", f"{snapshot}:src/same.py") == "x = 2\n"


def test_the_review_folder_is_never_reviewed_even_without_its_gitignore(agent: Repo) -> None:
    folder = agent.root / ".review"
    folder.mkdir()
    (folder / "review.json").write_text('{"schema": "review/1"}\n')  # no .gitignore beside it
    assert ".review/review.json" not in files_of(agent)
    snapshot = git.snapshot(git.find_worktree(agent.root), "test")
    assert ".review" not in agent.git("ls-tree", "--name-only", snapshot)
    assert "src/untracked.py" in agent.git("ls-tree", "-r", "--name-only", snapshot)
