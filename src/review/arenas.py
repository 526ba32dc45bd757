"""Fewer memory arenas for the viewer's threads.

glibc's malloc gives each thread that allocates an arena of its own (up to eight for each core),
and an arena keeps the memory it was given: the threads that read the diff and git's output
while the screen is made kept 2-3 MB apart from the main one, a large diff's peak went from
76.6 MB to 79.6-80 MB with them. Two arenas serve the threads that Python's lock already takes
in turns. Elsewhere (macOS, musl) nothing changes.
"""

from __future__ import annotations

from contextlib import suppress

_M_ARENA_MAX = -8
"""`mallopt`'s parameter for the most arenas (glibc's malloc.h)."""


def share() -> None:
    """Have the threads started from now on share two arenas. (ctypes takes a few milliseconds
    to import: called from a thread of its own, beside the screen's imports.)"""
    import ctypes

    with suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 2)
