"""The reviewer's viewer in tmux: which pane shows a worktree's review, and opening one beside the
agent that asks for a review (`review request --open`).

A viewer that runs inside tmux marks its pane with the worktree it shows and its process id (a
pane option, which goes with the pane). Asking again then brings that pane to the front instead
of opening a second viewer, whoever opened the first: the reviewer by hand, or an earlier request.
A mark whose process is gone (a viewer killed before it could take its mark away) counts for
nothing. The pane's current command cannot tell a viewer apart: tmux names the interpreter.
"""

from __future__ import annotations

import os
import shlex
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, get_args

from review.errors import DeliveryFailed

if TYPE_CHECKING:
    # Only for annotations: the config reads `PLACEMENTS` from here without loading tmux's module.
    from review.agents.tmux import Tmux

Placement = Literal["split", "window"]
"""Where a requested review opens: a pane split beside the agent's, or a window of its own."""
PLACEMENTS: tuple[Placement, ...] = get_args(Placement)

OPTION = "@review-viewer"
"""The pane option a viewer marks its pane with: "PID WORKTREE"."""


class Opened(NamedTuple):
    """The pane that shows the worktree's review after `open_beside`."""

    pane: str
    """tmux's id of the pane, e.g. "%5"."""
    new: bool
    """Whether it was opened now; False: a viewer already showed the worktree there."""


def inside(env: Mapping[str, str]) -> str | None:
    """The tmux pane this process runs in, by the variables tmux sets; None outside tmux."""
    return (env.get("TMUX_PANE") or None) if env.get("TMUX") else None


@contextmanager
def shown_in_pane(root: Path, env: Mapping[str, str] = os.environ) -> Iterator[None]:
    """While the viewer of the worktree at `root` runs, mark its tmux pane as showing it.

    Outside tmux this does nothing. The mark is set in a thread, so that the viewer's first screen
    does not wait for tmux, and taken away when the viewer ends.
    """
    pane = inside(env)
    if pane is None:
        yield
        return
    marked: list[Tmux] = []

    def mark() -> None:
        from review.agents.tmux import Tmux

        tmux = Tmux()
        with suppress(DeliveryFailed):
            tmux.mark(pane, OPTION, _mark(os.getpid(), root))
            marked.append(tmux)

    marking = threading.Thread(target=mark, name="review-viewer-mark", daemon=True)
    marking.start()
    try:
        yield
    finally:
        marking.join()
        for tmux in marked:
            with suppress(DeliveryFailed):
                tmux.unmark(pane, OPTION)


def viewer_pane(tmux: Tmux, root: Path) -> str | None:
    """The pane of a viewer that shows the worktree at `root`; None when no viewer does.

    Raises:
        DeliveryFailed: tmux is missing or no server answers.
    """
    wanted = root.resolve()
    for pane, value in tmux.marked(OPTION):
        pid, _, path = value.partition(" ")
        if pid.isdigit() and _alive(int(pid)) and Path(path).resolve() == wanted:
            return pane
    return None


def open_beside(tmux: Tmux, beside: str, root: Path, review: str, placement: Placement) -> Opened:
    """Show the review of the worktree at `root` beside the pane `beside` (the agent's): bring a
    viewer that already shows it to the front, else open one, in a pane split to the right or in
    a new window, as `placement` says.

    Args:
        review: The command that runs review in a shell (`review.command.runnable()`).

    Raises:
        DeliveryFailed: the pane `beside` is gone, or tmux is missing or failed.
    """
    found = viewer_pane(tmux, root)
    if found is not None:
        tmux.select(found)
        return Opened(found, new=False)
    command = f"{review} {shlex.quote(str(root))}"
    open_pane = tmux.new_window if placement == "window" else tmux.split
    pane, pid = open_pane(beside, root, command)
    # Marked at once, not only once the viewer has started and marks the pane itself, so that a
    # request made a moment later finds it. The pane's process lives as long as the viewer.
    tmux.mark(pane, OPTION, _mark(pid, root))
    return Opened(pane, new=True)


def _mark(pid: int, root: Path) -> str:
    return f"{pid} {root}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process, alive
    return True
