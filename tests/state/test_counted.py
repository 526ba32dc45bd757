"""A review opened again opens from its files' counts, remembered between runs: git reads the
files on the first screen and the files not known, the others take their patches from the whole
diff read behind the screen, and the whole diff is checked against what was counted. What was
counted gives the diff a plain reading gives; counts that lie are found out; a cache that cannot
be read or written, or too many files not known, open the diff plainly. git's records are read
before git has written the patches (git held back by a clean filter to show it).

The files of these tests were all written a moment ago, so they would be too recent to be
remembered (`counted.RECENT_SECONDS`): the tests that remember them push that moment back."""

from __future__ import annotations

import json
import marshal
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo, recalled
from held_git import held, hold_git_at
from lying_cache import lie
from review.background import in_a_thread
from review.repo import colouring, diff, git, highlight, scope
from review.repo.diff import Diff, FileDiff, records
from review.repo.lines import FileReader, Side
from review.repo.scope import Scope
from review.state import colours, comments, counted
from review.state.opening import FirstDiff, file_time, read_apart
from review.state.store import Store

SIXTY = 60
COMMITTED = range(SIXTY // 2)
"""The files changed by a commit on the agent's branch: their new side is a stored blob."""
WORKING = range(SIXTY // 2, SIXTY)
"""The files changed in the working tree alone."""


def name(n: int) -> str:
    return f"many/file_{n:02}.txt"


def lines(n: int, what: str, count: int = 20) -> str:
    return "".join(f"{what} {n} line {i}\n" for i in range(1, count + 1))


@pytest.fixture
def sixty(project: Repo) -> Repo:
    """An agent's worktree whose diff has sixty files of 20 lines rewritten, more rows than the
    first screen's: the first half committed on its branch, the other half in the working tree."""
    for n in range(SIXTY):
        project.write(name(n), lines(n, "old"))
    project.commit("sixty files")
    agent = project.worktree("agent", "agent/work")
    for n in COMMITTED:
        agent.write(name(n), lines(n, "committed"))
    agent.commit("the first half")
    for n in WORKING:
        agent.write(name(n), lines(n, "working"))
    return agent


@pytest.fixture
def no_bottom(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files at the bottom of the diff are not read before the first screen."""
    monkeypatch.setattr(counted, "BOTTOM_BYTES", -1)


@pytest.fixture
def remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test are old enough to be remembered, and a diff of any size opens
    from its counts."""
    monkeypatch.setattr(counted, "RECENT_SECONDS", -3600.0)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)


@dataclass
class Opening:
    """A review being opened (`read_apart`), with the diff it opens with."""

    first: FirstDiff
    diff: Diff
    reading: list[threading.Thread]
    """The thread reading it, while it runs."""

    def shown(self) -> bool:
        """Show the diff, as the screen does once it is drawn; whether the diff opened was git's,
        once the counts of git's are remembered."""
        self.first.shown.set()
        same = self.first.checked.result(timeout=60)
        for thread in self.reading:
            thread.join(timeout=60)
            assert not thread.is_alive()
        return same

    def counted(self) -> list[int]:
        """The files opened from their counts whose patches were not taken yet."""
        return [index for index, file in enumerate(self.diff.files) if file._later is not None]


def opening(agent: Repo) -> Opening:
    before = set(threading.enumerate())
    first = read_apart(git.find_worktree(agent.root), Scope())
    # (gone already when it failed at once)
    reading = [thread for thread in threading.enumerate() if thread.name == "review-read" and thread not in before]
    return Opening(first, first.reading.result(timeout=60), reading)


def plainly(agent: Repo, opened: Opening) -> Diff:
    """The diff as git reads it whole, counted nowhere."""
    return scope.read(git.find_worktree(agent.root), opened.first.sides)


def described(diff: Diff) -> list[tuple[object, ...]]:
    return [(file.record, file.counts) for file in diff.files]


def cache(agent: Repo) -> Path:
    return counted.cache_file(git.find_worktree(agent.root))


def view_cache(agent: Repo) -> Path:
    """Where the diff is remembered whole, with what it was made of."""
    return cache(agent).with_suffix(".view")


def remembered_view(agent: Repo) -> object:
    """What the diff was remembered to be made of; None when it was not."""
    listing = counted.remembered_listing(git.find_worktree(agent.root))
    return None if listing is None else listing[0]


def test_a_review_opened_again_opens_from_its_counts_as_git_reads_it(sixty: Repo, remembered: None) -> None:
    first = opening(sixty)
    assert first.counted() == []  # nothing remembered yet: git read it all
    assert first.shown() is True
    assert len(json.loads(cache(sixty).read_bytes())["files"]) == SIXTY

    again = opening(sixty)
    # before any is touched, the files past the first screen wait for the whole diff, but for
    # those at the bottom, read with the first screen's for a jump there
    later = again.counted()
    assert 0 not in later and SIXTY // 2 in later and SIXTY - 1 not in later
    assert len(later) > SIXTY // 2
    assert again.shown() is True
    plain = plainly(sixty, again)
    assert described(again.diff) == described(plain)
    for index in (later[0], later[-1], COMMITTED[-1]):
        assert again.diff.files[index].hunks == plain.files[index].hunks
        assert again.diff.files[index].patch == plain.files[index].patch
    assert again.diff.files[-1].hunks[0].lines[-1].text == f"working {SIXTY - 1} line 20"


def test_a_small_diff_is_read_whole_before_the_first_screen_though_counted(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = opening(sixty)
    assert first.shown() is True  # and its counts remembered
    patches = sum(f.patch_size for f in plainly(sixty, first).files)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", patches + 1)
    small = opening(sixty)
    assert small.counted() == []
    assert small.shown() is True
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", patches)
    again = opening(sixty)
    assert again.counted() != []
    assert again.shown() is True


def test_a_diff_of_many_files_opens_from_its_counts_however_small_its_patches(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert opening(sixty).shown() is True
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 1 << 40)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_FILES", SIXTY + 1)
    few = opening(sixty)
    assert few.counted() == []
    assert few.shown() is True
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_FILES", SIXTY)
    many = opening(sixty)
    assert many.counted() != []
    assert many.shown() is True
    assert described(many.diff) == described(plainly(sixty, many))


def test_what_the_diff_came_to_is_remembered_apart_and_decides_alone(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    worktree = git.find_worktree(sixty.root)
    assert counted.remembered_size(worktree) == (0, 0)  # nothing remembered yet
    first = opening(sixty)
    assert first.shown() is True
    patches = sum(f.patch_size for f in plainly(sixty, first).files)
    assert counted.remembered_size(worktree) == (patches, SIXTY)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", patches)
    size_file = cache(sixty).with_suffix(".size")
    # unreadable, small, or written by a version that kept the bytes alone: read whole
    for content in (b"", b"many", b"-5 3", b"12 3", str(patches).encode()):
        size_file.write_bytes(content)
        small = opening(sixty)
        assert small.counted() == []
        assert small.shown() is True  # (which remembers the size again)
    size_file.write_bytes(f"{patches} {SIXTY}".encode())
    again = opening(sixty)
    assert again.counted() != []
    assert again.shown() is True


def test_a_file_changed_since_it_was_counted_is_read_by_git_before_the_first_screen(
    sixty: Repo, remembered: None
) -> None:
    assert opening(sixty).shown() is True
    sixty.write(name(50), lines(50, "rewritten", count=21))
    sixty.write(name(20), lines(20, "committed, then rewritten"))  # its new side is now the working tree

    again = opening(sixty)
    for changed in (name(50), name(20)):
        file = again.diff.file(changed)
        assert file is not None and file._later is None
    # read before the screen was shown, as the others past the first screen are not
    assert again.diff.files[49]._later is not None and again.diff.files[51]._later is not None
    file = again.diff.file(name(50))
    assert file is not None and (file.added, file.removed) == (21, 20)
    assert file.hunks[0].lines[-1].text == "rewritten 50 line 21"
    assert again.shown() is True
    plain = plainly(sixty, again)
    assert described(again.diff) == described(plain)
    assert again.diff.files[20].hunks == plain.files[20].hunks


def first_screen_read(opened: Opening) -> bool:
    """Whether git read, before the first screen, every file from the top of the diff to its
    `FIRST_ROWS`th row, as the view lays them out."""
    counted_files = opened.counted()
    if not counted_files:
        return True
    above = opened.diff.files[: counted_files[0]]
    return sum(2 + (f.body_lines if f.hunks_shown_unasked else 1) for f in above) >= counted.FIRST_ROWS


def test_the_files_at_the_bottom_are_read_before_the_first_screen_for_a_jump_there(
    sixty: Repo, remembered: None
) -> None:
    assert opening(sixty).shown() is True

    again = opening(sixty)
    bottom = again.diff.files[again.counted()[-1] + 1 :]
    assert sum(2 + f.body_lines for f in bottom) >= counted.FIRST_ROWS
    assert sum(2 + f.body_lines for f in bottom[1:]) < counted.FIRST_ROWS  # (and no more)
    assert not first_later(again).asked.is_set()  # (read before the screen: not the whole diff)
    assert again.shown() is True


def test_a_large_bottom_is_left_for_the_jump_there(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert opening(sixty).shown() is True
    monkeypatch.setattr(counted, "BOTTOM_BYTES", 2000)  # two files' patches of the sixty

    again = opening(sixty)
    assert again.counted()[-1] == SIXTY - 3
    assert again.shown() is True


def test_a_file_not_known_at_the_top_leaves_the_first_screen_read_whole(sixty: Repo, remembered: None) -> None:
    assert opening(sixty).shown() is True
    sixty.write("a_new.txt", "one line\n")  # first in git's order, one line long

    again = opening(sixty)
    assert again.diff.files[0].path == "a_new.txt"
    assert again.counted() != []
    # every file that can be on the first screen is read, its patch at hand as the screen is drawn
    assert first_screen_read(again)
    assert again.shown() is True


def test_a_file_shown_as_a_note_counts_as_its_header_for_the_first_screen(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diff, "LARGE_FILE_LINES", 50)
    sixty.write(name(0), lines(0, "grown", count=40))  # large, where the others are not: a note
    assert opening(sixty).shown() is True

    again = opening(sixty)
    assert [f.large for f in again.diff.files[:2]] == [True, False]
    assert again.counted() != []
    assert first_screen_read(again)
    assert again.shown() is True


def test_a_patch_asked_for_before_the_screen_is_shown_has_git_read_at_once(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert opening(sixty).shown() is True
    monkeypatch.setattr(counted, "WAIT_FOR_SCREEN", 3600.0)  # a screen that never comes
    monkeypatch.setattr(counted, "READ_ALONE_AT_MOST", 0)

    again = opening(sixty)
    index = again.counted()[-1]
    file = again.diff.files[index]
    asked = in_a_thread(lambda: file.hunks, "test-asking")
    assert asked.result(timeout=60)[0].lines[-1].text == f"working {index} line 20"
    assert again.shown() is True


def test_a_patch_asked_for_before_the_whole_diff_is_read_is_read_by_git_alone(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a jump far down a huge diff just opened waits for git to read the files it shows, not the
    # whole diff
    assert opening(sixty).shown() is True
    monkeypatch.setattr(counted, "WAIT_FOR_SCREEN", 3600.0)  # the whole diff is read only if asked
    monkeypatch.setattr(counted, "READ_ALONE_AT_MOST", 1)
    monkeypatch.setattr(counted, "FIRST_ROWS", 50)  # two files of the sixty (43 rows each)

    again = opening(sixty)
    later = again.counted()
    plain = plainly(sixty, again)
    asked = again.diff.files[later[-10]]
    assert asked.hunks == plain.file(asked.path).hunks  # type: ignore[union-attr]
    # the file after it too, in the same git: a screen shows it below
    assert again.counted() == [*later[:-10], *later[-8:]]
    after = again.diff.files[later[-9]]
    assert after.hunks == plain.file(after.path).hunks  # type: ignore[union-attr]
    waiting = first_later(again)
    assert not waiting.asked.is_set() and not waiting.done()  # git did not read the whole diff
    # more than a few gits: a search through every file, say, waits for the whole diff instead
    last = again.diff.files[later[-1]]
    found = in_a_thread(lambda: last.hunks, "test-asking").result(timeout=60)
    assert found == plain.file(last.path).hunks  # type: ignore[union-attr]
    assert waiting.asked.is_set()
    assert again.shown() is True


def first_later(opened: Opening) -> counted._Later:
    later = opened.diff.files[opened.counted()[0]]._later if opened.counted() else None
    assert isinstance(later, counted._Later)
    return later


def test_counts_that_lie_are_found_out_by_the_whole_diff(sixty: Repo, remembered: None) -> None:
    assert opening(sixty).shown() is True
    lie(sixty, name(40), added=999)

    again = opening(sixty)
    lying = again.diff.file(name(40))
    assert lying is not None and lying._later is not None and lying.added == 999
    assert again.shown() is False
    # what is remembered now is git's
    third = opening(sixty)
    truth = third.diff.file(name(40))
    assert truth is not None and truth.added == 20
    assert third.shown() is True


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff\xfe not json \x80",
        b'{"schema": 2, "files": {',
        b'{"schema": 99, "files": {}}',
        b'{"schema": 2, "files": {"a key": [1, 2]}}',
        b'{"schema": 2}',
    ],
    ids=["garbage", "cut short", "another schema", "too few counts", "no files"],
)
def test_a_cache_that_cannot_be_read_opens_the_diff_plainly(sixty: Repo, remembered: None, content: bytes) -> None:
    assert opening(sixty).shown() is True
    cache(sixty).write_bytes(content)
    view_cache(sixty).write_bytes(content)

    again = opening(sixty)
    assert again.counted() == []
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))
    # and it is written anew
    assert len(json.loads(cache(sixty).read_bytes())["files"]) == SIXTY


@pytest.mark.parametrize("content", [b"null", b"[]", b"1"])
def test_a_cache_of_json_that_is_not_an_object_opens_the_diff_plainly(
    sixty: Repo, remembered: None, content: bytes
) -> None:
    assert opening(sixty).shown() is True
    cache(sixty).write_bytes(content)
    view_cache(sixty).write_bytes(content)

    again = opening(sixty)
    assert again.counted() == []
    assert again.shown() is True


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\xff\xfe not marshal \x80",
        b'{"made_of": "0", "files": [["a path"]]}',
        marshal.dumps(None),
        marshal.dumps((1, "made of")),
        marshal.dumps((99, "made of", [])),
        marshal.dumps((1, None, [])),
        marshal.dumps((1, "made of", 5)),
        marshal.dumps((1, "made of", [["a path"], 1])),
    ],
    ids=["empty", "garbage", "json", "none", "too short", "another schema", "no made of", "no fields", "a field not"],
)
def test_a_diff_remembered_whole_that_cannot_be_read_opens_from_the_counts(
    sixty: Repo, remembered: None, content: bytes
) -> None:
    assert opening(sixty).shown() is True
    assert remembered_view(sixty) is not None
    view_cache(sixty).write_bytes(content)

    again = opening(sixty)
    assert again.counted() != []
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))
    assert remembered_view(sixty) is not None


