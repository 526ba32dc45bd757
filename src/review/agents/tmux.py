"""Getting a short pointer to a coding agent that runs in a tmux pane, safely.

`review watch` finds the agent's pane, waits until the agent is idle, pastes a one-line pointer
("3 review comments; run `review pending`") and presses Enter. Every step leans towards typing
nothing: whatever reaches a pane is typed for the user, and a pointer that lands in a shell instead
of an agent would run as a command. So a pane counts only while an agent is in its foreground, the
agent is checked again just before pasting, the paste is bracketed so that the agent takes it as
text, and Enter is sent only once the pointer is seen in the pane.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from review.errors import DeliveryFailed

KNOWN_AGENTS = ("claude", "codex", "pi", "opencode", "gemini", "aider")
"""Command names of the coding agents that `review watch` looks for."""

COMMAND_TIMEOUT = 10.0
"""Seconds tmux (or ps) may take before it counts as not answering."""

_POLL = 0.1
"""Seconds between two looks at a pane."""

_PROC = Path("/proc")

_NEW_PANE = ("-P", "-F", "#{pane_id} #{pane_pid}")
"""What tmux is asked to print of a pane it opens."""

# Anything that a terminal could take as a key rather than as text: C0 controls (newline and
# carriage return would submit early, ESC could end the bracketed paste), DEL, C1 controls, and the
# line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")

# What a pane may put between the characters of a wrapped line: spaces, and the borders that
# agents draw around their input box.
_LAYOUT = re.compile(r"[\s\u2500-\u259f]+")


@dataclass(frozen=True)
class Pane:
    """A tmux pane in which a coding agent runs."""

    id: str
    """tmux's id of the pane, e.g. "%3"."""
    pid: int
    """The process tmux started in the pane (usually a shell)."""
    command: str
    """The pane's current command, as tmux reports it."""
    path: Path
    """The pane's current folder, as tmux reports it."""
    agent: str
    """Which agent name matched."""


@dataclass(frozen=True)
class Delivery:
    """What became of one pointer."""

    pane: Pane
    arrived: bool
    """The pointer was seen in the pane, and so Enter was sent."""
    detail: str
    """One line saying what happened, for `review watch` to print."""


