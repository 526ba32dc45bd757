"""Hostile repositories and untrusted agent text, in the real `review` in tmux.

File names and contents carry escape sequences (CSI, OSC, DCS, APC, C1 controls), NUL bytes,
bidirectional overrides and invisible characters; an agent's replies and notes carry the same and
try to fake the instructions' Markdown. What the terminal shows (`capture-pane`, with `-e` for the
escape sequences it would send on) has them as visible stand-ins, in their places: the header on
the first row, the footer on the last, the file list's border in one column, and the terminal's
title never changes. Large inputs (a 100 MB file, a 1 MB line, 100,000 changed files, 10,000
untracked files, a file rewritten every 50 ms) open and answer keys; how fast and how much memory
is `benchmarks/bench_hostile.py`'s to say, never a test's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from review.repo.text import inert_json, visible
from tmux import Terminal, review_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

REVIEW = review_command()
WIDTH, HEIGHT = 120, 36
TITLE = "clean-title"

# What a terminal would act on, or would not show: controls, DEL, C1, bidirectional and invisible
# format characters. None of them may reach the screen.
RAW = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\U000e0000-\U000e007f]"
)
# In `capture-pane -e`, the only escape sequences tmux writes are colours (SGR). Anything else
# would be one from the repository that got through.
SGR = re.compile(r"\x1b\[[\d;:]*m")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T12:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def git(root: Path, *args: str, input: bytes | None = None) -> str:
    """git in `root`, on its own configuration, so module-wide repositories need no fixture."""
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=root,
        input=input,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {done.stderr.decode()}")
    return done.stdout.decode()


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "--quiet")
    return root


def commit_all(root: Path, message: str = "change") -> None:
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", message)


def write(root: Path, name: str | bytes, content: str | bytes) -> None:
    path = root / os.fsdecode(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    made = Terminal(tmp_path, width=WIDTH, height=HEIGHT)
    made.tmux("select-pane", "-t", "main", "-T", TITLE)
    yield made
    made.close()


def open_review(terminal: Terminal, *args: str) -> None:
    terminal.run(" ".join([REVIEW, *(f"'{arg}'" for arg in args)]))


def styled(terminal: Terminal) -> str:
    return terminal.tmux("capture-pane", "-e", "-p", "-t", "main")


def assert_unharmed(terminal: Terminal, what: str = "") -> str:
    """The screen as the terminal has it: nothing but colours was sent, nothing raw is shown, the
    viewer's frame is in its place and the title is the one the pane had. Returns the screen."""
    sent = styled(terminal)
    foreign = re.findall(r"\x1b(?!\[[\d;:]*m).{0,12}", sent)
    assert not foreign, f"{what}: escape sequences reached the terminal: {foreign}"
    screen = SGR.sub("", sent)
    shown = RAW.findall(screen.replace("\n", ""))
    assert not shown, f"{what}: raw characters on the screen: {shown!r}\n{screen}"
    rows = screen.split("\n")[:HEIGHT]
    assert len(rows) == HEIGHT, screen
    assert " files " in rows[0] and "review:" in rows[0], f"{what}: the header is not on the first row:\n{screen}"
    assert "q Quit" in rows[-1], f"{what}: the footer is not on the last row:\n{screen}"
    assert all(cell_len(row) <= WIDTH for row in rows), f"{what}: a row is wider than the terminal:\n{screen}"
    # the file list's right border is one column on every row between the header and the footer:
    # no row was shifted by a character the terminal drew wider or narrower than the viewer meant
    columns = {cell_len(row[: row.index("▕")]) for row in rows[1:-1] if "▕" in row}
    assert len(columns) == 1 and all("▕" in row for row in rows[1:-1]), f"{what}: rows shifted:\n{screen}"
    assert terminal.title() == TITLE, f"{what}: the terminal's title changed to {terminal.title()!r}"
    return screen


def test_invisible_characters_are_named_where_text_is_made_inert() -> None:
    # zero-width spaces and joiners, a byte order mark, word joiners, a soft hyphen and Unicode
    # tags hide a difference between two lines; in JSON they are \u escapes that read back the same
    hidden = "a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg\U000e0041"
    assert visible(hidden) == "a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+FEFF>f<U+00AD>g<U+E0041>"
    printed = inert_json({"body": hidden})
    assert not RAW.search(printed.replace("\n", "")) and json.loads(printed) == {"body": hidden}
