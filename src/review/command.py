"""How an agent's shell runs this copy of review: the command written into everything agents read.

`review` usually lives in a virtual environment. An agent runs what it is told in its own shell,
and some agents use a login shell whose profile sets PATH anew (Codex runs `bash -lc`; Debian's
/etc/profile resets PATH), so plain `review` is written only where both the agent's PATH and a
login shell find this very program; everywhere else the absolute path is, which runs as written.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

NAME = "review"


def this_review() -> Path | None:
    """The `review` script of the program that is running; None when it cannot be told (it runs
    as `python -m review` without an installed script)."""
    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if running is not None and running.name == NAME and running.is_file():
        # Absolute, but through any symlink: pipx and uv keep a link in ~/.local/bin that
        # survives upgrades, while the folder it points into does not.
        return Path(os.path.abspath(running))
    beside = Path(sys.executable).parent / NAME
    return beside if beside.is_file() else None


def on_path() -> Path | None:
    """The `review` the current PATH finds."""
    found = shutil.which(NAME)
    return Path(os.path.abspath(found)) if found else None


def login_shell(script: str) -> str | None:
    """What `script` prints in a login shell (`bash -lc`), as an agent's commands run there;
    None when no shell could run it."""
    shell = shutil.which("bash") or shutil.which("sh")
    if shell is None:
        return None
    try:
        done = subprocess.run(
            [shell, "-lc", script],
            check=False,
            capture_output=True,
            text=True,
            timeout=5,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@cache
def in_login_shell() -> Path | None:
    """The `review` a login shell finds, as an agent that runs `bash -lc` sees it."""
    lines = (login_shell(f"command -v {NAME}") or "").strip().splitlines()
    found = lines[-1] if lines else ""
    return Path(found) if found.startswith("/") else None


def same_program(a: Path | None, b: Path | None) -> bool:
    """Whether two paths name the same program, through any links."""
    if a is None or b is None:
        return False
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def is_on_path() -> bool:
    """Whether plain `review` runs this program, in the agent's shell and in a login shell."""
    me = this_review()
    return same_program(me, on_path()) and same_program(me, in_login_shell())


def runnable() -> str:
    """The command that runs this review in an agent's shell, quoted for it: `review` when that
    name finds this program everywhere, else its absolute path."""
    me = this_review()
    if me is None or is_on_path():
        return NAME
    return shlex.quote(str(me))
