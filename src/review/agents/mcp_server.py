"""`review mcp`: the review loop as MCP tools over stdio, for agents that prefer tools to commands.

The server is the protocol's own implementation, the official `mcp` SDK (`MCPServer`), and is
imported only by `review mcp`, so the other verbs start without it. Each tool is a verb of the
command line over the same core: `pending` reads as `review pending --json` does (and says what
was news), `wait` waits as `review wait` does, in bounded steps, since an agent's harness stops a
tool call that runs too long; `reply`, `resolve`, `note` and `request` write what their verbs
write, through the same core functions. Reading through a tool marks the news read "by mcp" (`review.agents.reading`).

The tools act on the worktree the server was started in (`review mcp -C PATH`), or on the one
containing the `worktree` a call names. A mistake the agent can fix (an unknown comment id, a path
outside the worktree) is a tool error of one line, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from review import __version__
from review.agents import reading
from review.agents.wait import wait_for_news
from review.errors import ReviewError
from review.state import comments, notes, requests
from review.state.comments import Where
from review.state.here import Here

NAME = "review"
"""The server's name, and so the prefix of its tools in an agent (`mcp__review__pending`)."""

WAIT_SECONDS = 50.0
"""How long `wait` waits when not told: under the minute Codex gives a tool call by default."""

WAIT_MOST = 300.0
"""The longest one `wait` call waits; the agent calls again to go on waiting."""

INSTRUCTIONS = f"""\
A person reviews the changes you make in this git worktree. They comment on lines of your diff
and send the comments as one review; each comment has an id (c3), a severity (must, should,
question, nit) and the code it is on, quoted as the file is now.

Call `pending` to read the open comments. Fix what each asks, then answer every one: `resolve`
it with a short note of what you did, or `reply` in its thread when you disagree or need to ask
(it stays open for the reviewer). Call `pending` again: nothing is left once every comment is
answered. Leave the reviewer a `note` on lines whose change needs a word of why. When your task
is done, `request` a review and `wait` for it; `wait` returns as soon as a review, an approval
or the reviewer's answer comes, and after at most {WAIT_MOST:g} seconds says nothing came: call
it again to go on waiting.

Never edit the .review/ folder of the worktree: it holds the review.
"""


