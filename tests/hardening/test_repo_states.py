"""Repository states: a worktree in the middle of a rebase, a merge, a cherry-pick or a bisect; a
shallow clone, a sparse checkout, submodules, a deleted worktree, a bare repository, an awkward
path, line-ending and file-mode settings, diff attributes, a detached HEAD, an orphan branch and an
empty repository.

For each, the verbs a reviewer and an agent use run as they do for real: the viewer's reading
(`read_apart`, what the screen shows), `review status --json`, `review comment`, `review send`
and `review pending --json`. Each either works, with the right diff, or ends in one clear line
(`review: ...` on stderr, exit status 1).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.cli import main
from review.errors import GitFailed
from review.repo import diff, git, scope
from review.repo.diff import Diff, FileDiff, Status, parse
from review.repo.scope import Scope, Sides
from review.state.opening import read_apart
from tmux import Terminal, review_command

REVIEW = review_command()


@dataclass(frozen=True)
class Done:
    """What a `review` verb did: its exit status and what it printed."""

    status: int
    out: str
    err: str


def review(capsys: pytest.CaptureFixture[str], *args: str) -> Done:
    """Run the `review` command line, here, as the console script runs it."""
    status = main(list(args))
    out, err = capsys.readouterr()
    return Done(status, out, err)


def ok(done: Done) -> str:
    assert (done.status, done.err) == (0, ""), done
    return done.out


def one_line(done: Done) -> str:
    """The one line of a refusal, checked to be only that: `review: ...`, status 1."""
    assert done.status == 1, done
    assert done.err.startswith("review: ") and done.err.count("\n") == 1, done
    assert "internal error" not in done.err and "Traceback" not in done.err, done
    return done.err.removeprefix("review: ").rstrip("\n")


def viewed(path: Path, chosen: Scope = Scope()) -> tuple[Sides, Diff]:
    """What the viewer shows of the worktree at `path`: the diff it reads while the screen is
    made, with every file's hunks parsed as the screen parses them, and the review found in it."""
    first = read_apart(git.find_worktree(path), chosen)
    found = first.reading.result(timeout=60)
    first.anchoring.result(timeout=60)
    for file in found.files:
        assert file.hunks is not None
    return first.sides, found


def files(diff: Diff) -> dict[str, Status]:
    return {f.path: f.status for f in diff.files}


def added_lines(file: FileDiff) -> list[str]:
    return [line.text for hunk in file.hunks for line in hunk.lines if line.kind == "+"]


def row(capsys: pytest.CaptureFixture[str], path: Path, name: str) -> dict[str, Any]:
    """The row of worktree `name` in `review status --json` run at `path`."""
    rows = {
        found["name"]: found for found in json.loads(ok(review(capsys, "status", "--json", str(path))))["worktrees"]
    }
    return rows[name]


def comment_send_and_read(capsys: pytest.CaptureFixture[str], path: Path, target: str) -> dict[str, Any]:
    """The reviewer comments on `target` and sends; the agent reads it: its comment, as
    `review pending --json` gives it."""
    made = ok(review(capsys, "comment", "-C", str(path), target, "-m", "look here")).strip()
    assert ok(review(capsys, "send", "-C", str(path), "-m", "one thing")).startswith("Sent review r1: 1 comment")
    pending = json.loads(ok(review(capsys, "pending", "-C", str(path), "--json")))
    (comment,) = pending["comments"]
    assert (comment["id"], comment["body"]) == (made, "look here")
    return comment


# In the middle of an operation, with a conflict.


@pytest.fixture
def diverged(project: Repo) -> Repo:
    """The agent's branch and main each changed the same line of src/util.py; the agent's is
    checked out."""
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("src/util.py", "def helper():\n    return 2\n")
    project.commit("two, by the agent")
    project.git("checkout", "--quiet", "main")
    project.write("src/util.py", "def helper():\n    return 3\n")
    project.commit("three, on main")
    project.git("checkout", "--quiet", "agent")
    return project


def stop_at_conflict(repo: Repo, *args: str) -> None:
    done = subprocess.run(["git", *args], cwd=repo.root, capture_output=True, check=False)
    assert done.returncode != 0 and b"CONFLICT" in done.stdout + done.stderr, done