class Tmux:
    """Runs tmux commands against one server.

    The server is the one named by `socket` (`tmux -L NAME`; tests pass a private one), else the
    one this process runs in (tmux reads `$TMUX`), else the user's default one.
    """

    def __init__(self, socket: str | None = None) -> None:
        self.socket = socket

    def available(self) -> bool:
        """Whether tmux is installed and a server answers."""
        if shutil.which("tmux") is None:
            return False
        try:
            self._run("list-sessions")
        except DeliveryFailed:
            return False
        return True

    def panes(self) -> list[tuple[str, int, str, Path]]:
        """Every live pane of every session: its id, pid, current command and current path.

        Raises:
            DeliveryFailed: tmux is missing or no server answers.
        """
        # The path goes last: it is the one field that may hold a tab.
        out = self._run(
            "list-panes",
            "-a",
            "-F",
            "#{pane_dead}\t#{pane_id}\t#{pane_pid}\t#{pane_current_command}\t#{pane_current_path}",
        )
        panes = []
        for line in out.splitlines():
            fields = line.split("\t", 4)
            # A dead pane (kept by remain-on-exit) reads nothing; a line that does not parse
            # belongs to a path with a newline in it, which no agent can be told apart by anyway.
            if len(fields) != 5 or fields[0] != "0" or not fields[2].isdigit() or not fields[4]:
                continue
            panes.append((fields[1], int(fields[2]), fields[3], Path(fields[4])))
        return panes

    def capture(self, pane: str) -> str:
        """The text visible in `pane`.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        return self._run("capture-pane", "-p", "-t", pane, pane=pane)

    def paste(self, pane: str, text: str) -> None:
        """Paste `text` into `pane`, bracketed when the program in the pane asked for it.

        The text goes through a buffer of its own, so the user's paste buffers are left alone and
        two deliveries at once do not paste each other's text.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        buffer = f"review-{uuid.uuid4().hex}"
        self._run("load-buffer", "-b", buffer, "-", input=text.encode("utf-8"))
        try:
            self._run("paste-buffer", "-p", "-d", "-b", buffer, "-t", pane, pane=pane)
        except DeliveryFailed:
            # -d deletes the buffer only after a paste; do not leave it behind after a failure.
            with suppress(DeliveryFailed):
                self._run("delete-buffer", "-b", buffer)
            raise

    def enter(self, pane: str) -> None:
        """Press Enter in `pane`.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        self._run("send-keys", "-t", pane, "Enter", pane=pane)

    def split(self, beside: str, folder: Path, command: str) -> tuple[str, int]:
        """A new pane to the right of `beside`, in `folder`, running `command` (a shell command
        line); it becomes the active pane of its window. Its id and pid.

        Raises:
            DeliveryFailed: the pane `beside` is gone, or tmux failed.
        """
        return self._opened(
            self._run("split-window", "-h", "-t", beside, "-c", str(folder), *_NEW_PANE, command, pane=beside)
        )

    def new_window(self, beside: str, folder: Path, command: str) -> tuple[str, int]:
        """A new window after the window of the pane `beside`, in `folder`, running `command` (a
        shell command line); it becomes its session's current window. Its pane's id and pid.

        Raises:
            DeliveryFailed: the pane `beside` is gone, or tmux failed.
        """
        # new-window takes a window, not a pane: the window's id names it.
        window = self._run("display-message", "-p", "-t", beside, "#{window_id}", pane=beside).strip()
        return self._opened(self._run("new-window", "-a", "-t", window, "-c", str(folder), *_NEW_PANE, command))

    def select(self, pane: str) -> None:
        """Bring `pane` to the front: its window becomes current, and it the active pane in it.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        self._run("select-window", "-t", pane, pane=pane)
        self._run("select-pane", "-t", pane, pane=pane)

    def mark(self, pane: str, option: str, value: str) -> None:
        """Set the user option `option` (`@name`) of `pane`: a mark that goes with the pane.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        self._run("set-option", "-p", "-t", pane, option, value, pane=pane)

    def unmark(self, pane: str, option: str) -> None:
        """Unset the user option `option` of `pane`.

        Raises:
            DeliveryFailed: the pane is gone, or tmux failed.
        """
        self._run("set-option", "-p", "-u", "-t", pane, option, pane=pane)

    def marked(self, option: str) -> list[tuple[str, str]]:
        """Every live pane whose user option `option` is set: its id and the option's value.

        Raises:
            DeliveryFailed: tmux is missing or no server answers.
        """
        out = self._run("list-panes", "-a", "-F", f"#{{pane_dead}}\t#{{pane_id}}\t#{{{option}}}")
        found = []
        for line in out.splitlines():
            dead, _, rest = line.partition("\t")
            pane, _, value = rest.partition("\t")
            if dead == "0" and value:
                found.append((pane, value))
        return found

    def _opened(self, out: str) -> tuple[str, int]:
        pane, _, pid = out.strip().partition(" ")
        if not pane.startswith("%") or not pid.isdigit():
            raise DeliveryFailed(f"tmux did not say which pane it opened: {out.strip()!r}")
        return pane, int(pid)

    def _run(self, *args: str, input: bytes | None = None, pane: str | None = None) -> str:
        command = ["tmux", *(("-L", self.socket) if self.socket else ()), *args]
        try:
            done = subprocess.run(command, input=input, capture_output=True, timeout=COMMAND_TIMEOUT, check=False)
        except FileNotFoundError:
            raise DeliveryFailed("tmux is not installed: no 'tmux' on PATH") from None
        except subprocess.TimeoutExpired:
            raise DeliveryFailed(f"tmux did not answer within {COMMAND_TIMEOUT:g} seconds") from None
        if done.returncode != 0:
            error = done.stderr.decode("utf-8", "replace").strip().splitlines()
            first = error[0] if error else f"tmux {args[0]} exited with {done.returncode}"
            if pane is not None and first.startswith("can't find"):
                raise DeliveryFailed(f"tmux pane {pane} no longer exists")
            raise DeliveryFailed(f"tmux: {first}")
        return done.stdout.decode("utf-8", "replace")


def find_agent_pane(tmux: Tmux, worktree: Path, agents: Sequence[str] = KNOWN_AGENTS) -> Pane | None:
    """The pane in which an agent works on `worktree`, or None when there is none.

    A pane qualifies when its current path is the worktree or a folder in it (symlinks resolved;
    `worktree-2` beside `worktree` is not in it, nor is a repository or worktree nested in it,
    such as `.claude/worktrees/NAME`), and an agent is in its foreground: the pane's current
    command, or a foreground process descending from the pane's process, whose command name or
    the base name of its first or second argument (`node .../claude`, `python3 .../aider`) is one
    of `agents`. An agent started in the background of a shell does not count: what is typed into
    that pane reaches the shell. Among several panes the deepest path wins, then the lowest id.

    Raises:
        DeliveryFailed: tmux is missing or no server answers.
    """
    return agent_panes(tmux, [worktree], agents).get(worktree)


def agent_panes(tmux: Tmux, worktrees: Sequence[Path], agents: Sequence[str] = KNOWN_AGENTS) -> dict[Path, Pane]:
    """For each of `worktrees` in which an agent works, its pane (as `find_agent_pane` finds
    it), from one listing of the panes.

    Raises:
        DeliveryFailed: tmux is missing or no server answers.
    """
    roots = {worktree: worktree.resolve() for worktree in worktrees}
    table: dict[int, _Process] | None = None
    found: dict[Path, list[Pane]] = {}
    for pane_id, pid, command, path in tmux.panes():
        where = path.resolve()
        holding = [worktree for worktree, root in roots.items() if _belongs_to(where, root)]
        if not holding:
            continue
        if command in agents:
            agent: str | None = command
        else:
            if table is None:
                table = _processes()
            agent = _foreground_agent(pid, agents, table)
        if agent is not None:
            for worktree in holding:
                found.setdefault(worktree, []).append(
                    Pane(id=pane_id, pid=pid, command=command, path=where, agent=agent)
                )
    return {
        worktree: min(panes, key=lambda pane: (-len(pane.path.parts), _pane_number(pane.id)))
        for worktree, panes in found.items()
    }


def is_idle(
    tmux: Tmux,
    pane: Pane,
    state: str | None,
    state_age: float | None,
    *,
    quiet: float = 2.0,
    stale: float = 300.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Whether the agent in `pane` can be typed into now.

    Args:
        state: What the agent's hooks last recorded: "idle", "working", "waiting" (a permission
            prompt, which must never be typed into), or None when there is no record.
        state_age: Seconds since the record was written.
        quiet: With no usable record, how long the pane's text must stay unchanged.
        stale: A "working" or "waiting" record older than this is taken for a crashed agent
            that never recorded its end, and the pane decides instead.

    Raises:
        DeliveryFailed: the pane has to be looked at and it is gone, or tmux failed.
    """
    if state == "idle":
        return True
    if state in ("working", "waiting") and (state_age is None or state_age <= stale):
        return False
    # The pane is sampled throughout, not only at both ends: a spinner can be back on the same
    # frame when the quiet time is over.
    before = tmux.capture(pane.id)
    deadline = clock() + quiet
    while True:
        sleep(max(0.0, min(_POLL, deadline - clock())))
        if tmux.capture(pane.id) != before:
            return False
        if clock() >= deadline:
            return True