@pytest.mark.parametrize("cut", ["a count", "a field"])
def test_a_diff_remembered_whole_whose_files_cannot_be_read_opens_from_the_counts(
    sixty: Repo, remembered: None, cut: str
) -> None:
    assert opening(sixty).shown() is True
    schema, made_of, fields = marshal.loads(view_cache(sixty).read_bytes())
    if cut == "a count":
        fields[-1] = fields[-1][:-1]  # one file short of its last count
    else:
        fields = fields[:-1]  # every summary short of a count
    view_cache(sixty).write_bytes(marshal.dumps((schema, made_of, fields)))
    assert remembered_view(sixty) == made_of  # (what it is made of is the diff's)

    again = opening(sixty)
    assert again.counted() != []
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))


def test_a_cache_folder_that_cannot_be_written_opens_the_diff_plainly(sixty: Repo, remembered: None) -> None:
    folder = cache(sixty).parent.parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the cache's folder would be\n")
    for _ in range(2):
        opened = opening(sixty)
        assert opened.counted() == []
        assert opened.shown() is True
        assert described(opened.diff) == described(plainly(sixty, opened))
    assert folder.read_text() == "a file where the cache's folder would be\n"


@pytest.mark.parametrize(("changed", "opened_counted"), [(2, True), (3, False)])
def test_more_files_not_known_than_may_be_read_first_open_the_diff_plainly(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch, changed: int, opened_counted: bool
) -> None:
    monkeypatch.setattr(counted, "UNKNOWN_AT_MOST", 2)
    assert opening(sixty).shown() is True
    for n in range(40, 40 + changed):
        sixty.write(name(n), lines(n, "rewritten"))

    again = opening(sixty)
    assert bool(again.counted()) is opened_counted
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))


