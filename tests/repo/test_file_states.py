"""The states of many files at once (`review.repo.file_states`): GNU's `stat` in a child process
and the `os.lstat` loop that reads them where it is not give the same text, and a file that
cannot be read gives none."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from review.repo import file_states

NAMES = [b"plain.txt", b"with space.txt", b"-starts-like-an-option", b"new\nline", b"latin-\xe9.txt", b"sub/inner.py"]
STRANGE = b"a link to nothing"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "sub").mkdir(parents=True)
    for n, name in enumerate(NAMES):
        with open(os.path.join(os.fsencode(root), name), "wb") as file:
            file.write(b"x" * n)
    os.symlink(b"nowhere", os.path.join(os.fsencode(root), STRANGE))
    return root


def by_python(root: Path, paths: list[bytes]) -> bytes:
    """The states as a test writes them, from `os.lstat`."""
    lines = []
    for path in paths:
        found = os.lstat(os.path.join(os.fsencode(root), path))
        mtime, ctime = found.st_mtime_ns, found.st_ctime_ns
        lines.append(
            f"{found.st_size} {mtime // 10**9}.{mtime % 10**9:09} {ctime // 10**9}.{ctime % 10**9:09} {found.st_ino}\n"
        )
    return "".join(lines).encode()


@pytest.mark.skipif(shutil.which("stat") is None, reason="no stat on this machine")
def test_gnu_stat_and_the_loop_give_the_same_text(folder: Path) -> None:
    paths = [*NAMES, STRANGE]
    by_stat = file_states._by_stat(folder, paths)
    if by_stat is None:
        pytest.skip("this machine's stat is not GNU's")
    assert by_stat == file_states._by_loop(folder, paths) == by_python(folder, paths)
    # the link itself, not what it points to (nothing)
    assert by_stat.splitlines()[-1].startswith(b"%d " % len(b"nowhere"))


def test_without_gnu_stat_the_loop_reads_them(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a `stat` that writes something else, as another system's may
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "stat").write_text("#!/bin/sh\necho 'File: something else'\n")
    (tools / "stat").chmod(0o755)
    xargs = shutil.which("xargs")
    assert xargs is not None
    (tools / "xargs").symlink_to(xargs)
    monkeypatch.setenv("PATH", str(tools))
    states = file_states.read(folder, NAMES)
    assert states is not None and states.text == by_python(folder, NAMES)
    # and none at all
    monkeypatch.setenv("PATH", str(tmp_path / "nothing here"))
    states = file_states.read(folder, NAMES)
    assert states is not None and states.text == by_python(folder, NAMES)


def test_a_file_gone_gives_no_states(folder: Path) -> None:
    assert file_states.read(folder, [*NAMES, b"gone.txt"]) is None
    assert file_states._by_loop(folder, [b"gone.txt"]) is None


def test_the_newest_time_is_the_latest_of_all_to_the_nanosecond(folder: Path) -> None:
    root = os.fsencode(folder)
    # seconds of fewer digits (2001 and before) are older, though their text sorts after
    os.utime(os.path.join(root, NAMES[0]), ns=(999_999_999_500_000_000, 999_999_999_500_000_000))
    latest = 1_900_000_000_123_456_789  # a time to come: no change time can be later
    os.utime(os.path.join(root, NAMES[1]), ns=(latest, latest))
    states = file_states.read(folder, NAMES)
    assert states is not None
    assert states.newest == pytest.approx(latest / 1e9, abs=1e-6)
    assert file_states.read(folder, []) == file_states.States(b"", float("-inf"))