def deliver(tmux: Tmux, pane: Pane, pointer: str, *, timeout: float = 3.0) -> Delivery:
    """Paste `pointer` into the agent's prompt and press Enter once it is seen there.

    The agent is checked to still be in the pane's foreground first. The pointer is pasted with a
    bracketed paste; then the pane is watched, for up to `timeout` seconds, for one more copy of the
    pointer than it showed before (compared without whitespace or box borders, since the pane may
    wrap it). Only then is Enter sent, on its own. When the pointer does not appear, Enter is not
    sent and `arrived` is False.

    Raises:
        ValueError: `pointer` is empty, or holds a newline or another control character, any of
            which could submit the prompt early or end the paste.
        DeliveryFailed: the pane is gone, or tmux is missing or failed.
    """
    if not pointer.strip():
        raise ValueError("the pointer is empty")
    if _CONTROL.search(pointer):
        raise ValueError(f"the pointer must be one line of plain text: {pointer!r}")
    current = {pane_id: (pid, command) for pane_id, pid, command, _ in tmux.panes()}
    if pane.id not in current:
        raise DeliveryFailed(f"tmux pane {pane.id} no longer exists")
    pid, command = current[pane.id]
    if command != pane.agent and _foreground_agent(pid, (pane.agent,), _processes()) is None:
        return Delivery(pane, False, f"{pane.agent} is no longer running in tmux pane {pane.id}; nothing was typed")
    wanted = _squeeze(pointer)
    before = _squeeze(tmux.capture(pane.id)).count(wanted)
    tmux.paste(pane.id, pointer)
    deadline = time.monotonic() + timeout
    while _squeeze(tmux.capture(pane.id)).count(wanted) <= before:
        if time.monotonic() >= deadline:
            return Delivery(
                pane,
                False,
                f"the pointer did not appear in tmux pane {pane.id} within {timeout:g} s; Enter was not sent",
            )
        time.sleep(0.05)
    tmux.enter(pane.id)
    return Delivery(pane, True, f"told {pane.agent} in tmux pane {pane.id}: {pointer}")


