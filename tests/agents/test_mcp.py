"""`review mcp`: the review loop as MCP tools, started as a real process and spoken to with the
SDK's own stdio client, on real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent
from test_wait import watching

from conftest import Repo
from review.state.store import Store
from tmux import review_command


def review(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [review_command(), *args], cwd=repo.root, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def sent(repo: Repo) -> None:
    """A round with one comment on src/app.py line 5, sent to the agent."""
    review(repo, "comment", "src/app.py:5", "-m", "Why double it?")
    review(repo, "send", "-m", "Look at this")


@asynccontextmanager
async def connected(where: Path, *args: str) -> AsyncIterator[ClientSession]:
    """A session with `review mcp` started in `where`, as an agent's harness starts it."""
    server = StdioServerParameters(command=review_command(), args=["mcp", *args], cwd=where, env=dict(os.environ))
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def text(result: CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


def answer(result: CallToolResult) -> Any:
    assert not result.is_error, text(result)
    return json.loads(text(result))


def server_pid(where: Path) -> int:
    """The `review mcp` process this test started in `where`."""
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            if b"mcp" in cmdline and Path(os.readlink(proc / "cwd")) == where:
                return int(proc.name)
        except (OSError, ValueError):
            continue
    raise AssertionError("no review mcp process")


async def watching_soon(pid: int) -> None:
    """Until the server watches the review folder: what the test does next comes during the wait."""
    deadline = time.monotonic() + 30
    while not watching(pid):
        assert time.monotonic() < deadline, "the server never began to watch the review folder"
        await anyio.sleep(0.01)


async def test_the_server_offers_the_loop_as_tools(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} >= {"pending", "wait", "reply", "resolve", "note", "request"}
    assert all(tool.description for tool in listed.tools)


async def test_pending_gives_what_review_pending_json_gives_and_marks_the_round_read_by_mcp(
    agent_worktree: Repo,
) -> None:
    sent(agent_worktree)
    async with connected(agent_worktree.root) as session:
        data = answer(await session.call_tool("pending", {}))
    assert data.pop("news") == ["round"]
    assert data == json.loads(review(agent_worktree, "pending", "--json").stdout)
    assert [c["body"] for c in data["comments"]] == ["Why double it?"]
    [round_] = Store(agent_worktree.root).read().rounds
    assert round_.delivered_at is not None
    assert round_.read_by == "mcp"


async def test_pending_with_nothing_sent_has_no_round_and_no_comments(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        data = answer(await session.call_tool("pending", {}))
    assert data == {"worktree": str(agent_worktree.root), "round": None, "comments": [], "news": []}


async def test_a_tool_acts_on_the_worktree_a_call_names(project: Repo, agent_worktree: Repo) -> None:
    sent(agent_worktree)
    async with connected(project.root) as session:
        data = answer(await session.call_tool("pending", {"worktree": str(agent_worktree.root)}))
    assert data["worktree"] == str(agent_worktree.root)
    assert [c["id"] for c in data["comments"]] == ["c1"]


async def test_resolve_marks_the_comment_addressed_with_what_was_done(agent_worktree: Repo) -> None:
    sent(agent_worktree)
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("resolve", {"id": "c1", "message": "Doubled on purpose, see the spec"})
    assert not done.is_error and text(done) == "Marked c1 addressed."
    comment = Store(agent_worktree.root).read().comment("c1")
    assert comment.status == "addressed"
    assert (comment.thread[-1].author, comment.thread[-1].body) == ("agent", "Doubled on purpose, see the spec")


async def test_reply_answers_in_the_thread_and_leaves_the_comment_open(agent_worktree: Repo) -> None:
    sent(agent_worktree)
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("reply", {"id": "c1", "message": "Which spec do you mean?"})
    assert not done.is_error
    comment = Store(agent_worktree.root).read().comment("c1")
    assert comment.status == "open"
    assert (comment.thread[-1].author, comment.thread[-1].body) == ("agent", "Which spec do you mean?")


async def test_note_leaves_the_reviewer_a_note_beside_lines(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("note", {"target": "src/app.py:5-6", "message": "Doubled for the new rates"})
    assert not done.is_error and text(done) == "Left note n1 for the reviewer."
    note = Store(agent_worktree.root).read().comment("n1")
    assert (note.author, note.status, note.path, note.line, note.end_line) == ("agent", "note", "src/app.py", 5, 6)
    assert note.anchor is not None and note.anchor.lines == ["value_5 = 5 * 2  # doubled", "value_6 = 6"]


async def test_a_note_without_a_target_is_on_the_whole_change(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("note", {"target": "", "message": "Start with util.py"})
    assert not done.is_error
    note = Store(agent_worktree.root).read().comment("n1")
    assert (note.path, note.line, note.body) == ("", None, "Start with util.py")


async def test_a_note_on_lines_that_are_no_range_is_a_tool_error_of_one_line(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("note", {"target": "src/app.py:9-3", "message": "Backwards"})
    assert done.is_error and "'9-3' is not a range of lines" in text(done) and "\n" not in text(done)


async def test_request_asks_the_reviewer_for_a_review(agent_worktree: Repo) -> None:
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("request", {"message": "Totals use Decimal now"})
    assert not done.is_error and "waits on them" in text(done)
    asked = Store(agent_worktree.root).read().request
    assert asked is not None and asked.message == "Totals use Decimal now"


async def test_an_unknown_comment_is_a_tool_error_of_one_line(agent_worktree: Repo) -> None:
    sent(agent_worktree)
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("resolve", {"id": "c99", "message": "done"})
    assert done.is_error
    assert "c99" in text(done) and "\n" not in text(done) and "Traceback" not in text(done)


async def test_a_path_outside_any_repository_is_a_tool_error_of_one_line(tmp_path: Path, agent_worktree: Repo) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    async with connected(agent_worktree.root) as session:
        done = await session.call_tool("pending", {"worktree": str(outside)})
    assert done.is_error and "\n" not in text(done)


async def test_wait_returns_when_a_round_is_sent_during_it(agent_worktree: Repo) -> None:
    review(agent_worktree, "comment", "src/app.py:5", "-m", "Why double it?")
    results: list[CallToolResult] = []
    async with connected(agent_worktree.root) as session, anyio.create_task_group() as group:

        async def waiting() -> None:
            results.append(await session.call_tool("wait", {"timeout_seconds": 60}))

        group.start_soon(waiting)
        await watching_soon(server_pid(agent_worktree.root))
        await anyio.run_process([review_command(), "send", "-m", "Look at this"], cwd=agent_worktree.root)
    data = answer(results[0])
    assert data["news"] == ["round"]
    assert data["round"]["summary"] == "Look at this"
    assert [c["body"] for c in data["comments"]] == ["Why double it?"]
    assert Store(agent_worktree.root).read().rounds[0].read_by == "mcp"


async def test_wait_says_nothing_came_when_its_time_runs_out(agent_worktree: Repo) -> None:
    sent(agent_worktree)
    review(agent_worktree, "pending")
    async with connected(agent_worktree.root) as session:
        data = answer(await session.call_tool("wait", {"timeout_seconds": 0.2}))
    assert data["news"] == []
    assert "call wait again" in data["message"]
    assert "1 comment is still open" in data["message"]


async def test_wait_returns_at_once_with_news_not_read_yet(agent_worktree: Repo) -> None:
    sent(agent_worktree)
    async with connected(agent_worktree.root) as session:
        data = answer(await session.call_tool("wait", {"timeout_seconds": 300}))
    assert data["news"] == ["round"]