MARKERS = ("<<<<<<< ", "=======", ">>>>>>> ")


def assert_conflict_shown(diff: Diff) -> None:
    """The conflicted file is in the diff, its conflict markers lines of the file."""
    util = diff.file("src/util.py")
    assert util is not None
    shown = added_lines(util)
    for marker in MARKERS:
        assert any(line.startswith(marker) for line in shown), shown
    assert "    return 2" in shown


@pytest.mark.parametrize(
    ("operation", "says"),
    [
        (("rebase", "main"), "in the middle of a rebase"),
        (("merge", "main"), "in the middle of a merge"),
        (("cherry-pick", "main"), "in the middle of a cherry-pick"),
    ],
)
def test_a_conflict_in_the_middle_of_an_operation_shows_its_markers_and_the_loop_works(
    diverged: Repo, capsys: pytest.CaptureFixture[str], operation: tuple[str, ...], says: str
) -> None:
    stop_at_conflict(diverged, *operation)
    sides, diff = viewed(diverged.root)
    assert sides.label == "main...working tree"
    assert_conflict_shown(diff)
    found = row(capsys, diverged.root, "repo")
    assert (found["note"], found["problem"], found["files"]) == (says, None, 1)
    comment = comment_send_and_read(capsys, diverged.root, "src/util.py:2")
    assert comment["code"][0].startswith("<<<<<<< ")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_the_viewer_opens_in_the_middle_of_a_merge_with_the_conflict_markers_as_lines(
    diverged: Repo, tmp_path: Path
) -> None:
    stop_at_conflict(diverged, "merge", "main")
    terminal = Terminal(tmp_path, width=100, height=30)
    try:
        terminal.run(f"{shlex.quote(REVIEW)} {shlex.quote(str(diverged.root))}")
        screen = terminal.wait_for(">>>>>>> main")
        assert "main...working tree  1 file  +5 −1" in screen
        assert "M util.py +5 −1" in screen
        rows = [line.split("▕", 1)[-1] for line in screen.splitlines()]
        for number, text in [(2, "<<<<<<< HEAD"), (3, "    return 2"), (4, "======="), (6, ">>>>>>> main")]:
            assert any(re.fullmatch(rf"\s+{number} \+ {re.escape(text)}\s*", row) for row in rows), screen
        terminal.keys("q")
        after = terminal.wait_until_gone(">>>>>>> main")
        assert "review:" not in after and "Traceback" not in after
    finally:
        terminal.close()