@pytest.fixture
def kinds(sixty: Repo, project: Repo) -> Repo:
    """`sixty` with renames (one on the first screen, one past it, one of a binary file unchanged),
    a binary file changed and a file git does not track, past the first screen."""
    for path in ("aa/first.txt", "zz/last.txt"):
        project.write(path, lines(0, path, count=30))
    project.write("pictures/logo.png", b"\x89PNG\r\n\x00\x01\x02 logo")
    project.write("zz/image.bin", b"\x00\x01 an image")
    project.commit("more kinds of files")
    sixty.git("merge", "--quiet", "--no-edit", "main")
    sixty.git("mv", "aa/first.txt", "aa/moved.txt")
    sixty.git("mv", "zz/last.txt", "zz/moved.txt")
    sixty.git("mv", "pictures/logo.png", "zz/logo.png")
    sixty.write("aa/moved.txt", lines(0, "aa/first.txt", count=30) + "one line more\n")
    sixty.write("zz/moved.txt", lines(0, "zz/last.txt", count=30) + "one line more\n")
    sixty.commit("moved")
    sixty.write("zz/image.bin", b"\x00\x02 another image, larger")
    sixty.write("zz/untracked.txt", "a file git does not track\n")
    return sixty


def test_renames_binary_and_untracked_files_open_from_their_counts_as_git_reads_them(
    kinds: Repo, remembered: None, no_bottom: None
) -> None:
    assert opening(kinds).shown() is True

    again = opening(kinds)
    diff = again.diff

    def known(path: str) -> FileDiff:
        file = diff.file(path)
        assert file is not None
        return file

    for path in ("zz/moved.txt", "zz/logo.png", "zz/image.bin", "zz/untracked.txt"):
        assert known(path)._later is not None, path
    assert known("aa/moved.txt")._later is None
    for path, old_path in (("aa/moved.txt", "aa/first.txt"), ("zz/moved.txt", "zz/last.txt")):
        (_, _, _, _, status), paths = known(path).record
        assert status.startswith("R") and paths == (old_path, path)
    assert known("zz/logo.png").record[0][4] == "R100" and known("zz/logo.png").binary
    image = known("zz/image.bin")
    assert image.binary and image.new_size == len(b"\x00\x02 another image, larger")
    assert again.shown() is True
    plain = plainly(kinds, again)
    assert described(diff) == described(plain)
    by_path = {file.path: file for file in plain.files}
    for path in ("zz/moved.txt", "zz/untracked.txt", "aa/moved.txt"):
        assert known(path).hunks == by_path[path].hunks


