"""What the viewer opens: a worktree's diff and its review, read in a thread of their own while
the screen is made, so that the screen draws them whole in its first frame."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import NamedTuple

from review import arenas
from review.background import WhenAsked, in_a_thread
from review.errors import ReviewError
from review.repo import colouring, highlight, scope
from review.repo.diff import Diff, FileDiff, Record
from review.repo.git import Worktree, find_worktree
from review.repo.scope import Scope, Sides
from review.state import colours, comments, counted, rounds
from review.state.model import Review
from review.state.store import Store


class FirstDiff(NamedTuple):
    """The sides, and the diff and the review being read (the review once the diff is)."""

    sides: Sides
    reading: Future[Diff]
    anchoring: Future[Review]
    started: float
    """When the reading started (`file_time`): a file written after may not be in the diff."""
    shown: threading.Event
    """Set once the diff is on the screen: a diff opened from its counts (`counted`) reads the
    rest of itself after that."""
    checked: Future[bool]
    """Whether the diff read is git's: False when one opened from its counts turned out not to be
    (the screen then reads it again)."""
    coloured: threading.Event
    """Set once the colours of the first screen made apart (`colouring`), if any, are recalled:
    the screen waits for them a moment (`COLOURS_WAIT`) rather than lex the texts itself."""


COLOURS_WAIT = 0.3
"""Seconds a screen with its diff read waits for the colours made apart: longer than the child
takes, once the screen's imports are done, shorter than compiling a lexer and more."""

FIRST_SCREEN_WAIT = 1.0
"""Seconds a new screen waits for what it shows (a review its diff, the overview its rows): it is
drawn once, whole, when the reading is done; a reading that takes longer shows the screen first,
and the rest when it comes."""


def file_time() -> float:
    """Now, on the clock files are stamped with: on Linux the kernel's coarse clock, a few ms
    behind `time.time()`, by which a file written just after could seem written before."""
    coarse = getattr(time, "CLOCK_REALTIME_COARSE", None)
    return time.time() if coarse is None else time.clock_gettime(coarse)


def read_apart(worktree: Worktree, chosen: Scope, *, from_counts: bool = True) -> FirstDiff:
    """Start reading the diff of `chosen` and its review, with its comments found in the diff, in
    a thread of its own; `from_counts`: opened from its files' counts when it can be (see
    `counted`; a split view measures every file from its patch, which opening from the counts
    would only put off to a second frame).

    Raises:
        ReviewError: the scope cannot be resolved (a bad revision, say): said here, before any
            screen is shown.
    """
    store = Store(worktree.root)
    # A first screen whose colours are not remembered has them made apart (`colouring`): the
    # child starts first, for its lexers to be compiled by the time the screen asks for them.
    colourer = None if colours.load(worktree) else colouring.start()
    try:
        sides = scope.resolve(worktree, chosen, rounds.last_sent(store) if chosen.since_review else None)
    except BaseException:
        if colourer is not None:
            colourer.stop()
        raise
    reading: Future[Diff] = Future()
    anchoring: Future[Review] = Future()
    checked: Future[bool] = Future()
    shown = threading.Event()
    coloured = threading.Event()
    started = file_time()

    highlight.forget_made()  # the colours remembered for this diff are those its screen asks for

    first = _FirstColours(colourer)

    def read() -> None:
        # whatever went wrong is raised where the results are taken
        try:
            # git reads the whole diff in a thread of its own: with thousands of untracked files it
            # takes a while to start (they are added to a copy of the index first), which an
            # opening from the counts need not wait for. A diff remembered whole opens without it
            # when made of the same files again: git then starts once the screen is shown (or once
            # the files turn out to be others), for the screen's thread not to share two cores
            # with it (a huge diff's first screen came 60 ms later beside git).
            running = WhenAsked(lambda: scope.start(worktree, sides), "review-git")
            if not (from_counts and counted.remembered_whole(worktree)):
                running.start()
            opened = counted.open_counted(worktree, sides, running, started) if from_counts else None
            if opened is None:
                diff = scope.read(
                    worktree, sides, running=running.result(), named=first.named, parsed=first.parsed, in_parts=True
                )
            else:
                diff = opened.diff
        except Exception as error:
            if colourer is not None:
                colourer.stop()
            for future in (reading, anchoring, checked):
                future.set_exception(error)
            return
        reading.set_result(diff)
        first.read(diff)
        unchanged = opened.unchanged if opened is not None else frozenset()
        try:
            anchoring.set_result(comments.reanchor_on(store, worktree, sides.old, diff, unchanged=unchanged))
        except Exception as error:
            anchoring.set_exception(error)
        if colourer is not None:
            colourer.recall()
        coloured.set()
        try:
            same = True
            if opened is not None:
                counted.wait_for_screen(opened, shown)
                # before the whole diff is read (a second, for a huge one): a reviewer who quits
                # at once leaves the colours of the next first screen behind
                colours.save(worktree)
                diff, same = counted.finish(worktree, sides, opened)
            checked.set_result(same)
            shown.wait(counted.WAIT_FOR_SCREEN)
            colours.save(worktree)  # (again, with those made since, if any)
            if anchoring.exception() is None:
                # (a file counted is taken, next time, for one whose comments were looked for)
                counted.remember(worktree, sides, diff, started)
        except Exception as error:
            if not checked.done():
                checked.set_exception(error)

    threading.Thread(target=read, name="review-read", daemon=True).start()
    return FirstDiff(sides, reading, anchoring, started, shown, checked, coloured)