def test_the_staged_scope_of_a_merge_lists_every_unmerged_file(
    diverged: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # added on both sides, and changed by the agent where main deleted it
    diverged.write("both.txt", "by the agent\n")
    diverged.write("README.md", "# kept by the agent\n")
    diverged.commit("the agent adds a file and edits the README")
    diverged.git("checkout", "--quiet", "main")
    diverged.write("both.txt", "on main\n")
    diverged.git("rm", "--quiet", "README.md")
    diverged.commit("main adds the same file and deletes the README")
    diverged.git("checkout", "--quiet", "agent")
    stop_at_conflict(diverged, "merge", "main")
    _, staged = viewed(diverged.root, Scope(staged=True))
    assert files(staged) == {"README.md": Status.UNMERGED, "both.txt": Status.UNMERGED, "src/util.py": Status.UNMERGED}
    # git's unmerged sections are found wherever a chunk read cuts them
    worktree = git.find_worktree(diverged.root)
    output = git.diff_output(worktree, scope.resolve(worktree, Scope(staged=True)).old, cached=True)
    assert output.count(b"* Unmerged path ") == 3
    for chunk in (1, 7, 64):
        monkeypatch.setattr(diff, "_CHUNK", chunk)
        assert files(parse(output)) == files(staged)
    _, everything = viewed(diverged.root)
    assert_conflict_shown(everything)
    both = everything.file("both.txt")
    assert both is not None and any(line.startswith("<<<<<<< ") for line in added_lines(both))
    comment_send_and_read(capsys, diverged.root, "both.txt:1")


def test_git_am_stopped_at_a_patch_that_does_not_apply_says_so(
    diverged: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    patch = diverged.git("format-patch", "-1", "--stdout").encode()
    diverged.git("checkout", "--quiet", "-b", "applying", "main")
    done = subprocess.run(["git", "am"], cwd=diverged.root, input=patch, capture_output=True, check=False)
    assert done.returncode != 0 and (diverged.root / ".git/rebase-apply/applying").exists()
    diverged.write("src/app.py", "meanwhile\n")
    _, diff = viewed(diverged.root)
    assert files(diff) == {"src/app.py": Status.MODIFIED}
    found = row(capsys, diverged.root, "repo")
    assert (found["note"], found["problem"], found["files"]) == ("in the middle of git am", None, 1)
    comment_send_and_read(capsys, diverged.root, "src/app.py:1")


def test_a_bisect_reviews_the_commit_it_stopped_at(project: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    project.git("checkout", "--quiet", "-b", "agent")
    for n in range(4):
        project.write("src/app.py", f"version {n}\n")
        project.commit(f"version {n}")
    project.git("bisect", "start", "HEAD", "main")
    at = (project.root / "src/app.py").read_text().strip()
    _, diff = viewed(project.root)
    app = diff.file("src/app.py")
    assert app is not None and added_lines(app) == [at]
    found = row(capsys, project.root, "repo")
    assert (found["note"], found["problem"]) == ("bisecting", None)
    assert comment_send_and_read(capsys, project.root, "src/app.py:1")["code"] == [at]


# Clones that hold part of the repository.


@pytest.fixture
def shallow(project: Repo, tmp_path: Path) -> Repo:
    """A clone of one commit of each branch, on the agent's branch, that changed src/util.py: where
    the branch left main is not in it."""
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("src/app.py", "committed by the agent\n")
    project.commit("the agent's work")
    project.git("checkout", "--quiet", "main")
    project.write("README.md", "# main moved on\n")
    project.commit("main moves on")
    clone = Repo(tmp_path / "shallow")
    project.git("clone", "--quiet", "--depth", "1", "--no-single-branch", f"file://{project.root}", str(clone.root))
    clone.git("checkout", "--quiet", "agent")
    clone.write("src/util.py", "uncommitted\n")
    return clone


def test_a_shallow_clone_without_the_branch_point_says_what_it_compares(
    shallow: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = shallow
    sides, diff = viewed(clone.root)
    # git cannot find where the branch left main: what is compared says so, and shows the work
    # it can (rather than "no changes", or main's new commits as the agent's).
    assert sides.label == "HEAD...working tree (shallow clone)"
    assert files(diff) == {"src/util.py": Status.MODIFIED}
    found = row(capsys, clone.root, "shallow")
    assert found["note"] == "shallow clone: where it left the default branch is not fetched (`git fetch --unshallow`)"
    assert (found["problem"], found["files"]) == (None, 1)
    comment_send_and_read(capsys, clone.root, "src/app.py:1")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_the_viewers_header_in_a_shallow_clone_says_so(shallow: Repo, tmp_path: Path) -> None:
    terminal = Terminal(tmp_path, width=100, height=12)
    try:
        terminal.run(f"{shlex.quote(REVIEW)} {shlex.quote(str(shallow.root))}")
        screen = terminal.wait_for("M util.py")
        assert "shallow  agent  HEAD...working tree (shallow clone)  1 file  +1 −2" in screen.splitlines()[0]
        terminal.keys("q")
        terminal.wait_until_gone("M util.py")
    finally:
        terminal.close()


@pytest.mark.parametrize("cone", [True, False])
def test_a_sparse_checkout_reviews_the_files_outside_it_as_committed(
    project: Repo, capsys: pytest.CaptureFixture[str], cone: bool
) -> None:
    project.write("docs/guide.md", "a guide\n")
    project.commit("docs")
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("docs/guide.md", "a better guide\n")
    project.commit("the agent edits the docs")
    if cone:
        project.git("sparse-checkout", "set", "--cone", "src")
    else:
        project.git("sparse-checkout", "set", "--no-cone", "/src/")
    assert not (project.root / "docs").exists()
    project.write("src/app.py", "edited in the sparse checkout\n")
    project.write("src/new.py", "untracked\n")
    _, diff = viewed(project.root)
    assert files(diff) == {"docs/guide.md": Status.MODIFIED, "src/app.py": Status.MODIFIED, "src/new.py": Status.ADDED}
    assert row(capsys, project.root, "repo")["files"] == 3
    comment_send_and_read(capsys, project.root, "src/new.py:1")
    # sending took a snapshot without touching the checkout or its index
    assert not (project.root / "docs").exists()
    assert project.git("diff", "--cached", "--name-only") == ""


@pytest.fixture
def with_submodules(project: Repo, tmp_path: Path) -> Repo:
    """The project with a submodule `lib` that has a submodule of its own, `lib/inner`."""
    inner = Repo(tmp_path / "inner")
    inner.root.mkdir()
    inner.git("init", "--quiet")
    inner.write("inner.txt", "inner\n")
    inner.commit("inner")
    lib = Repo(tmp_path / "lib")
    lib.root.mkdir()
    lib.git("init", "--quiet")
    lib.write("lib.txt", "lib\n")
    lib.git("submodule", "add", "--quiet", str(inner.root), "inner")
    lib.commit("lib")
    project.git("submodule", "add", "--quiet", str(lib.root), "lib")
    project.commit("lib as a submodule")
    project.git("checkout", "--quiet", "-b", "agent")
    return project


def test_nested_submodules_show_as_their_commits(with_submodules: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = with_submodules
    repo.git("submodule", "update", "--quiet", "--init", "--recursive")
    lib = Repo(repo.root / "lib")
    lib.write("lib.txt", "changed in lib\n")
    lib.commit("lib moves on")
    (repo.root / "lib/inner/inner.txt").write_text("changed, not committed\n")
    repo.write("src/app.py", "the agent's change\n")
    _, diff = viewed(repo.root)
    assert files(diff) == {"lib": Status.MODIFIED, "src/app.py": Status.MODIFIED}
    submodule = diff.file("lib")
    assert submodule is not None and submodule.submodule
    assert row(capsys, repo.root, "repo")["files"] == 2
    comment_send_and_read(capsys, repo.root, "src/app.py:1")


def test_an_agent_at_work_inside_a_submodule_reviews_the_submodule(
    with_submodules: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_submodules.git("submodule", "update", "--quiet", "--init")
    lib = Repo(with_submodules.root / "lib")
    lib.git("checkout", "--quiet", "-b", "agent")
    lib.write("lib.txt", "the agent's change inside the submodule\n")
    linked = Repo(tmp_path / "lib-linked")
    lib.git("worktree", "add", "--quiet", "-b", "linked", str(linked.root))
    linked.write("lib.txt", "in a worktree of the submodule\n")
    sides, diff = viewed(lib.root)
    assert (sides.label, files(diff)) == ("main...working tree", {"lib.txt": Status.MODIFIED})
    # git names a submodule's own worktree by its git folder (.git/modules/lib): the row is the
    # working tree's, read as any other
    for where in (lib.root, linked.root):
        rows = json.loads(ok(review(capsys, "status", "--json", str(where))))["worktrees"]
        assert [(r["path"], r["files"], r["problem"]) for r in rows] == [
            (str(lib.root), 1, None),
            (str(linked.root), 1, None),
        ]
    comment_send_and_read(capsys, lib.root, "lib.txt:1")


def test_a_repository_with_its_git_folder_elsewhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `git init --separate-git-dir`: git lists the worktree by its git folder, as a submodule's
    repo = Repo(tmp_path / "work")
    subprocess.run(
        ["git", "init", "--quiet", f"--separate-git-dir={tmp_path / 'elsewhere'}", str(repo.root)], check=True
    )
    repo.write("a.txt", "a\n")
    repo.commit("a")
    repo.git("checkout", "--quiet", "-b", "agent")
    repo.write("a.txt", "b\n")
    assert files(viewed(repo.root)[1]) == {"a.txt": Status.MODIFIED}
    rows = json.loads(ok(review(capsys, "status", "--json", str(repo.root))))["worktrees"]
    assert [(r["path"], r["files"], r["problem"]) for r in rows] == [(str(repo.root), 1, None)]
    comment_send_and_read(capsys, repo.root, "a.txt:1")


def test_an_uninitialised_submodule_is_not_a_change(
    with_submodules: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = Repo(tmp_path / "clone")
    with_submodules.git("clone", "--quiet", str(with_submodules.root), str(clone.root))
    assert list((clone.root / "lib").iterdir()) == []
    clone.write("src/app.py", "the agent's change\n")
    _, diff = viewed(clone.root)
    assert files(diff) == {"src/app.py": Status.MODIFIED}
    # from inside the empty folder, the review is the outer repository's
    assert viewed(clone.root / "lib")[0] == viewed(clone.root)[0]
    assert row(capsys, clone.root, "clone")["files"] == 1
    comment_send_and_read(capsys, clone.root, "src/app.py:1")


def test_a_repository_without_commits_inside_the_worktree_is_left_out_and_the_rest_reviewed(
    project: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent ran `git init` in a new folder (a scaffolding tool does): git has no commit to
    # record such a repository by, and cannot add it.
    project.git("checkout", "--quiet", "-b", "agent")
    for folder in ("scaffold", "new/deeper"):
        (project.root / folder).mkdir(parents=True)
        Repo(project.root / folder).git("init", "--quiet")
        project.write(f"{folder}/inside.txt", "in a repository of its own\n")
    project.write("new/beside.txt", "beside it\n")
    project.write("src/app.py", "the agent's change\n")
    _, diff = viewed(project.root)
    assert files(diff) == {"new/beside.txt": Status.ADDED, "src/app.py": Status.MODIFIED}
    found = row(capsys, project.root, "repo")
    assert (found["problem"], found["files"]) == (None, 2)
    comment_send_and_read(capsys, project.root, "new/beside.txt:1")


# Worktrees that are not there, and repositories without one.


def test_a_worktree_whose_folder_was_deleted_is_a_row_and_one_line(
    project: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = project.worktree("gone", "agent/gone")
    shutil.rmtree(gone.root)
    found = row(capsys, project.root, "gone")
    assert (found["problem"], found["waits_on"]) == ("its folder is gone; `git worktree prune` forgets it", "nothing")
    assert one_line(review(capsys, "pending", "-C", str(gone.root))) == f"{gone.root}: no such file or directory"
    assert one_line(review(capsys, str(gone.root))) == f"{gone.root}: no such file or directory"


def test_a_worktree_whose_repository_moved_is_one_line_that_says_how_to_mend_it(
    project: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = project.worktree("agent", "agent/work")
    moved = tmp_path / "moved"
    project.root.rename(moved)
    says = (
        f"{agent.root}: its .git file points to {project.root}/.git/worktrees/agent, which is gone (if the"
        " repository moved, `git worktree repair` run in it mends this)"
    )
    assert one_line(review(capsys, "pending", "-C", str(agent.root))) == says
    assert one_line(review(capsys, "status", str(agent.root))) == says
    Repo(moved).git("worktree", "repair", str(agent.root))
    assert viewed(agent.root)[1].files == []


def test_git_run_in_a_folder_deleted_meanwhile_says_the_folder_is_gone(project: Repo) -> None:
    # (as a worktree the overview or the viewer reads can be deleted between two git commands)
    gone = project.worktree("gone", "agent/gone")
    worktree = git.find_worktree(gone.root)
    shutil.rmtree(gone.root)
    with pytest.raises(GitFailed) as failed:
        git.diff_output(worktree, "HEAD", untracked=True)
    assert str(failed.value) == f"{gone.root}: no such file or directory"


@pytest.mark.parametrize("verb", [[], ["pending"], ["status"]])
def test_a_shell_left_in_a_deleted_worktree_gets_one_clear_line(project: Repo, verb: list[str]) -> None:
    gone = project.worktree("gone", "agent/gone")
    script = 'cd "$1" && rm -rf "$1" && shift && exec "$@"'
    done = subprocess.run(
        ["sh", "-c", script, "sh", str(gone.root), REVIEW, *verb], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "review: the current folder was deleted: cd to a folder that exists\n"


def test_a_bare_repository_has_no_diff_to_review_but_a_status(
    project: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.git"
    project.git("clone", "--quiet", "--bare", str(project.root), str(bare))
    says = f"{bare} is not inside a working tree (a bare repository or a .git folder)"
    done = subprocess.run([REVIEW, str(bare)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"review: {says}\n")
    assert one_line(review(capsys, "pending", "-C", str(bare))) == says
    assert one_line(review(capsys, "comment", "-C", str(bare), "README.md:1", "-m", "x")) == says
    found = row(capsys, bare, "bare.git")
    assert found["problem"] == "bare repository: it has no working tree to review"


@pytest.mark.parametrize(
    "folder",
    ["a folder with spaces/ünïcödé ✓ repo", "a line\nbreak/ünïcödé ✓ repo", "tab\tand 'quotes\"/ünïcödé ✓ repo"],
)
def test_a_path_with_spaces_and_non_ascii_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    repo = Repo(tmp_path / folder)
    repo.root.mkdir(parents=True)
    repo.git("init", "--quiet")
    repo.write("src/app.py", "one\n")
    repo.commit("initial")
    repo.git("checkout", "--quiet", "-b", "agent")
    repo.write("new file ü.txt", "new\n")
    repo.write("src/app.py", "two\n")
    sides, diff = viewed(repo.root)
    assert sides.label == "main...working tree"
    assert files(diff) == {"new file ü.txt": Status.ADDED, "src/app.py": Status.MODIFIED}
    assert row(capsys, repo.root, "ünïcödé ✓ repo")["files"] == 2
    comment = comment_send_and_read(capsys, repo.root, "new file ü.txt:1")
    assert (comment["path"], comment["code"]) == ("new file ü.txt", ["new"])


# Settings that change how git reads the files.


@pytest.mark.parametrize("autocrlf", ["true", "input"])
def test_core_autocrlf_shows_the_lines_without_their_carriage_returns(
    project: Repo, capsys: pytest.CaptureFixture[str], autocrlf: str
) -> None:
    project.git("config", "core.autocrlf", autocrlf)
    project.write("crlf.txt", b"one\r\ntwo\r\n")
    project.commit("a CRLF file")
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("crlf.txt", b"one\r\nTWO\r\n")
    project.write("new.txt", b"first\r\nsecond\r\n")
    _, diff = viewed(project.root)
    assert files(diff) == {"crlf.txt": Status.MODIFIED, "new.txt": Status.ADDED}
    crlf, new = diff.file("crlf.txt"), diff.file("new.txt")
    assert crlf is not None and new is not None
    assert (added_lines(crlf), added_lines(new)) == (["TWO"], ["first", "second"])
    assert row(capsys, project.root, "repo")["files"] == 2
    assert comment_send_and_read(capsys, project.root, "crlf.txt:2")["code"] == ["TWO"]


def test_core_filemode_false_hides_modes_in_the_working_tree_but_not_committed_ones(
    project: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("run.sh", "echo run\n")
    project.write("tool.sh", "echo tool\n")
    project.commit("scripts")
    project.git("config", "core.fileMode", "false")
    project.git("checkout", "--quiet", "-b", "agent")
    (project.root / "run.sh").chmod(0o755)  # git is told to ignore this
    project.git("update-index", "--chmod=+x", "tool.sh")  # and records this
    project.commit("tool.sh is executable")
    _, diff = viewed(project.root)
    assert files(diff) == {"tool.sh": Status.MODIFIED}
    tool = diff.file("tool.sh")
    assert tool is not None and (tool.old_mode, tool.new_mode, tool.mode_changed) == ("100644", "100755", True)
    assert row(capsys, project.root, "repo")["files"] == 1
    comment_send_and_read(capsys, project.root, "tool.sh")


def test_diff_drivers_in_gitattributes_never_change_what_is_shown(
    project: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(".gitattributes", "*.up diff=upper\n*.nodiff -diff\n")
    project.write("hello.up", "hello\n")
    project.write("data.nodiff", "plain text\n")
    project.commit("attributes")
    project.git("config", "diff.upper.textconv", "tr a-z A-Z")
    # an external diff program would print what it likes in place of git's patch
    project.git("config", "diff.upper.command", "touch driver-ran; echo garbage")
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("hello.up", "hello world\n")
    project.write("data.nodiff", "other text\n")
    _, diff = viewed(project.root)
    assert files(diff) == {"data.nodiff": Status.MODIFIED, "hello.up": Status.MODIFIED}
    hello, data = diff.file("hello.up"), diff.file("data.nodiff")
    assert hello is not None and data is not None
    assert added_lines(hello) == ["hello world"]  # the file's text, not the textconv's
    assert data.binary and (data.old_size, data.new_size) == (11, 11)
    assert not (project.root / "driver-ran").exists()
    assert row(capsys, project.root, "repo")["files"] == 2
    assert comment_send_and_read(capsys, project.root, "hello.up:1")["code"] == ["hello world"]


# How the index and the objects are kept.


@pytest.mark.parametrize("keeping", ["split index", "index v4", "sparse index", "index.lock held"])
def test_the_index_however_it_is_kept_is_read_and_never_changed(
    project: Repo, capsys: pytest.CaptureFixture[str], keeping: str
) -> None:
    project.git("checkout", "--quiet", "-b", "agent")
    if keeping == "split index":
        project.git("update-index", "--split-index")
    elif keeping == "index v4":
        project.git("update-index", "--index-version", "4")
    elif keeping == "sparse index":
        project.git("sparse-checkout", "set", "--cone", "--sparse-index", "src")
    project.write("src/app.py", "unstaged\n")
    project.write("src/util.py", "staged\n")
    project.git("add", "src/util.py")
    project.write("src/new.py", "untracked\n")
    if keeping == "index.lock held":  # an agent's commit under way
        (project.root / ".git/index.lock").write_bytes(b"")
    status = project.git("status", "--porcelain")
    _, diff = viewed(project.root)
    assert files(diff) == {"src/app.py": Status.MODIFIED, "src/new.py": Status.ADDED, "src/util.py": Status.MODIFIED}
    assert files(viewed(project.root, Scope(staged=True))[1]) == {"src/util.py": Status.MODIFIED}
    assert row(capsys, project.root, "repo")["files"] == 3
    comment_send_and_read(capsys, project.root, "src/new.py:1")
    assert project.git("status", "--porcelain") == status


@pytest.mark.parametrize("untracked", [False, True])
def test_a_file_touched_but_not_changed_leaves_the_index_alone(
    project: Repo, capsys: pytest.CaptureFixture[str], untracked: bool
) -> None:
    # `git diff` against the working tree refreshes the index when a file's times changed but
    # not its content, taking index.lock whatever GIT_OPTIONAL_LOCKS says: an agent committing
    # at that moment would fail. review's diffs read a copy of the index instead.
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("src/app.py", "unstaged\n")
    if untracked:
        project.write("src/new.py", "untracked\n")
    index = project.root / ".git/index"
    touched = project.root / "README.md"
    later = touched.stat().st_mtime + 5
    os.utime(touched, (later, later))
    before = index.read_bytes(), index.stat().st_mtime_ns
    _, found = viewed(project.root)
    expected = {"src/app.py": Status.MODIFIED} | ({"src/new.py": Status.ADDED} if untracked else {})
    assert files(found) == expected
    assert files(viewed(project.root, Scope(base="main"))[1]) == expected
    assert row(capsys, project.root, "repo")["files"] == len(expected)
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


def test_a_repository_of_sha256_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "sha256")
    repo.root.mkdir()
    repo.git("init", "--quiet", "--object-format=sha256")
    repo.write("a.txt", "a\n")
    repo.commit("a")
    repo.git("checkout", "--quiet", "-b", "agent")
    repo.write("a.txt", "b\n")
    repo.write("new.txt", "new\n")
    sides, diff = viewed(repo.root)
    assert len(sides.old) == 64 and files(diff) == {"a.txt": Status.MODIFIED, "new.txt": Status.ADDED}
    assert row(capsys, repo.root, "sha256")["files"] == 2
    assert comment_send_and_read(capsys, repo.root, "new.txt:1")["code"] == ["new"]


def test_a_clean_filter_that_fails_is_one_line_naming_the_file_and_the_filter(
    project: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(".gitattributes", "*.dat filter=broken\n")
    project.commit("a filter")
    project.git("config", "filter.broken.clean", "false")
    project.git("config", "filter.broken.required", "true")
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("data.dat", "through the filter\n")
    says = "data.dat: clean filter 'broken' failed (external filter 'false' failed 1)"
    with pytest.raises(GitFailed) as failed:
        viewed(project.root)
    assert str(failed.value) == says
    assert one_line(review(capsys, "send", "-C", str(project.root), "-m", "a summary")) == says
    assert row(capsys, project.root, "repo")["problem"] == f"git: {says}"


# Where HEAD points.


def test_a_detached_head_is_reviewed_from_where_it_left_main(project: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    project.git("checkout", "--quiet", "-b", "agent")
    project.write("src/app.py", "committed\n")
    project.commit("the agent's work")
    project.git("checkout", "--quiet", "--detach")
    project.write("src/util.py", "uncommitted\n")
    sides, diff = viewed(project.root)
    assert sides.label == "main...working tree"
    assert files(diff) == {"src/app.py": Status.MODIFIED, "src/util.py": Status.MODIFIED}
    assert row(capsys, project.root, "repo")["note"] == "detached HEAD"
    comment_send_and_read(capsys, project.root, "src/util.py:1")


def test_an_orphan_branch_shows_everything_as_added(project: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    project.git("checkout", "--quiet", "--orphan", "fresh")
    project.write("src/app.py", "a fresh start\n")
    sides, diff = viewed(project.root)
    assert sides.label == "(no commits)...working tree"
    assert files(diff) == {"README.md": Status.ADDED, "src/app.py": Status.ADDED, "src/util.py": Status.ADDED}
    assert row(capsys, project.root, "repo")["problem"] == "no commits yet"
    assert comment_send_and_read(capsys, project.root, "src/app.py:1")["code"] == ["a fresh start"]


def test_an_empty_repository_has_nothing_to_review_until_a_file_is_written(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    sides, diff = viewed(repo.root)
    assert (sides.label, diff.files) == ("(no commits)...working tree", [])
    assert row(capsys, repo.root, "repo")["problem"] == "no commits yet"
    comment = review(capsys, "comment", "-C", str(repo.root), "a.txt:1", "-m", "x")
    assert one_line(comment) == "a.txt: no such file, in the worktree or where the work started"
    repo.write("a.txt", "first\n")
    assert files(viewed(repo.root)[1]) == {"a.txt": Status.ADDED}
    assert comment_send_and_read(capsys, repo.root, "a.txt:1")["code"] == ["first"]


# The oldest git.


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("git version 1.8.3.1", "git 1.8.3.1 is too old: review needs git 2.39 or newer"),  # CentOS 7
        ("git version 2.17.1", "git 2.17.1 is too old: review needs git 2.39 or newer"),  # Ubuntu 18.04
        ("git version 2.25.1", "git 2.25.1 is too old: review needs git 2.39 or newer"),  # Ubuntu 20.04
        ("git version 2.34.1\n", "git 2.34.1 is too old: review needs git 2.39 or newer"),  # Ubuntu 22.04
        ("git version 2.37.1 (Apple Git-137.1)", "git 2.37.1 is too old: review needs git 2.39 or newer"),
        ("git version 2.38.1.windows.1", "git 2.38.1.windows.1 is too old: review needs git 2.39 or newer"),
        ("git version 2.39.2", None),  # Debian 12
        ("git version 2.39.5 (Apple Git-154)", None),
        ("git version 2.43.0", None),  # Ubuntu 24.04
        ("git version 2.50.0.rc1.12.gabcdef", None),
        ("git version 3.0.0", None),
        ("not git at all", None),
        ("", None),
    ],
)
def test_a_git_older_than_review_needs_is_named_with_the_version_it_needs(version: str, says: str | None) -> None:
    assert git.version_problem(version) == says


def test_the_git_here_is_new_enough_so_a_failing_command_says_gits_own_error(project: Repo) -> None:
    here = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True).stdout
    assert git.version_problem(here) is None
    with pytest.raises(GitFailed, match=r"^Needed a single revision$"):
        git.run_git(project.root, "rev-parse", "--verify", "no-such-branch")