def test_a_working_tree_file_changed_just_before_the_reading_is_not_remembered(
    sixty: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)
    worktree = git.find_worktree(sixty.root)
    sides = scope.resolve(worktree, Scope())
    plain = scope.read(worktree, sides)
    working, committed = plain.file(name(WORKING[0])), plain.file(name(COMMITTED[0]))
    assert working is not None and committed is not None
    found = os.lstat(sixty.root / working.path)
    changed = max(found.st_mtime, found.st_ctime)
    assert counted.key(worktree, sides, working.record, changed + counted.RECENT_SECONDS / 2) is None
    assert counted.key(worktree, sides, working.record, changed + counted.RECENT_SECONDS + 0.01) is not None
    # a stored blob is known by its record alone, however new
    assert counted.key(worktree, sides, committed.record, changed) is not None

    # The files of the working tree changed as the reading starts (their times a moment on, lest
    # the test's own pace make them old): they are not remembered, and git reads them the next
    # time, where the committed ones past the first screen are counted.
    soon = file_time() + 60
    for n in WORKING:
        os.utime(sixty.root / name(n), (soon, soon))
    assert opening(sixty).shown() is True
    assert len(json.loads(cache(sixty).read_bytes())["files"]) == len(COMMITTED)
    again = opening(sixty)
    later = again.counted()
    assert later and set(later) <= set(COMMITTED)
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))


