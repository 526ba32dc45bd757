"""The terminal's keys as they come: an escape alone is the Escape key after `ESCAPE_WAIT`, not a
tenth of a second or more later.

Textual reads the terminal in a thread that waits for input up to 0.1 s at a time, and only then
looks whether an escape byte alone has waited long enough to be the Escape key rather than the
start of another key's sequence (by default 0.1 s too, `ESCDELAY`): each escape, which closes a
dialog, the help or the search, came 100-110 ms after it was pressed. Here the thread waits no
longer than the escape has left to wait. (Textual's own, private: textual is pinned.)
"""

from __future__ import annotations

import codecs
import os
import selectors

from textual import constants
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

ESCAPE_WAIT = 0.03
"""Seconds an escape byte alone waits for the rest of a key's sequence before it is the Escape
key, unless `ESCDELAY` says otherwise (in ms, as for curses): a terminal writes a key's sequence
at once, and tmux (since 3.5) waits 10 ms, Neovim 50. A link that split a key's sequence over
longer would send Escape and the rest as keys."""

LOOK_EVERY = 0.1
"""Seconds the thread waits for input at most, to see whether the app is ending (as Textual's)."""


class ReviewDriver(LinuxDriver):
    """Textual's driver for Linux and macOS, reading the keys as above."""

    def run_input_thread(self) -> None:
        if "ESCDELAY" not in os.environ:
            constants.ESCAPE_DELAY = ESCAPE_WAIT  # type: ignore[misc]  # (read by the parser as it waits)
        parser = XTermParser(self._debug)
        decode = codecs.getincrementaldecoder("utf-8")().decode
        with selectors.SelectSelector() as selector:
            selector.register(self.fileno, selectors.EVENT_READ)
            while not self.exit_event.is_set():
                if selector.select(_wait(parser)):
                    data = os.read(self.fileno, 4096)
                    if not data:  # (the terminal is gone: there is nothing more to read)
                        self.exit_event.wait()
                        break
                    for message in parser.feed(decode(data)):
                        self.process_message(message)
                for message in parser.tick():
                    self.process_message(message)


def _wait(parser: XTermParser) -> float:
    """Seconds to wait for input: until a sequence begun must end, or `LOOK_EVERY`."""
    due = parser._timeout_time  # (private: textual is pinned)
    return LOOK_EVERY if due is None else min(LOOK_EVERY, max(0.0, due - get_time()))