def server(start: Path) -> MCPServer:
    """The review server: its tools act on the worktree containing `start`, or the one a call names."""
    made = MCPServer(NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    def where(worktree: str) -> Path:
        # A relative path is taken from where the server started, as `-C` is from the shell's.
        return start / worktree if worktree else start

    @made.tool()
    def pending(worktree: str = "") -> dict[str, Any]:
        """The review of your work as JSON: the latest round sent ("round": its verdict and the
        reviewer's summary), and each open comment (and each of your notes the reviewer
        answered) with its id, path, lines as the file is now, severity, body, the code it is on
        and its thread, where each reply says whether it is new to you. "news" says what you had
        not read: "round", "approval", "reply". Empty "comments": nothing is left to answer.

        Args:
            worktree: a path in another worktree than the one the server started in.
        """
        with _one_line():
            taken = reading.read(Here(where(worktree)), waited=False)
            data = taken.as_json(with_news=True)
            taken.mark_read("mcp")
            return data

    @made.tool(structured_output=False)
    def resolve(id: str, message: str, worktree: str = "") -> str:
        """Mark a comment addressed once the code does what it asks, with a short note of what
        you did, for the reviewer.

        Args:
            id: the comment's id, e.g. "c3".
            message: what you did.
            worktree: a path in another worktree than the one the server started in.
        """
        with _one_line():
            comments.resolve(Here(where(worktree)).store, id, message)
            return f"Marked {id} addressed."

    @made.tool(structured_output=False)
    def reply(id: str, message: str, worktree: str = "") -> str:
        """Answer in a comment's thread, when you disagree, cannot do what it asks, or need to
        ask the reviewer something; the comment stays open for them.

        Args:
            id: the comment's id, e.g. "c3".
            message: your answer (Markdown).
            worktree: a path in another worktree than the one the server started in.
        """
        with _one_line():
            comments.reply(Here(where(worktree)).store, id, "agent", message)
            return f"Replied to {id}. `wait` waits for the reviewer's answer."

    @made.tool(structured_output=False)
    def note(target: str, message: str, old: bool = False, worktree: str = "") -> str:
        """Leave the reviewer a note beside lines you changed: why you changed them, what to look
        at. The reviewer sees it in the diff before reviewing, and may answer it (`pending` then
        shows the answer).

        Args:
            target: "FILE:LINE" or "FILE:START-END" (FILE relative to the folder the server
                started in), "FILE" for the whole file, or "" for a note on the whole change.
            message: the note (Markdown).
            old: the lines are on the old side of the diff (code you removed).
            worktree: a path in another worktree than the one the server started in.
        """
        with _one_line():
            cwd = where(worktree)
            here = Here(cwd)
            if not target:
                if old:
                    raise ReviewError("old names a side of a file: give FILE:LINE as the target with it")
                made = notes.add(here.store, Where(path=notes.WHOLE_CHANGE), message, None)
            else:
                lines = here.place(target, cwd, old=old)
                made = notes.add(here.store, lines.where, message, lines.lines, lines.source)
            return f"Left note {made.id} for the reviewer."

    @made.tool(structured_output=False)
    def request(message: str = "", worktree: str = "") -> str:
        """Ask the reviewer for a review of your work, once your task is done: the reviewer's
        overview shows that this worktree waits on them, with your message, until they send a
        review. Asking again replaces the request. Then `wait` for the review.

        Args:
            message: for the reviewer: what you did, and where to look.
            worktree: a path in another worktree than the one the server started in.
        """
        with _one_line():
            requests.ask(Here(where(worktree)).store, message)
            return (
                "Asked the reviewer for a review: their overview shows that this worktree waits on them."
                " `wait` waits for their review."
            )

    @made.tool()
    async def wait(timeout_seconds: float = WAIT_SECONDS, worktree: str = "") -> dict[str, Any]:
        """Wait for news from the reviewer: a review sent, an approval, or the reviewer's answer
        in a comment's thread. Returns at once when there is news you have not read, else as
        soon as some comes, as `pending` does (with "news" saying what came); after
        `timeout_seconds` (at most 300) with "news" empty: call it again to go on waiting.
        Comments you already read do not end a wait: `pending` shows them.

        Args:
            timeout_seconds: how long to wait, in seconds (default 50, at most 300).
            worktree: a path in another worktree than the one the server started in.
        """
        seconds = min(max(timeout_seconds, 0.0), WAIT_MOST)
        # The watch blocks a thread; a call the agent gives up on leaves it to end at its timeout.
        return await anyio.to_thread.run_sync(lambda: _wait(where(worktree), seconds), abandon_on_cancel=True)

    return made


def _wait(where: Path, seconds: float) -> dict[str, Any]:
    with _one_line():
        place = Here(where)
        if wait_for_news(place.store, seconds) is None:
            still_open = len(place.store.read().open_comments())
            said = f"Nothing new from the reviewer within {seconds:g} seconds: call wait again to go on waiting."
            if still_open:
                said += f" {still_open} comment{'s are' if still_open != 1 else ' is'} still open: pending shows them."
            return {"news": [], "message": said}
        taken = reading.read(place, waited=True)
        data = taken.as_json(with_news=True)
        taken.mark_read("mcp")
        return data


@contextmanager
def _one_line() -> Iterator[None]:
    """Turn a mistake the agent can fix into a tool error of one line, as the command line says it."""
    try:
        yield
    except ReviewError as error:
        raise ToolError(str(error)) from None
    except OSError as error:
        raise ToolError(f"{error.strerror or error}: {error.filename or ''}".rstrip(": ")) from None


def serve(start: Path) -> None:
    """Serve the tools over stdin and stdout until the agent closes them."""
    server(start).run("stdio")
