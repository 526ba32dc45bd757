"""A diff whatever its size in bounded memory: git's output read a chunk at a time, kept in its
temporary file and read back a file at a time, and the hunks of the files used last kept parsed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from conftest import Repo
from review.errors import BrokenDiff, GitFailed
from review.repo import diff, git, scope
from review.repo.diff import Diff, FileDiff, Status, parse
from review.repo.recently_used import RecentlyUsed
from review.repo.scope import Scope


def load(repo: Repo) -> Diff:
    return scope.load(git.find_worktree(repo.root), Scope())[1]


def every_kind_of_change(project: Repo) -> Repo:
    """Changes of every kind, with awkward content, and enough files to cross chunks."""
    project.write("dos.txt", b"one\r\ntwo\r\n")
    project.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0" + bytes(range(256)))
    project.write("gone.txt", "".join(f"gone {n}\n" for n in range(30)))
    project.write("link.txt", "a file that becomes a link\n")
    project.write("moved.txt", "".join(f"moved {n}\n" for n in range(30)))
    project.commit("more files")
    (project.root / "link.txt").unlink()
    os.symlink("dos.txt", project.root / "link.txt")  # a type change: two sections
    project.write("src/app.py", "".join(f"line {n}\n" if n % 6 else f"LINE {n}\n" for n in range(1, 21)))
    project.write("src/util.py", "def helper():\n    return 2")  # no newline at the end
    project.write("dos.txt", b"one\r\nTWO\r\n")
    project.write("latin1.txt", "caf\xe9\n".encode("latin-1"))
    project.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0changed")
    project.write("new\nline.py", "content\n")
    (project.root / "gone.txt").unlink()
    os.chmod(project.root / "README.md", 0o755)
    (project.root / "README.md").write_text("# project, renamed\n")
    project.git("mv", "README.md", "README.txt")
    (project.root / "moved").mkdir()
    project.git("mv", "moved.txt", "moved/there.txt")
    project.write("moved/there.txt", "".join(f"moved {n}\n" for n in range(29)) + "changed\n")
    for n in range(20):
        project.write(f"many/file_{n}.py", "".join(f"value_{n}_{i} = {i}\n" for i in range(n * 5)))
    return project


def described(file: FileDiff) -> tuple[object, ...]:
    """Everything a file of the diff says, its hunks included."""
    return (
        file.path,
        file.old_path,
        file.status,
        file.old_mode,
        file.new_mode,
        file.similarity,
        file.added,
        file.removed,
        file.binary,
        file.body_lines,
        file.fingerprint,
        file.patch,
        file.line_kinds,
        file.hunks,
        file.utf8,
    )


def test_a_diff_read_back_from_git_s_file_is_the_diff_read_in_memory(
    project: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    every_kind_of_change(project)
    in_memory = [described(f) for f in load(project).files]
    monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    from_file = load(project)
    assert [described(f) for f in from_file.files] == in_memory
    kinds = {f.status for f in from_file.files}
    assert {Status.TYPE_CHANGED, Status.RENAMED, Status.DELETED, Status.ADDED, Status.MODIFIED} <= kinds
    assert any(f.binary for f in from_file.files)


def test_the_fingerprint_is_the_hash_of_the_file_s_patch(project: Repo) -> None:
    # a viewed mark written by an earlier version holds this hash: it must not change
    import hashlib

    every_kind_of_change(project)
    for file in load(project).files:
        assert file.fingerprint == hashlib.sha1(file.patch).hexdigest()[:16]


@pytest.mark.parametrize("chunk", [1, 2, 7, 13, 17, 64, 1000])
def test_reading_a_chunk_at_a_time_finds_what_reading_it_whole_does(
    project: Repo, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    every_kind_of_change(project)
    worktree = git.find_worktree(project.root)
    sides = scope.resolve(worktree, Scope())
    output = git.diff_output(worktree, sides.old, sides.new, untracked=True)
    whole = [described(f) for f in parse(output).files]
    monkeypatch.setattr(diff, "_CHUNK", chunk)
    assert [described(f) for f in parse(output).files] == whole


def test_only_the_hunks_of_the_files_used_last_are_kept(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff, "PARSED_LINES", 0)
    monkeypatch.setattr(diff, "PARSED_FILES", 3)
    for n in range(6):
        project.write(f"f{n}.py", f"{n}\nsecond\n")
    files = load(project).files
    first = files[0].hunks
    for file in files:
        assert file.hunks
    assert [file.parsed for file in files] == [False, False, False, True, True, True]
    again = files[0].hunks
    assert again == first and again is not first
    assert [file.parsed for file in files] == [True, False, False, False, True, True]


def test_hunks_within_the_budget_are_all_kept(project: Repo) -> None:
    for n in range(40):
        project.write(f"f{n}.py", f"{n}\n")
    files = load(project).files
    for file in files:
        assert file.hunks
    assert all(file.parsed for file in files)


def deleted_files_in(folder: Path) -> list[str]:
    """The files this process holds open in `folder`."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return found


