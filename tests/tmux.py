"""Driving the real `review` command in a real terminal: tmux with send-keys and capture-pane."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path


def review_command() -> str:
    """The installed `review` script beside this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "review"
    return str(beside) if beside.exists() else (shutil.which("review") or "review")


class Terminal:
    """One tmux session on a private server, sized like a terminal window."""

    def __init__(self, cwd: Path, width: int = 120, height: int = 36, env: dict[str, str] | None = None) -> None:
        self.socket = f"review-test-{uuid.uuid4().hex[:8]}"
        self.cwd = cwd
        self.env = {**os.environ, "TERM": "xterm-256color", **(env or {})}
        self.tmux("new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height), "-c", str(cwd))
        self.tmux("set-option", "-g", "remain-on-exit", "on")

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr}")
        return done.stdout

    def run(self, command: str) -> None:
        """Type a command line into the shell and press Enter."""
        self.tmux("send-keys", "-t", "main", "-l", command)
        self.tmux("send-keys", "-t", "main", "Enter")

    def keys(self, *keys: str) -> None:
        """Press keys, as tmux names them (`Enter`, `Escape`, `PageDown`) or literally."""
        for key in keys:
            self.tmux("send-keys", "-t", "main", key)

    def literal(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)

    def screen(self, joined: bool = False) -> str:
        """The screen's text; `joined`, with the lines a shell wrapped at its edge made one again."""
        return self.tmux("capture-pane", "-p", *(["-J"] if joined else []), "-t", "main")

    def backgrounds(self, *, reverse: bool = False) -> list[list[str | None]]:
        """Each row's background colour cell by cell (`capture-pane -e`, blank cells at the end
        included): "r;g;b" for a true colour, "5;n" for a palette one, None for the default.
        With `reverse`, as the terminal shows it: a cell in reverse video shows its foreground
        colour there (a scrollbar's thumb, say)."""
        rows = []
        for line in self.tmux("capture-pane", "-e", "-N", "-p", "-t", "main").split("\n"):
            cells: list[str | None] = []
            colours = _Colours()
            for escape, text in _SGR.findall(line):
                if escape:
                    colours = colours.after(escape)
                else:
                    cells.extend([colours.shown_behind if reverse else colours.background] * len(text))
            rows.append(cells)
        return rows

    def title(self) -> str:
        return self.tmux("display-message", "-p", "-t", "main", "#{pane_title}").strip()

    def wait_for(self, text: str, timeout: float = 30.0, joined: bool = False) -> str:
        """The screen once `text` is on it; fails with the screen when it does not appear."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(joined)
            if text in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{text!r} did not appear; the screen:\n{screen}")

    def first_with(self, text: str, timeout: float = 30.0) -> str:
        """The first screen, with its colours (`capture-pane -e`), that shows `text`: what a
        person sees at the moment it appears. tmux reads a program's output a few kilobytes at
        a time, and a capture between two reads shows part of a frame: the frame is taken once
        tmux has read it whole (two captures 20 ms apart alike), a moment no person sees apart."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.tmux("capture-pane", "-e", "-p", "-t", "main")
            if text in _SGR_ONLY.sub("", screen):
                for _ in range(5):
                    time.sleep(0.02)
                    again = self.tmux("capture-pane", "-e", "-p", "-t", "main")
                    if again == screen:
                        break
                    screen = again
                return screen
            time.sleep(0.005)
        raise AssertionError(f"{text!r} did not appear; the screen:\n{screen}")

    def settled(self, quiet: float = 0.3, timeout: float = 30.0) -> str:
        """The screen (with its colours) once it has not changed for `quiet` seconds: the keys
        sent before have been handled and drawn."""
        deadline = time.monotonic() + timeout
        last = self.tmux("capture-pane", "-e", "-p", "-t", "main")
        since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.tmux("capture-pane", "-e", "-p", "-t", "main")
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return self.screen()
        raise AssertionError(f"the screen never settled:\n{self.screen()}")

    def wait_until_gone(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{text!r} stayed; the screen:\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env)


_SGR = re.compile(r"\x1b\[([\d;]*)m|([^\x1b]+)")
_SGR_ONLY = re.compile(r"\x1b\[[\d;]*m")


@dataclass(frozen=True)
class _Colours:
    """The colours and reverse video an SGR escape sequence leaves on (None: the default)."""

    foreground: str | None = None
    background: str | None = None
    reverse: bool = False

    @property
    def shown_behind(self) -> str | None:
        return self.foreground if self.reverse else self.background

    def after(self, parameters: str) -> _Colours:
        """The colours after one SGR escape sequence's parameters."""
        codes = parameters.split(";") if parameters else ["0"]
        colours = self
        index = 0
        while index < len(codes):
            code = codes[index]
            if code in ("0", ""):
                colours = _Colours()
            elif code == "39":
                colours = replace(colours, foreground=None)
            elif code == "49":
                colours = replace(colours, background=None)
            elif code in ("7", "27"):
                colours = replace(colours, reverse=code == "7")
            elif code in ("38", "48") and index + 1 < len(codes):
                # a true colour (2;r;g;b) or a palette colour (5;n)
                length = 4 if codes[index + 1] == "2" else 2
                parts = codes[index + 2 : index + length + 1]
                colour = ";".join(parts) if length == 4 else "5;" + ";".join(parts)
                colours = replace(colours, **{"foreground" if code == "38" else "background": colour})
                index += length
            elif re.fullmatch(r"4[0-7]|10[0-7]", code):
                colours = replace(colours, background="ansi;" + code)
            elif re.fullmatch(r"3[0-7]|9[0-7]", code):
                colours = replace(colours, foreground="ansi;" + code)
            index += 1
        return colours
