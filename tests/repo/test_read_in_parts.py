"""A diff of many files read by several gits at once (`scope.read(in_parts=True)`): the same diff
as one git reads, every kind of file in it."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from held_git import held, hold_git_at
from review.background import in_a_thread
from review.errors import GitFailed
from review.repo import git, scope
from review.repo.diff import Diff, FileDiff, Record, joined, parse, same_file

PARTS = 3


@pytest.fixture
def many(project: Repo, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """An agent's worktree whose diff has every kind of file, enough of them to be read in
    `PARTS` parts."""
    monkeypatch.setattr(scope, "PARTS_FROM", 8)
    monkeypatch.setattr(scope, "PARTS_FROM_BYTES", 1000)
    monkeypatch.setattr(scope, "_cores", lambda: PARTS)
    for n in range(12):
        project.write(f"src/kept_{n:02}.py", "".join(f"line {i}\n" for i in range(40)))
    project.write("src/moved.py", "".join(f"moved {i}\n" for i in range(40)))
    project.write("src/gone.py", "gone\n")
    project.write("tool.sh", "echo\n")
    project.commit("files")
    agent = project.worktree("agent", "agent/work")
    for n in range(0, 12, 2):
        agent.write(f"src/kept_{n:02}.py", "".join(f"line {i}{' changed' * (i == n)}\n" for i in range(40)))
    agent.git("mv", "src/moved.py", "src/moved_here.py")
    agent.commit("moved")
    (agent.root / "src/gone.py").unlink()
    os.chmod(agent.root / "tool.sh", 0o755)
    agent.write("src/new_untracked.py", "new\n")
    agent.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    agent.write("src/l\xe4tin1.py".encode("latin-1"), b"caf\xe9\n")
    agent.write("notes/tab\tand\nnewline.txt", "strange\n")
    return agent


def read(repo: Repo, *, in_parts: bool) -> Diff:
    worktree = git.find_worktree(repo.root)
    return scope.read(worktree, scope.resolve(worktree, scope.Scope()), in_parts=in_parts)


def shown(file: FileDiff) -> tuple[object, ...]:
    """All that the screen shows of a file."""
    return file.record, file.counts, file.patch, [(h.header, [(x.kind, x.text) for x in h.lines]) for h in file.hunks]


def test_a_diff_read_in_parts_is_the_diff_one_git_reads(many: Repo) -> None:
    whole = read(many, in_parts=False)
    parts = read(many, in_parts=True)

    assert len(whole.files) >= scope.PARTS_FROM
    assert [shown(f) for f in parts.files] == [shown(f) for f in whole.files]
    assert {f.status.value for f in parts.files} >= {"M", "A", "D", "R"}
    assert any(f.binary for f in parts.files) and any(f.mode_changed for f in parts.files)
    # (each git's output is the patches' own: as many as there are parts)
    assert len({id(f._output) for f in parts.files}) == PARTS


def test_the_first_screen_is_told_of_each_file_until_it_has_enough(many: Repo) -> None:
    worktree = git.find_worktree(many.root)
    sides = scope.resolve(worktree, scope.Scope())
    named: list[list[Record]] = []
    told: list[str] = []

    def parsed(file: FileDiff) -> bool:
        told.append(file.path)
        return len(told) == 10  # past the first part's files

    diff = scope.read(worktree, sides, named=named.append, parsed=parsed, in_parts=True)

    assert [[r for r in records] for records in named] == [[f.record for f in diff.files]]
    assert told == [f.path for f in diff.files[:10]]


def test_a_diff_of_few_files_is_read_by_one_git(many: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scope, "PARTS_FROM", 1000)
    assert len({id(f._output) for f in read(many, in_parts=True).files}) == 1


def test_a_diff_of_many_files_but_few_bytes_is_read_by_one_git(many: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    # (the working tree's side of the `many` diff comes to 3-4 KB)
    monkeypatch.setattr(scope, "PARTS_FROM_BYTES", 64 << 10)
    assert len({id(f._output) for f in read(many, in_parts=True).files}) == 1


@pytest.mark.parametrize("compared", [scope.Scope(), scope.Scope(staged=True), "commits"])
def test_the_new_side_s_bytes_are_those_git_compares(many: Repo, compared: scope.Scope | str) -> None:
    if compared == "commits":
        many.git("add", "-A")
        many.commit("all of it")
        compared = scope.Scope(range="main..HEAD")
    elif compared == scope.Scope(staged=True):
        many.git("add", "-A")
    assert isinstance(compared, scope.Scope)
    worktree = git.find_worktree(many.root)
    sides = scope.resolve(worktree, compared)
    found = [file.record for file in scope.read(worktree, sides).files]
    # what is on disk now, for each file there (the working tree, the index and the commit hold
    # the same content here)
    size = sum((many.root / path).lstat().st_size for _, (*_, path) in found if (many.root / path).exists())

    assert scope.new_side_has(worktree, sides, found, size)
    assert not scope.new_side_has(worktree, sides, found, size + 1)


def test_a_diff_with_many_new_files_past_its_first_part_is_read_whole(
    many: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (git is slower at new files in parts)
    monkeypatch.setattr(scope, "NEW_AT_MOST", 0)
    assert len({id(f._output) for f in read(many, in_parts=True).files}) == 1


def test_the_sizes_of_a_diff_read_whole_for_its_new_files_are_not_looked_at(
    many: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (10,000 untracked files were looked at, each on its own, for nothing)
    monkeypatch.setattr(scope, "NEW_AT_MOST", 0)
    looked_at: list[int] = []
    new_side_has = scope.new_side_has

    def looking(worktree: git.Worktree, sides: scope.Sides, found: list[Record], size: int) -> bool:
        looked_at.append(len(found))
        return new_side_has(worktree, sides, found, size)

    monkeypatch.setattr(scope, "new_side_has", looking)
    assert len({id(f._output) for f in read(many, in_parts=True).files}) == 1
    assert looked_at == []
    # (and looked at when the new files allow parts)
    monkeypatch.setattr(scope, "NEW_AT_MOST", 64)
    assert len({id(f._output) for f in read(many, in_parts=True).files}) == PARTS
    assert looked_at == [len(read(many, in_parts=False).files)]


def test_parts_whose_paths_would_not_fit_on_gits_command_line_are_read_whole(
    many: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scope, "PATHS_AT_MOST", 10)
    diff = read(many, in_parts=True)
    assert len({id(f._output) for f in diff.files}) == 1
    assert [shown(f) for f in diff.files] == [shown(f) for f in read(many, in_parts=False).files]


def test_a_part_s_git_reads_the_first_git_s_copy_of_the_index(
    many: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the untracked files added to it are not listed and added again: a file made after the
    # first git started is in neither, as in one git's diff
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    worktree = git.find_worktree(many.root)
    whole = scope.start(worktree, scope.resolve(worktree, scope.Scope()))
    many.write("src/made_after.py", "later\n")
    part = whole.of_paths(["src"])
    assert part is not None
    assert {f.path for f in parse(part).files if f.status.value == "A"} == {
        "src/new_untracked.py",
        os.fsdecode(b"src/l\xe4tin1.py"),
    }
    assert index_copies(tmp_path)  # (the first git has not ended: it is still read from)
    whole.stop()
    assert not index_copies(tmp_path)


def test_a_git_that_has_ended_gives_no_part(many: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # its copy of the index is gone: a part reads the diff with its own
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    worktree = git.find_worktree(many.root)
    whole = scope.start(worktree, scope.resolve(worktree, scope.Scope()))
    whole.wait()
    assert not index_copies(tmp_path)
    assert whole.of_paths(["src"]) is None
    whole.stop()


def test_the_other_parts_are_parsed_while_the_first_part_s_git_still_writes(
    project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git is held at a file of the first part, once it has written more than a chunk of its
    # output (what the reader waits for): the others are read meanwhile. New files alone: git
    # would read the held file before its records to look for a copy of a changed file in it.
    monkeypatch.setattr(scope, "PARTS_FROM", 8)
    monkeypatch.setattr(scope, "PARTS_FROM_BYTES", 1000)
    monkeypatch.setattr(scope, "_cores", lambda: 2)
    lock = hold_git_at(project, "b_held.txt", tmp_path)
    agent = project.worktree("agent", "agent/work")
    agent.write("a_big.txt", "".join(f"line {n}\n" for n in range(200_000)))
    agent.write("b_held.txt", "held\n")
    for n in range(10):
        agent.write(f"c/file_{n}.txt", f"file {n}\n")
    parsed: list[str] = []
    real_parse = scope.parse

    def parse_noted(output: git.Running, *args: Any, **kwargs: Any) -> Diff:
        diff = real_parse(output, *args, **kwargs)
        parsed.append(threading.current_thread().name)
        return diff

    monkeypatch.setattr(scope, "parse", parse_noted)
    with held(lock) as holding:
        reading = in_a_thread(lambda: read(agent, in_parts=True), "test-read")
        until = time.monotonic() + 5
        while not parsed and time.monotonic() < until:
            time.sleep(0.01)
        assert parsed == ["review-part"]
        assert not reading.done()
        holding.let_go()
        diff = reading.result(timeout=10)
    assert parsed == ["review-part", "test-read"]
    assert [shown(f) for f in diff.files] == [shown(f) for f in read(agent, in_parts=False).files]


def test_a_part_whose_git_fails_fails_the_reading_once_every_part_is_done(
    many: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the parts are real gits, given an option they do not know
    started: list[git.Running] = []

    def failing(running: git.Running, paths: list[str]) -> git.Running:
        started.append(git.Running(many.root, ["git", "diff", "--no-such-option", "--", *paths]))
        return started[-1]

    monkeypatch.setattr(git.Running, "of_paths", failing)
    with pytest.raises(GitFailed, match="no-such-option"):
        read(many, in_parts=True)
    assert len(started) == PARTS - 1
    assert all(part.output.closed for part in started)


def index_copies(folder: Path) -> list[Path]:
    return list(folder.glob("review-index-*"))


ZEROS = "0" * 40
BLOB = "a" * 40


def record(new_blob: str = ZEROS, status: str = "M", paths: tuple[str, ...] = ("a.py",)) -> Record:
    return ("100644", "100644", "b" * 40, new_blob, status), paths


def test_a_working_tree_file_named_by_its_blob_in_one_reading_alone_is_the_same_file() -> None:
    assert same_file(record(ZEROS), record(BLOB)) and same_file(record(BLOB), record(ZEROS))
    assert not same_file(record(BLOB), record("c" * 40))
    assert not same_file(record(), record(status="A")) and not same_file(record(), record(paths=("b.py",)))


def test_pieces_that_are_not_the_whole_diffs_files_do_not_join(many: Repo) -> None:
    whole = read(many, in_parts=False)
    found = [f.record for f in whole.files]
    # a rename git paired otherwise when reading fewer files: a file missing, another in its place
    assert joined([Diff(files=whole.files[:-1], size=0)], found) is None
    assert joined([Diff(files=whole.files[1:] + whole.files[:1], size=0)], found) is None
    assert joined([Diff(files=whole.files[:3], size=0), Diff(files=whole.files[3:], size=0)], found) is not None


def test_a_piece_takes_the_blob_names_of_the_whole_diff(many: Repo) -> None:
    whole = read(many, in_parts=False)
    file = whole.files[0]
    named = (*file.record[0][:3], BLOB if set(file.new_blob) == {"0"} else ZEROS, file.record[0][4])
    found: list[Record] = [((named[0], named[1], named[2], named[3], named[4]), file.paths)]
    assert joined([Diff(files=[file], size=0)], found) is not None
    assert file.record == found[0]


def records_of(*files: tuple[str, str]) -> list[Record]:
    """Records of (status, path) pairs; a rename's or copy's paths as `old>new`."""
    return [record(status=status, paths=tuple(path.split(">"))) for status, path in files]


def test_a_part_is_given_its_folders_whole_and_its_other_files_by_name() -> None:
    found = records_of(("M", "a/x"), ("M", "a/y"), ("M", "b/c/one"), ("M", "b/c/two"), ("A", "b/d"), ("M", "top"))
    assert scope._pathspecs(found, [0, 2, 6]) == [["b", "top"]]
    # a folder shared with the part before: its files there are not the part's
    assert scope._pathspecs(found, [0, 3, 6]) == [["b/c/two", "b/d", "top"]]
    assert scope._pathspecs(found, [0, 2, 4, 6]) == [["b/c"], ["b/d", "top"]]


def test_a_folder_a_file_was_renamed_from_in_another_part_is_not_given_whole() -> None:
    found = records_of(("R100", "old/gone>a/new"), ("M", "old/kept"), ("M", "z"))
    assert scope._pathspecs(found, [0, 1, 3]) == [["old/kept", "z"]]
    assert scope._pathspecs(found, [0, 2, 3]) == [["z"]]


def test_a_copy_of_a_file_changed_in_another_part_has_the_diff_read_whole() -> None:
    # git, given the copy's source to find the copy, would read the source's change twice
    found = records_of(("M", "a/source"), ("M", "b/other"), ("C075", "a/source>c/copy"))
    assert scope._pathspecs(found, [0, 2, 3]) is None
    assert scope._pathspecs(found, [0, 1, 3]) is None
    assert scope._pathspecs(found, [0, 0, 3]) == [["a", "b", "c"]]
