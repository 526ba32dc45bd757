"""The texts a diff is coloured by, and the first screen's colours made in a process of their own.

A hunk is lexed a chunk of lines at a time, each side of the chunk as one text (`sides`).

A first screen whose colours are not remembered (`review.state.colours`) waits for its lexers'
rules to be compiled: 60-80 ms of Python's regular expression compiler for Python's lexer, while
every thread of the viewer takes turns on one interpreter lock, importing the screen, parsing the
diff. A child process has a core of its own: started as the diff is read, it compiles the lexers
for the files' names (`Colourer.expect`) while git writes the patches, lexes the first screen's
texts when they are known, and gives their colours back to be recalled (`highlight.recall`), as
colours remembered from an earlier run are.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from review.repo import highlight

if TYPE_CHECKING:
    from review.repo.diff import Diff, FileDiff, Line

CHUNK = 100
"""Lines of a hunk lexed together. A row's colours are made when it is first drawn, if the worker
has not made them ahead of the cursor: a long hunk is lexed a chunk at a time, so that drawing a
screen never waits for more than a few chunks."""

FIRST_ROWS = 50
"""Rows of the diff whose colours the child makes when the terminal's height is not known (see
`screen_rows`)."""
TEXT_AT_MOST = 10_000
"""Characters of text past which the child is sent no other chunk: the texts' JSON then stays
within a pipe's buffer (64 KB), which the reading thread would wait on while the child compiles."""
CHILD = [sys.executable, "-c", "import os; os.nice(10); from review.repo.colouring import serve; serve()"]
"""The child's command: `serve`, in this interpreter (the same Pygments colours alike). It yields
to git and to the viewer (`nice`): its work is worth having only where a core is left idle."""
ANSWER_WAIT = 2.0
"""Seconds the child has to answer once told the texts; the screen lexes what it does not give."""


def sides(lines: Sequence[Line], start: int) -> tuple[list[int], list[int]]:
    """The indexes of the old side's lines and of the new side's in the chunk of `lines` (a
    hunk's) from `start` on."""
    chunk = range(start, min(start + CHUNK, len(lines)))
    return [i for i in chunk if lines[i].kind != "+"], [i for i in chunk if lines[i].kind != "-"]


def screen_rows() -> int:
    """The rows of the terminal the viewer runs in: those of its first screen, and a few more.
    (The child lexes a screen's worth: 120 rows, three screens, took it 40 ms more on a large diff
    than one did, and the screen waited; the rows further on are lexed in the viewer, ahead of the
    cursor, once the first frame is drawn.)"""
    return shutil.get_terminal_size((0, FIRST_ROWS)).lines


class FirstScreen:
    """The texts the first screen of a diff is coloured by, with their files' paths, gathered a
    file at a time as the diff is read: those of its first `rows`, at most `highlight.KEPT` texts
    and `TEXT_AT_MOST` characters (and the chunk that passes it)."""

    def __init__(self, rows: int = FIRST_ROWS) -> None:
        self.texts: list[tuple[str, list[str]]] = []
        self.full = False
        """Whether the texts are all the first screen's: no file after adds to them."""
        self._wanted = rows
        self._rows = 0
        self._length = 0

    def add(self, file: FileDiff) -> bool:
        """Gather the texts of `file`, the next of the diff; whether they are now all there.

        Raises:
            BrokenDiff: its patch is not a well-formed diff.
        """
        if self.full:
            return True
        self._rows += 2  # (its header and the line under it, as a layout has them at the least)
        if not file.hunks_shown_unasked:
            return False
        for hunk in file.hunks:
            lines = hunk.lines
            for start in range(0, len(lines), CHUNK):
                for side in sides(lines, start):
                    if side:
                        text = [lines[i].text for i in side]
                        self.texts.append((file.path, text))
                        self._length += sum(map(len, text))
                self._rows += min(CHUNK, len(lines) - start)
                if self._rows >= self._wanted or len(self.texts) >= highlight.KEPT or self._length >= TEXT_AT_MOST:
                    del self.texts[highlight.KEPT :]
                    self.full = True
                    return True
            self._rows += 1
        return False


def first_texts(diff: Diff, rows: int = FIRST_ROWS) -> list[tuple[str, list[str]]]:
    """The texts the first screen of `diff` is coloured by (see `FirstScreen`): those of its
    files read, up to the first still counted (its patch not yet read, and past what the first
    screen shows).

    Raises:
        BrokenDiff: a file's patch is not a well-formed diff.
    """
    first = FirstScreen(rows)
    for file in diff.files:
        if not file.ready or first.add(file):
            break
    return first.texts


class Colourer:
    """The child process that makes the first screen's colours."""

    def __init__(self) -> None:
        """Start the child.

        Raises:
            OSError: it cannot be started.
        """
        self._child = subprocess.Popen(
            CHILD,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def expect(self, paths: Iterable[str]) -> None:
        """Have the child compile the lexers of these files (the first few a screen shows)."""
        self._send({"paths": list(dict.fromkeys(paths))}, last=False)

    def colour(self, texts: list[tuple[str, list[str]]]) -> None:
        """Have the child colour `texts` (`first_texts`), for `recall`."""
        self._send({"texts": texts}, last=True)

    def recall(self) -> None:
        """Recall the colours the child made for `highlight` to give, and end it. Those it has not
        given within `ANSWER_WAIT`, or gives broken, are lexed here when asked for."""
        try:
            answer = self._answer()
            if answer is not None:
                highlight.recall(json.loads(answer))
        except (OSError, ValueError):
            pass
        finally:
            self.stop()

    def _answer(self) -> bytes | None:
        """All the child writes, once it has ended; None if it has not within `ANSWER_WAIT`."""
        stdout = self._child.stdout
        assert stdout is not None
        parts: list[bytes] = []
        deadline = time.monotonic() + ANSWER_WAIT
        while (left := deadline - time.monotonic()) > 0 and select.select([stdout], [], [], left)[0]:
            part = os.read(stdout.fileno(), 1 << 16)
            if not part:
                return b"".join(parts)
            parts.append(part)
        return None

    def stop(self) -> None:
        """End the child, if it runs still."""
        if self._child.poll() is None:
            self._child.kill()
        self._child.wait()
        for pipe in (self._child.stdin, self._child.stdout):
            if pipe is not None:
                pipe.close()

    def _send(self, message: object, *, last: bool) -> None:
        stdin = self._child.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message).encode() + b"\n")
            if last:
                stdin.close()
            else:
                stdin.flush()
        except (OSError, ValueError):
            pass  # it ended (or was told all): `recall` finds what it gave


def start() -> Colourer | None:
    """A child started to make the first screen's colours; None when it cannot be."""
    try:
        return Colourer()
    except OSError:
        return None


def serve() -> None:
    """The child: compile the lexers of the paths sent, colour the texts sent, and write their
    colours as `highlight.made` gives them."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        for path in message.get("paths", ()):
            highlight.lexer_for(path)
        for path, lines in message.get("texts", ()):
            highlight.highlight(path, lines)
    sys.stdout.write(json.dumps(highlight.made()))