def test_the_cache_is_kept_for_each_worktree_apart(sixty: Repo, project: Repo, remembered: None) -> None:
    assert opening(sixty).shown() is True
    assert cache(sixty) != cache(project)
    assert not cache(project).exists()
    assert cache(sixty).parent == Path(os.environ["XDG_CACHE_HOME"]) / "review" / "counts"


def test_the_records_come_before_git_has_written_the_patches(project: Repo, tmp_path: Path) -> None:
    # git held back at the last file's patch; new files alone, or git would read the held one
    # before writing the records, to look for a copy of it
    lock = hold_git_at(project, "zz-held.txt", tmp_path)
    for n in range(SIXTY):
        project.write(name(n), lines(n, "new"))
    project.write("zz-held.txt", "the last file, read through a filter\n")
    worktree = git.find_worktree(project.root)
    sides = scope.resolve(worktree, Scope())
    with held(lock) as holding:
        running = scope.start(worktree, sides)
        found = records(running)
        held_still = not holding.let_go_of.is_set()
        holding.let_go()
    assert [paths for _, paths in found] == [(name(n),) for n in range(SIXTY)] + [("zz-held.txt",)]
    assert len(scope.read(worktree, sides, running=running).files) == SIXTY + 1
    assert held_still, "the records were read once git had written the whole diff"


