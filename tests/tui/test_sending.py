"""After sending, the viewer tells the reviewer how the agent will hear of the review."""

from __future__ import annotations

import subprocess

from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn
from review.repo import git
from review.state.store import Store
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from tmux import review_command

SIZE = (130, 40)


async def send_a_comment(repo: Repo) -> str:
    """Draft a comment, send it from the viewer, and return what the screen shows after."""
    done = subprocess.run(
        [review_command(), "comment", "src/app.py:5", "-m", "why?"], cwd=repo.root, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    async with make_app(git.find_worktree(repo.root), watch=False).run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("S")
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(200):
            if Store(repo.root).read().rounds and not screen.saving.waiting:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        await pilot.pause()
        return shown(pilot)


def shown(pilot: Pilot) -> str:  # type: ignore[type-arg]
    return Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_with_no_hook_and_no_watch_the_reviewer_is_told_what_to_tell_the_agent(agent_worktree: Repo) -> None:
    text = await send_a_comment(agent_worktree)
    assert "Sent review r1: 1 comment." in text
    assert "Nothing tells your agent" in text and "pending" in text


async def test_with_the_claude_hook_installed_the_reviewer_is_told_the_hook_tells_the_agent(
    agent_worktree: Repo,
) -> None:
    done = subprocess.run(
        [review_command(), "install", "claude"], cwd=agent_worktree.root, capture_output=True, text=True
    )
    assert "Stop" in done.stdout or done.returncode == 0, done.stdout + done.stderr
    text = await send_a_comment(agent_worktree)
    assert "Sent review r1: 1 comment." in text
    assert "Stop hook (claude)" in text