@dataclass(frozen=True)
class _Process:
    pid: int
    ppid: int
    foreground: bool
    """In the foreground process group of its terminal: what is typed there reaches it."""
    names: tuple[str, ...]
    """Its command name and the base names of its first two arguments."""


def _belongs_to(path: Path, root: Path) -> bool:
    # Path.is_relative_to compares whole components, so `worktree-2` is not in `worktree`.
    if not path.is_relative_to(root):
        return False
    # A repository or worktree nested inside (it has its own .git) is another review's.
    folder = path
    while folder != root:
        if (folder / ".git").exists():
            return False
        folder = folder.parent
    return True


def _pane_number(pane_id: str) -> int:
    digits = pane_id.removeprefix("%")
    return int(digits) if digits.isdigit() else 0


def _squeeze(text: str) -> str:
    return _LAYOUT.sub("", text)


def _foreground_agent(pid: int, agents: Sequence[str], table: dict[int, _Process]) -> str | None:
    """The first of `agents` found among `pid` and its descendants in their terminal's foreground."""
    for process in _descendants(pid, table):
        if process.foreground:
            for name in process.names:
                if name in agents:
                    return name
    return None


def _descendants(pid: int, table: dict[int, _Process]) -> Iterator[_Process]:
    children: dict[int, list[_Process]] = {}
    for process in table.values():
        children.setdefault(process.ppid, []).append(process)
    queue = deque([table[pid]] if pid in table else [])
    seen: set[int] = set()
    while queue:
        process = queue.popleft()
        if process.pid in seen:
            continue
        seen.add(process.pid)
        yield process
        queue.extend(children.get(process.pid, []))


def _processes() -> dict[int, _Process]:
    """Every process of the machine, from /proc where there is one, else from ps."""
    if (_PROC / "self" / "stat").exists():
        return _processes_from_proc()
    return _processes_from_ps()


def _processes_from_proc() -> dict[int, _Process]:
    table = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        # A process may end while it is read: it is then simply not there.
        try:
            stat = (entry / "stat").read_bytes().decode("utf-8", "replace")
            arguments = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        # The command name sits in parentheses and may itself hold spaces and parentheses.
        open_at, close_at = stat.find("("), stat.rfind(")")
        fields = stat[close_at + 2 :].split()
        if open_at < 0 or len(fields) < 6:
            continue
        ppid, group, terminal_group = int(fields[1]), int(fields[2]), int(fields[5])
        names = (stat[open_at + 1 : close_at], *(os.path.basename(arg) for arg in arguments[:2] if arg))
        table[int(entry.name)] = _Process(
            pid=int(entry.name), ppid=ppid, foreground=terminal_group > 0 and group == terminal_group, names=names
        )
    return table


def _processes_from_ps() -> dict[int, _Process]:
    # Two calls, so that each free-text column (comm, args) is last on its line and whole; -ww,
    # or ps cuts lines to the terminal's width, or to 80 columns when it cannot tell.
    def ps(columns: str) -> str:
        return subprocess.run(
            ["ps", "-ww", "-e", "-o", columns],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=COMMAND_TIMEOUT,
            check=False,
        ).stdout

    try:
        groups = ps("pid=,ppid=,pgid=,tpgid=,args=")
        commands = ps("pid=,comm=")
    except (OSError, subprocess.TimeoutExpired):
        # Without a process list only the panes' current commands can name an agent.
        return {}
    command_of = {}
    for line in commands.splitlines():
        pid_text, _, command = line.strip().partition(" ")
        if pid_text.isdigit():
            command_of[int(pid_text)] = os.path.basename(command.strip())
    table = {}
    for line in groups.splitlines():
        fields = line.split(None, 4)
        if len(fields) < 4 or not all(field.lstrip("-").isdigit() for field in fields[:4]):
            continue
        pid, ppid, group, terminal_group = (int(field) for field in fields[:4])
        arguments = fields[4].split()[:2] if len(fields) == 5 else []
        names = (command_of.get(pid, ""), *(os.path.basename(arg) for arg in arguments))
        table[pid] = _Process(
            pid=pid, ppid=ppid, foreground=terminal_group > 0 and group == terminal_group, names=names
        )
    return table