def with_untracked(agent: Repo) -> None:
    """Untracked files in `agent`'s worktree, one a copy of a file the diff changes."""
    for n in range(10):
        agent.write(f"new/untracked_{n}.txt", lines(n, "untracked"))
    agent.write("new/copy_of_50.txt", lines(50, "old"))


def test_with_untracked_files_git_records_are_those_of_a_diff_made_of_the_same(
    project: Repo, sixty: Repo, remembered: None, no_bottom: None, tmp_path: Path
) -> None:
    # git held back at an untracked file: looking for copies of the files changed among the
    # untracked ones, it reads them all before it writes its first record
    lock = hold_git_at(project, "zz-held.txt", tmp_path)
    with_untracked(sixty)
    sixty.write("zz-held.txt", "the last file, read through a filter\n")
    first = opening(sixty)
    assert first.shown() is True
    assert remembered_view(sixty) is not None

    with held(lock) as holding:
        again = opening(sixty)
        held_still = not holding.let_go_of.is_set()
        holding.let_go()
    assert held_still, "the opening waited for git's records"
    assert again.counted() != []
    copy = again.diff.file("new/copy_of_50.txt")
    assert copy is not None and copy.old_path == name(50) and copy.status.letter == "C"
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))


@pytest.mark.parametrize("change", ["a new untracked file", "an untracked file changed", "one gone", "one staged"])
def test_a_diff_made_of_something_else_has_git_records_read(sixty: Repo, remembered: None, change: str) -> None:
    with_untracked(sixty)
    assert opening(sixty).shown() is True
    if change == "a new untracked file":
        sixty.write("new/untracked_10.txt", "one more\n")
    elif change == "an untracked file changed":
        sixty.write("new/untracked_3.txt", lines(3, "untracked", count=21))
    elif change == "one gone":
        (sixty.root / "new/untracked_3.txt").unlink()
    else:
        sixty.git("add", "new/untracked_3.txt")

    again = opening(sixty)
    assert again.shown() is True
    assert described(again.diff) == described(plainly(sixty, again))


def test_what_a_diff_is_made_of_is_remembered_only_when_it_is_that_diff(
    sixty: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)
    with_untracked(sixty)
    worktree = git.find_worktree(sixty.root)
    sides = scope.resolve(worktree, Scope())
    plain = scope.read(worktree, sides)
    later = file_time() + 60  # every file then old enough

    def view() -> object:
        return remembered_view(sixty)

    counted.remember(worktree, sides, plain, later)
    assert view() is not None
    # the files written a moment before the reading started may change again unseen
    counted.remember(worktree, sides, plain, file_time())
    assert view() is None
    # to the nanosecond: a file written 50 ms within that moment is, 50 ms past it is not
    soon = int(file_time()) + 60.9
    written = soon - counted.RECENT_SECONDS + 0.05
    os.utime(sixty.root / "new/untracked_3.txt", ns=(int(written * 1e9), int(written * 1e9)))
    assert counted.View.read(worktree, sides, soon) is None
    assert counted.View.read(worktree, sides, soon + 0.1) is not None
    # a file gone since git read the diff leaves no time behind: the diff's files say it
    (sixty.root / "new/untracked_3.txt").unlink()
    counted.remember(worktree, sides, plain, later)
    assert view() is None
    # nor is there a view of other sides than the working tree's with its untracked files
    staged = scope.resolve(worktree, Scope(staged=True))
    counted.remember(worktree, staged, scope.read(worktree, staged), later)
    assert view() is None
    assert counted.View.read(worktree, sides._replace(untracked=False), later) is None