EXPECTED = 8
"""Files whose lexers the child that colours the first screen compiles as soon as they are named."""


class _FirstColours:
    """What has the first screen's colours made apart by `colourer` (if any) as the diff is read:
    the first files' lexers compiled once git names them, and the first screen's texts coloured
    once their files' patches are read, while git writes the rest (on a large diff, 250-300 ms
    before git's last patch)."""

    def __init__(self, colourer: colouring.Colourer | None) -> None:
        self._colourer = colourer
        self._rows = colouring.screen_rows()
        self._first = colouring.FirstScreen(self._rows)
        self._sent = colourer is None

    def named(self, found: list[Record]) -> None:
        if self._colourer is not None:
            self._colourer.expect(paths[-1] for _, paths in found[:EXPECTED])

    def parsed(self, file: FileDiff) -> bool:
        if self._sent:
            return True
        try:
            if not self._first.add(file):
                return False
        except ReviewError:
            pass  # (a broken patch: the screen says what is wrong with it)
        self._send(self._first.texts)
        return True

    def read(self, diff: Diff) -> None:
        """Colour what the first screen of `diff`, read whole, shows, if not yet asked for."""
        if self._sent:
            return
        try:
            texts = colouring.first_texts(diff, self._rows)
        except ReviewError:
            texts = []
        self._send(texts)

    def _send(self, texts: list[tuple[str, list[str]]]) -> None:
        if not self._sent and self._colourer is not None:
            self._colourer.colour(texts)
        self._sent = True


def open_apart(path: str, chosen: Scope, *, from_counts: bool = True) -> Future[tuple[Worktree, FirstDiff]]:
    """Find the worktree containing `path` and start reading its diff (`read_apart`), in a
    thread, while the caller imports the screen: the git commands that find the worktree and
    resolve the scope then run alongside the imports rather than before them. The future raises
    what `find_worktree` and `read_apart` raise (not a repository, a bad revision), for the
    caller to say before any screen is shown."""

    def find() -> tuple[Worktree, FirstDiff]:
        arenas.share()  # before the threads that read the diff start
        worktree = find_worktree(path)
        return worktree, read_apart(worktree, chosen, from_counts=from_counts)

    return in_a_thread(find, "review-find")
