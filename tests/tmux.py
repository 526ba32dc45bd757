"""Driving the real `review` command in a real terminal: tmux with send-keys and capture-pane."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
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

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "main")

    def title(self) -> str:
        return self.tmux("display-message", "-p", "-t", "main", "#{pane_title}").strip()

    def wait_for(self, text: str, timeout: float = 15.0) -> str:
        """The screen once `text` is on it; fails with the screen when it does not appear."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{text!r} did not appear; the screen:\n{screen}")

    def wait_until_gone(self, text: str, timeout: float = 10.0) -> str:
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
