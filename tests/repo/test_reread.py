"""Reading again only the files that changed (`scope.reread`): the same diff as a full read, with
the other files' models kept, or the full read where only it gives what git would."""

from __future__ import annotations

import pytest

from conftest import Repo
from review.repo import git, scope
from review.repo.diff import Diff, Status
from review.repo.git import Worktree
from review.repo.scope import Scope, Sides


@pytest.fixture
def agent(project: Repo) -> Repo:
    """An agent's worktree whose diff has modified files only: no file in it is added, deleted,
    renamed or copied."""
    for name in ("a-b.py", "a.py", "a/b.py", "c.py", "z.py"):
        project.write(name, "".join(f"{name} line {n}\n" for n in range(1, 31)))
    project.commit("more files")
    agent = project.worktree("agent", "agent/work")
    for name in ("a-b.py", "a/b.py", "z.py"):
        edit(agent, name, 10, "changed by the agent")
    return agent


def edit(repo: Repo, name: str, line: int, text: str) -> str:
    """Replace one line of a file; its path, as the file watcher names it."""
    target = repo.root / name
    lines = target.read_text().splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    target.write_text("".join(lines))
    return str(target)


def loaded(repo: Repo, chosen: Scope = Scope()) -> tuple[Worktree, Sides, Diff]:
    worktree = git.find_worktree(repo.root)
    sides, diff = scope.load(worktree, chosen)
    return worktree, sides, diff


def shown(diff: Diff) -> list[tuple[str, Status, bytes]]:
    """What a diff shows, file by file, in order."""
    return [(f.path, f.status, f.patch) for f in diff.files]