def test_a_large_diff_stays_in_a_file_with_no_name_until_the_diff_is_gone(
    project: Repo, monkeypatch: pytest.MonkeyPatch, temporary: Path
) -> None:
    monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    every_kind_of_change(project)
    read = load(project)
    assert [f.path for f in read.files if f.hunks]
    assert list(temporary.iterdir()) == []
    assert len(deleted_files_in(temporary)) == 1
    del read  # closed at once: no cycle holds the diff's files
    assert deleted_files_in(temporary) == []
    assert list(temporary.iterdir()) == []


def test_a_small_diff_is_read_into_memory_and_its_file_closed(project: Repo, temporary: Path) -> None:
    every_kind_of_change(project)
    read = load(project)
    assert read.files
    assert deleted_files_in(temporary) == []
    assert list(temporary.iterdir()) == []


def test_git_failing_leaves_no_temporary_file(project: Repo, temporary: Path) -> None:
    worktree = git.find_worktree(project.root)
    with pytest.raises(GitFailed) as raised:
        git.start_diff(worktree, "no-such-commit").whole()
    # closed as it failed, not when the error (and the frames it holds) is gone
    assert raised.value and deleted_files_in(temporary) == []
    assert list(temporary.iterdir()) == []


def test_a_broken_diff_in_a_file_is_one_line_and_closes_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    with tempfile.TemporaryFile() as output:
        output.write(b":100644 100644 abc def M\0a.txt\0")
        output.seek(0)
        with pytest.raises(BrokenDiff) as raised:
            parse(output)
        assert "\n" not in str(raised.value)
        assert output.closed


def test_a_broken_hunk_read_back_from_a_file_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    with tempfile.TemporaryFile() as output:
        output.write(
            b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
            b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n-x\n+y\n"
        )
        output.seek(0)
        read = parse(output)
        with pytest.raises(BrokenDiff, match=r"^a\.txt: broken diff: [^\n]*$"):
            _ = read.files[0].hunks
        assert not read.files[0].parsed


def test_the_most_recently_used_stay_within_the_budget() -> None:
    kept: RecentlyUsed[str, list[int]] = RecentlyUsed(budget=10, keep=1, size=len)
    kept.put("a", [1] * 4)
    kept.put("b", [2] * 4)
    assert kept.get("a") == [1] * 4  # a is now the most recently used
    kept.put("c", [3] * 4)
    assert ("a" in kept, "b" in kept, "c" in kept) == (True, False, True)
    assert kept.total == 8


def test_the_last_ones_used_stay_whatever_their_size() -> None:
    kept: RecentlyUsed[str, list[int]] = RecentlyUsed(budget=10, keep=2, size=len)
    kept.put("a", [1] * 50)
    kept.put("b", [2] * 50)
    assert len(kept) == 2
    kept.put("c", [3])
    assert ("a" in kept, "b" in kept, "c" in kept) == (False, True, True)
