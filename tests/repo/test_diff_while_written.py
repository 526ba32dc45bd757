"""git's diff parsed while git writes it: the reader waits for what git has not written yet, tells
it from the end of the output by git's exit, and gives the diff it would give once git is done;
git's failure, midway or at the end, is git's error and leaves nothing open.

git is held back midway by a clean filter that waits for a lock the test holds; a writer process
that stands in for git writes a given output in two parts, the lock between them, to end where
git cannot (in the middle of a section, with a failure after a broken output)."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
from test_diff_memory import deleted_files_in, described

from conftest import Repo
from held_git import held, hold_git_at
from review.errors import BrokenDiff, GitFailed
from review.repo import diff, git, scope
from review.repo.diff import Diff, parse
from review.repo.scope import Scope, Sides

WRITER = """
import fcntl, sys
first, rest, lock, status, error = sys.argv[1:]
out = sys.stdout.buffer
out.write(open(first, "rb").read())
out.flush()
with open(lock) as held:
    fcntl.flock(held, fcntl.LOCK_SH)
out.write(open(rest, "rb").read())
out.flush()
sys.stderr.write(error)
sys.exit(int(status))
"""
"""A writer standing in for git: the first part, the rest once the test lets go of the lock, then
an error line and an exit status."""


def parsing(output: git.Running) -> tuple[threading.Thread, Future[Diff]]:
    """`parse(output)` in a thread of its own."""
    result: Future[Diff] = Future()

    def run() -> None:
        try:
            result.set_result(parse(output))
        except BaseException as error:
            result.set_exception(error)

    thread = threading.Thread(target=run, name="parsing")
    thread.start()
    return thread, result


def until_waiting_for_git(thread: threading.Thread, result: Future[Diff]) -> None:
    """Return once `thread` waits in `Running.written_past`: it has read what was written and waits
    for more. (Fails, rather than waits on, a parse that ended.)"""
    while not result.done():
        frame = sys._current_frames().get(thread.ident or -1)
        while frame is not None:
            if frame.f_code is git.Running.written_past.__code__:
                return
            frame = frame.f_back
        time.sleep(0.001)
    pytest.fail(f"the parse ended without waiting for git: {result.exception() or result.result()}")


def new_files(project: Repo, last: str) -> None:
    """New files, the one named `last` coming last in git's order."""
    for n in range(30):
        project.write(f"new/file_{n:02}.py", "".join(f"value_{n}_{i} = {i}\n" for i in range(100)))
    project.write(last, "the last file\n")


def held_git(project: Repo, tmp_path: Path) -> Path:
    """git held back by a filter at the last file of the diff, until the lock returned is let go
    of."""
    lock = hold_git_at(project, "zz-held.dat", tmp_path)
    new_files(project, "zz-held.dat")
    return lock


def sides_of(project: Repo) -> tuple[git.Worktree, Sides]:
    worktree = git.find_worktree(project.root)
    return worktree, scope.resolve(worktree, Scope())