def test_only_the_changed_file_is_read_again_and_the_others_are_kept(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    changed = edit(agent, "a/b.py", 20, "changed again")
    spliced = scope.reread(worktree, sides, diff, [changed])
    assert spliced is not None
    assert shown(spliced) == shown(scope.read(worktree, sides))
    kept = {f.path for f in spliced.files if any(f is before for before in diff.files)}
    assert kept == {"a-b.py", "z.py"}


def test_a_file_written_with_the_same_content_leaves_the_diff_as_it_is(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    target = agent.root / "z.py"
    target.write_bytes(target.read_bytes())
    assert scope.reread(worktree, sides, diff, [str(target)]) is diff


def test_an_editors_temporary_file_changes_nothing(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    swap = agent.write(".z.py.swp", "written and removed while saving\n")
    swap.unlink()
    assert scope.reread(worktree, sides, diff, [str(swap)]) is diff


def test_the_review_folder_is_never_part_of_the_diff(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    agent.write(".review/review.json", "{}")
    assert scope.reread(worktree, sides, diff, [str(agent.root / ".review" / "review.json")]) is diff


def test_a_file_that_becomes_changed_enters_in_gits_order(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    changed = [edit(agent, "a.py", 5, "now changed"), edit(agent, "c.py", 5, "now changed")]
    spliced = scope.reread(worktree, sides, diff, changed)
    assert spliced is not None
    assert [f.path for f in spliced.files] == ["a-b.py", "a.py", "a/b.py", "c.py", "z.py"]
    assert shown(spliced) == shown(scope.read(worktree, sides))


def test_a_file_changed_back_leaves_the_diff(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    changed = edit(agent, "a/b.py", 10, "a/b.py line 10")
    spliced = scope.reread(worktree, sides, diff, [changed])
    assert spliced is not None
    assert [f.path for f in spliced.files] == ["a-b.py", "z.py"]
    assert all(any(f is before for before in diff.files) for f in spliced.files)


def test_a_file_read_with_more_context_is_read_again_with_it(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    changed = edit(agent, "z.py", 12, "changed again")
    spliced = scope.reread(worktree, sides, diff, [changed], {"z.py": 13})
    assert spliced is not None
    wider = spliced.file("z.py")
    assert wider is not None
    # lines 10 and 12 changed: 13 lines around them reach the top, where 3 would start at line 7
    assert [(h.new_start, h.new_count) for h in wider.hunks] == [(1, 25)]


def test_a_binary_file_rewritten_gets_its_new_size(project: Repo) -> None:
    project.write("image.bin", b"\x00\x01" * 10)
    project.commit("an image")
    project.write("image.bin", b"\x00\x02" * 20)
    worktree, sides, diff = loaded(project)
    project.write("image.bin", b"\x00\x03" * 30)
    spliced = scope.reread(worktree, sides, diff, [str(project.root / "image.bin")])
    assert spliced is not None
    image = spliced.file("image.bin")
    assert image is not None and image.binary and image.new_size == 60


# -- where only a full read gives what git would -----------------------------------------------


def test_a_change_in_the_git_folder_needs_a_full_read(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    agent.git("add", "z.py")
    assert scope.reread(worktree, sides, diff, [str(worktree.git_dir / "index")]) is None


def test_a_commit_in_the_main_worktree_needs_a_full_read(project: Repo) -> None:
    project.write("src/util.py", "def helper():\n    return 3\n")
    worktree, sides, diff = loaded(project)
    project.commit("util")
    assert scope.reread(worktree, sides, diff, [str(project.root / ".git" / "refs" / "heads" / "main")]) is None


@pytest.mark.parametrize("name", [".gitignore", "src/.gitattributes", ".gitmodules"])
def test_a_change_to_how_git_reads_files_needs_a_full_read(agent: Repo, name: str) -> None:
    worktree, sides, diff = loaded(agent)
    agent.write(name, "*.py -diff\n")
    assert scope.reread(worktree, sides, diff, [str(agent.root / name)]) is None


def test_a_new_file_needs_a_full_read(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    agent.write("fresh.py", "new\n")
    assert scope.reread(worktree, sides, diff, [str(agent.root / "fresh.py")]) is None


def test_an_added_file_changed_again_needs_a_full_read(agent: Repo) -> None:
    agent.write("fresh.py", "new\n")
    worktree, sides, diff = loaded(agent)
    agent.write("fresh.py", "newer\n")
    assert scope.reread(worktree, sides, diff, [str(agent.root / "fresh.py")]) is None


def test_a_deleted_file_needs_a_full_read(agent: Repo) -> None:
    worktree, sides, diff = loaded(agent)
    (agent.root / "z.py").unlink()
    assert scope.reread(worktree, sides, diff, [str(agent.root / "z.py")]) is None


def test_either_side_of_a_rename_needs_a_full_read(agent: Repo) -> None:
    agent.git("mv", "c.py", "moved.py")
    worktree, sides, diff = loaded(agent)
    assert [f.status for f in diff.files if f.path == "moved.py"] == [Status.RENAMED]
    changed = edit(agent, "moved.py", 3, "changed after the move")
    assert scope.reread(worktree, sides, diff, [changed]) is None
    agent.write("c.py", "back again\n")
    assert scope.reread(worktree, sides, diff, [str(agent.root / "c.py")]) is None


def test_a_file_entering_a_diff_with_added_files_needs_a_full_read(agent: Repo) -> None:
    # git looks for the source of an added file among the modified files: c.py, modified now,
    # turns the new copy of it into a copy
    (agent.root / "copy.py").write_bytes((agent.root / "c.py").read_bytes())
    worktree, sides, diff = loaded(agent)
    changed = edit(agent, "c.py", 30, "c.py changed at the end")
    assert scope.reread(worktree, sides, diff, [changed]) is None
    assert [(f.status, f.old_path) for f in scope.read(worktree, sides).files if f.path == "copy.py"] == [
        (Status.COPIED, "c.py")
    ]


def test_a_change_inside_a_nested_repository_needs_a_full_read(agent: Repo) -> None:
    nested = Repo(agent.root / "vendor" / "lib")
    nested.root.mkdir(parents=True)
    nested.git("init", "--quiet")
    nested.write("lib.py", "x = 1\n")
    nested.commit("lib")
    worktree, sides, diff = loaded(agent)
    nested.write("lib.py", "x = 2\n")
    assert scope.reread(worktree, sides, diff, [str(nested.root / "lib.py")]) is None


# -- scopes the working tree is not a side of --------------------------------------------------


def test_a_range_does_not_change_when_the_working_tree_does(agent: Repo) -> None:
    agent.commit("agent work")
    worktree, sides, diff = loaded(agent, Scope(range="main..agent/work"))
    changed = edit(agent, "z.py", 1, "not committed")
    assert scope.reread(worktree, sides, diff, [changed]) is diff


def test_the_staged_scope_changes_with_the_index_only(agent: Repo) -> None:
    agent.git("add", "z.py")
    worktree, sides, diff = loaded(agent, Scope(staged=True))
    changed = edit(agent, "z.py", 1, "not staged")
    assert scope.reread(worktree, sides, diff, [changed]) is diff
    agent.git("add", "z.py")
    assert scope.reread(worktree, sides, diff, [str(worktree.git_dir / "index")]) is None


def test_untracked_files_are_listed_for_the_paths_asked_for_only(project: Repo) -> None:
    for n in range(5):
        project.write(f"new/file_{n}.py", f"n = {n}\n")
    project.write("other.py", "other\n")
    worktree = git.find_worktree(project.root)
    assert git.untracked_files(worktree, ["new/file_3.py", "src/app.py"]) == [b"new/file_3.py"]
    assert git.untracked_files(worktree) == [b"new/", b"other.py"]
