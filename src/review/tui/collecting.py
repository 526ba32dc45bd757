"""Python's collection of all its objects, made to wait for the reviewer to pause.

The viewer keeps many objects (the rows, lines and colours it drew last); Python's collection of
all of them took 40 to 70 ms on a huge diff, and landed on whatever key was being answered: one
press in ten of `n` or `g` took 100 ms. The viewer holds those collections back and makes them
once the reviewer has paused a while with everything drawn ahead (`diff_view.COLLECT_AFTER`),
as often as Python would; the younger objects are collected as Python does, and once more as the
drawing ahead ends. While the viewer starts, it makes no collections at all.
"""

from __future__ import annotations

import gc
import threading

EVERY = 10
"""Collect all objects once the younger ones have been collected this many times: Python's own
cadence."""

HELD_BACK = 100
"""How much later than `EVERY` Python collects all objects itself, should the viewer never pause."""


HELD_OFF_AT_MOST = 10.0
"""Seconds after `hold_off` that collections resume even if no first frame was drawn."""


def hold_off() -> None:
    """No collections at all until `resume`, while the viewer starts: as it imports its modules
    and draws its first screen Python would collect some 150 times, 20 ms of the 300 ms, among
    objects that nearly all live as long as the program."""
    gc.disable()
    # should the first frame never come, collections still resume
    timer = threading.Timer(HELD_OFF_AT_MOST, resume)
    timer.daemon = True
    timer.start()


def resume() -> None:
    """Collect again after the first frame (if `hold_off` held collections), but never look at
    what the start made again: it is set aside (`gc.freeze`), where the few objects it left
    unreachable stay too."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()


def hold_back() -> None:
    """Leave the collection of all objects to `collect_if_due`, or to Python much later: while
    the diff is shown, which calls it."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, EVERY * HELD_BACK)


def release() -> None:
    """Let Python collect all objects as it does by itself again (the overview, say)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, EVERY)


def collect_young() -> None:
    """Collect the younger objects now, while the viewer is idle: what it drew ahead (tens of
    thousands of objects) would otherwise wait among them for the next key's allocations to
    collect, 10-30 ms on a huge diff, in the middle of answering it."""
    gc.collect(1)


OVERDUE = 3
"""Collect all objects as soon as all is drawn ahead, pause or no pause, once this many times
`EVERY` is due: what ends in reference cycles (Textual's workers and their tasks, say; no longer
its drawn lines, see `uncut_strips`) only a collection of all objects frees, and a reviewer who
never pauses a second (paging through the whole diff) would pile it up."""


def collect_if_overdue() -> None:
    """Collect all objects if long overdue (`OVERDUE`)."""
    if gc.get_count()[2] >= EVERY * OVERDUE:
        gc.collect()


def collect_if_due() -> None:
    """Collect all objects if Python would have by now: called when the viewer is idle."""
    if gc.get_count()[2] >= EVERY:
        gc.collect()