@pytest.mark.parametrize("in_memory", [True, False])
def test_a_diff_parsed_while_git_writes_it_is_the_diff_parsed_after(
    project: Repo, tmp_path: Path, temporary: Path, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    if not in_memory:
        monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    lock = held_git(project, tmp_path)
    worktree, sides = sides_of(project)
    with held(lock) as holding:
        running = scope.start(worktree, sides)
        assert running.written_past(0)
        thread, result = parsing(running)
        until_waiting_for_git(thread, result)
        index_copies = [path.name for path in temporary.iterdir()]
        holding.let_go()
        read = result.result()
    whole = parse(git.diff_output(worktree, sides.old, sides.new, untracked=sides.untracked))
    assert index_copies and all(name.startswith("review-index-") for name in index_copies)
    assert [described(f) for f in read.files] == [described(f) for f in whole.files]
    assert read.size == whole.size
    assert read.files[-1].path == "zz-held.dat"
    # the copy of the index is gone with git; a large output stays open for the diff
    assert list(temporary.iterdir()) == []
    assert len(deleted_files_in(temporary)) == (0 if in_memory else 1)


def test_git_failing_midway_is_git_s_error_and_leaves_nothing_open(
    project: Repo, tmp_path: Path, temporary: Path
) -> None:
    project.git("config", "filter.broken.clean", "false")
    project.git("config", "filter.broken.required", "true")
    (project.root / ".git" / "info" / "attributes").write_text("zz-broken.dat filter=broken\n")
    new_files(project, "zz-broken.dat")
    worktree, sides = sides_of(project)
    running = scope.start(worktree, sides)
    assert running.written_past(0)  # the first files, before git fails
    with pytest.raises(GitFailed, match=r"^zz-broken\.dat: clean filter 'broken' failed"):
        parse(running)
    assert deleted_files_in(temporary) == []
    assert list(temporary.iterdir()) == []


def test_git_stopped_while_it_writes_leaves_nothing_open(project: Repo, tmp_path: Path, temporary: Path) -> None:
    lock = held_git(project, tmp_path)
    worktree, sides = sides_of(project)
    with held(lock):
        running = scope.start(worktree, sides)
        assert running.written_past(0)
        running.stop()
        assert list(temporary.iterdir()) == []
        assert deleted_files_in(temporary) == []


def git_output(project: Repo) -> bytes:
    """git's output for a few changed files, large enough to cross chunks."""
    for n in range(6):
        project.write(f"f{n}.py", "".join(f"line {n} {i}\n" for i in range(200)))
    worktree, sides = sides_of(project)
    return git.diff_output(worktree, sides.old, sides.new, untracked=sides.untracked)


def written_in_two(tmp_path: Path, output: bytes, cut: int, status: int = 0, error: str = "") -> git.Running:
    """A writer of `output` in two parts, cut at `cut`, held between them by the lock at
    tmp_path/lock."""
    first, rest = tmp_path / "first", tmp_path / "rest"
    first.write_bytes(output[:cut])
    rest.write_bytes(output[cut:])
    argv = [sys.executable, "-c", WRITER, str(first), str(rest), str(tmp_path / "lock"), str(status), error]
    return git.Running(tmp_path, argv)


def parsed_in_two(tmp_path: Path, output: bytes, cut: int, status: int = 0, error: str = "") -> Future[Diff]:
    """`parse` of `output` as `written_in_two` writes it, the parse waiting at the cut."""
    with held(tmp_path / "lock") as holding:
        running = written_in_two(tmp_path, output, cut, status, error)
        assert running.written_past(cut - 1)
        thread, result = parsing(running)
        until_waiting_for_git(thread, result)
        holding.let_go()
        thread.join()
    return result


@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_an_output_written_so_far_that_ends_in_a_section_is_waited_on(
    project: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(diff, "IN_MEMORY_BYTES", 0)
    monkeypatch.setattr(diff, "_CHUNK", chunk)
    output = git_output(project)
    cut = output.index(b"\n+line 3 100\n")  # the middle of the fourth file's section
    read = parsed_in_two(tmp_path, output, cut).result()
    assert [described(f) for f in read.files] == [described(f) for f in parse(output).files]
    assert read.files[3].added == 200


def test_a_cut_record_at_the_end_is_the_broken_diff_it_is_when_read_after(project: Repo, tmp_path: Path) -> None:
    output = git_output(project)
    broken = output[: output.index(b"f3.py")]
    with pytest.raises(BrokenDiff) as after:
        parse(broken)
    with pytest.raises(BrokenDiff, match=f"^{after.value}$"):
        parsed_in_two(tmp_path, broken, len(broken) // 2).result()


def test_git_s_failure_wins_over_the_broken_output_it_left(project: Repo, tmp_path: Path, temporary: Path) -> None:
    output = git_output(project)
    broken = output[: output.index(b"f3.py")]
    failed = parsed_in_two(tmp_path, broken, len(broken) // 2, status=128, error="fatal: out of memory\n")
    with pytest.raises(GitFailed, match=r"^out of memory$"):
        failed.result()
    assert deleted_files_in(temporary) == []


def test_git_s_failure_wins_over_a_broken_record_found_before_it_ends(
    project: Repo, tmp_path: Path, temporary: Path
) -> None:
    output = git_output(project).replace(b":000000 100644 ", b":000000 1x0644 ", 1)
    (tmp_path / "lock").touch()
    with pytest.raises(BrokenDiff):
        parse(output)
    with pytest.raises(GitFailed, match=r"^out of memory$"):
        parse(written_in_two(tmp_path, output, len(output), status=128, error="fatal: out of memory\n"))
    assert deleted_files_in(temporary) == []


def test_git_failing_after_a_whole_output_throws_the_parse_away(project: Repo, tmp_path: Path, temporary: Path) -> None:
    output = git_output(project)
    failed = parsed_in_two(tmp_path, output, len(output) // 3, status=1, error="error: could not read f5.py\n")
    with pytest.raises(GitFailed, match=r"^could not read f5\.py$"):
        failed.result()
    assert deleted_files_in(temporary) == []
    assert list(temporary.iterdir()) == []