def test_the_comments_on_files_counted_before_are_not_looked_for_again(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened again, a file known by its counts is unchanged since the last opening, which looked
    # for its comments before it counted it: they are where that opening left them.
    worktree = git.find_worktree(sixty.root)
    store = Store(worktree.root)
    for n in (40, 50):
        lines_now = (sixty.root / name(n)).read_text().splitlines()
        comments.add(store, comments.Where(name(n), line=5), f"look at {n}", "should", lines_now)
    looked_for: list[str] = []
    read = FileReader._read

    def reading(self: FileReader, path: str, side: Side) -> list[str] | None:
        looked_for.append(path)
        return read(self, path, side)

    monkeypatch.setattr(FileReader, "_read", reading)
    assert opening(sixty).shown() is True
    assert sorted(looked_for) == [name(40), name(50)]

    looked_for.clear()
    sixty.write(name(50), "a new first line\n" + lines(50, "working"))
    again = opening(sixty)
    assert again.shown() is True
    assert looked_for == [name(50)]
    review = again.first.anchoring.result(timeout=60)
    placed = {comment.path: comment.line for comment in review.comments}
    assert placed == {name(40): 5, name(50): 6}  # the changed file's comment followed its line


def test_counts_are_not_remembered_when_the_comments_could_not_be_looked_for(sixty: Repo, remembered: None) -> None:
    # (the next opening would take the comments on the files counted to be where they are)
    worktree = git.find_worktree(sixty.root)
    Store(worktree.root).path.parent.mkdir(parents=True, exist_ok=True)
    Store(worktree.root).path.write_text("{not json")
    first = opening(sixty)
    assert first.shown() is True
    assert first.first.anchoring.exception() is not None
    assert not cache(sixty).exists()


def test_the_first_screens_colours_are_saved_before_the_whole_diff_is_read(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a reviewer who quits while git reads a large diff whole leaves the colours behind, for the
    # next first screen not to lex its files again
    assert opening(sixty).shown() is True
    finishing = threading.Event()
    let_go = threading.Event()
    finish = counted.finish

    def slow(*args: Any) -> tuple[Diff, bool]:
        finishing.set()
        let_go.wait(60)
        return finish(*args)

    monkeypatch.setattr(counted, "finish", slow)
    colours.cache_file(git.find_worktree(sixty.root)).unlink(missing_ok=True)
    again = opening(sixty)
    assert again.counted() != []
    highlight.highlight("src/greet.py", ["def greet(name):", '    return "hi " + name'])  # as the screen asks
    again.first.shown.set()
    try:
        assert finishing.wait(60)
        assert colours.cache_file(git.find_worktree(sixty.root)).exists()
    finally:
        let_go.set()
    assert again.shown() is True


def test_a_diff_made_of_the_same_files_again_has_git_read_it_whole_only_once_shown(
    sixty: Repo, remembered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # on two cores, the screen's thread is drawn sooner without git beside it
    with_untracked(sixty)
    assert opening(sixty).shown() is True
    whole: list[str] = []
    start = scope.start

    def starting(worktree: git.Worktree, sides: scope.Sides, paths: Sequence[str] = ()) -> git.Running:
        if not paths:
            whole.append(threading.current_thread().name)
        return start(worktree, sides, paths)

    monkeypatch.setattr(scope, "start", starting)
    again = opening(sixty)
    assert again.counted() != []
    assert whole == []
    assert again.shown() is True
    assert whole == ["review-git"]
    assert described(again.diff) == described(plainly(sixty, again))
    # made of other files, the diff has git start at once for its records
    sixty.write("new/untracked_10.txt", "one more\n")
    assert opening(sixty).shown() is True
    assert whole.count("review-git") == 2


def test_a_diff_opened_from_its_counts_with_no_colours_remembered_has_them_made_apart(
    sixty: Repo, remembered: None, no_bottom: None, coloured_apart: None
) -> None:
    # the child is given the texts of the files read for the first screen, and the reading does
    # not wait for the patches of the files counted (git reads them once the screen is shown)
    assert opening(sixty).shown() is True
    colours.cache_file(git.find_worktree(sixty.root)).unlink(missing_ok=True)
    highlight._recalled.clear()
    again = opening(sixty)
    assert again.first.coloured.wait(60)
    assert SIXTY - 1 in again.counted()
    texts = colouring.first_texts(again.diff, colouring.screen_rows())
    assert texts
    assert all(recalled(path, lines) is not None for path, lines in texts)
    assert again.shown() is True
