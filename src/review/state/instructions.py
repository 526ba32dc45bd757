"""The open comments as instructions an agent can act on: Markdown to read, or JSON to parse.

Each comment says where (the path and the line numbers as the file is now), quotes the code with a
line of context on each side, gives the reviewer's words and severity, and says exactly how to
answer, with a command that runs as written in the agent's shell. Comments are grouped by file in
diff order, and within a file the weightiest come first. Each comment comes with its whole thread,
and the reviewer's replies since the agent last answered in it are marked new: they wait for an
answer, whichever way the agent heard of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.repo.text import visible
from review.state import news
from review.state.comments import severity_rank, side_path
from review.state.model import Comment, Review, Round, Side, Verdict

VERDICT_TITLES: dict[Verdict, str] = {
    "request_changes": "changes requested",
    "comment": "comments",
    "approve": "approved",
}
"""How the instructions' title names a round's verdict."""


@dataclass(frozen=True)
class Quote:
    """The code a comment is on, as the file is now."""

    first: int | None
    """The number of the first line shown (a context line when there is one)."""
    lines: list[str]
    commented: range
    """Which of `lines` (by index) the comment is on."""


@dataclass(frozen=True)
class Instruction:
    comment: Comment
    quote: Quote
    new: frozenset[int] = frozenset()
    """Which replies of the thread (by index) are new to the agent (`news.unanswered`)."""


def gather(review: Review, read: Callable[[str, Side], list[str] | None]) -> list[Instruction]:
    """What asks something of the agent (`Review.awaiting_agent`: the open comments, and its notes
    the reviewer answered), in the order an agent should take them (see `quoted`)."""
    return quoted(review.awaiting_agent(), read)


def quoted(comments: Iterable[Comment], read: Callable[[str, Side], list[str] | None]) -> list[Instruction]:
    """The comments, each with its code as the file is now (`read` gives a file's lines on a side),
    by file in diff order (git's path order), weightiest first, then by line."""
    found = [Instruction(c, _quote(c, read(side_path(c), c.side)), frozenset(news.unanswered(c))) for c in comments]
    return sorted(
        found,
        key=lambda item: (
            item.comment.path.encode("utf-8", "surrogateescape"),
            severity_rank(item.comment),
            item.comment.line or 0,
        ),
    )


def _quote(comment: Comment, lines: list[str] | None) -> Quote:
    if comment.line is None or lines is None:
        # On the whole file, or its code is gone: what it was written on is all there is.
        original = comment.anchor.lines if comment.anchor is not None else []
        return Quote(None, list(original), range(len(original)))
    end = comment.end_line or comment.line
    first = max(1, comment.line - 1)
    last = min(len(lines), end + 1)
    shown = lines[first - 1 : last]
    return Quote(first, shown, range(comment.line - first, end - first + 1))


def markdown(
    worktree: Path, latest: Round | None, items: Sequence[Instruction], *, review: str, always: bool = False
) -> str:
    """The instructions as Markdown; empty when there are none, unless `always` (then the round's
    verdict and summary, and that there is nothing to change). `review` is the command that runs
    review in the agent's shell (`review.command.runnable`)."""
    if not items and not (always and latest is not None):
        return ""
    out: list[str] = []
    title = f"# Review of {worktree.name}"
    if latest is not None:
        title += f": round {latest.id}, {VERDICT_TITLES[latest.verdict]}"
    out.append(title)
    out.append("")
    if latest is not None and latest.summary.strip():
        out.extend([*summary_quote(latest.summary), ""])
    if not items:
        return "\n".join([*out, "Nothing to change."]) + "\n"
    out.append(_opening(worktree, items, review))
    out.extend(sections(items, answer=review))
    return "\n".join(out) + "\n"


def summary_quote(summary: str) -> list[str]:
    """A round's summary as a Markdown block quote, shown inert."""
    return block_quote(summary)


def block_quote(text: str) -> list[str]:
    """Words someone wrote (a summary, a comment, a reply, an agent's note) as a Markdown block
    quote, shown inert. Every line is quoted, so nothing in them (a heading, a fence left open, a
    line like `**New:** *reviewer, ...*`) can leave the quote and pass for the instructions' own
    structure: the headings, quoted code and answers are review's, what is quoted is someone's."""
    return ["> " + line if line else ">" for line in inert(text.strip()).split("\n")]


def sections(items: Sequence[Instruction], *, answer: str | None) -> list[str]:
    """Each comment under its file's heading: its id, severity and lines, the quoted code, the
    reviewer's words and the thread, each reply under its author (the words in block quotes).

    `answer` is the command that runs review in the agent's shell: with it, each comment says how
    to answer it, and the replies new to the agent are marked. Without it (a round exported for
    people), each heading says the comment's status instead.
    """
    out: list[str] = []
    path = None
    for item in items:
        comment = item.comment
        if comment.path != path:
            path = comment.path
            out.extend(["", f"## {visible(path)}" if path else "## The whole change"])
        kind = ("your note" if answer is not None else "agent note") if comment.is_note else comment.severity
        heading = f"{comment.id} · {kind} · {where(comment)}"
        if answer is None:
            heading += f" · {comment.status}"
        out.extend(["", f"### {heading}", ""])
        out.extend(code_block(item.quote))
        out.append("")
        out.extend(block_quote(comment.body))
        for index, reply in enumerate(comment.thread):
            new = "**New:** " if answer is not None and index in item.new else ""
            out.extend(["", f"{new}*{reply.author}, {reply.at}:*", *block_quote(reply.body)])
        if answer is not None and comment.is_note:
            out.append("")
            out.append(f'Answer: `{answer} reply {comment.id} -m "..."`')
        elif answer is not None:
            out.append("")
            out.append(f'Answer: `{answer} resolve {comment.id} -m "..."` or `{answer} reply {comment.id} -m "..."`')
    return out


def inert(text: str) -> str:
    """Text a reviewer or an agent wrote, its lines kept and every control character in them shown
    as a harmless stand-in (`review.repo.text.visible`)."""
    return "\n".join(visible(line, keep_tabs=True) for line in text.split("\n"))


def _opening(worktree: Path, items: Sequence[Instruction], review: str) -> str:
    count = sum(not item.comment.is_note for item in items)
    notes = len(items) - count
    answered = [item.comment.id for item in items if item.new]
    what = [f"{count} comment{'s' * (count != 1)} to address"] if count else []
    if notes:
        what.append(f"{notes} of your notes the reviewer answered")
    said = [f"{' and '.join(what)}, in {worktree}."]
    if answered:
        said.append(f"The reviewer answered you on {', '.join(answered)}: the new replies are marked **New:**.")
    if count:
        said.append(
            f'For each comment: change the code, then run `{review} resolve ID -m "what you did"`. If you disagree '
            f'or need to ask, run `{review} reply ID -m "your answer"` instead.'
        )
    if notes:
        said.append(f'Answer the reviewer on a note of yours in its thread: `{review} reply ID -m "your answer"`.')
    said.append("Line numbers are those of the files as they are now.")
    return " ".join(said)


def where(comment: Comment) -> str:
    """Which lines a comment is on, in words, as the file is now."""
    if not comment.path:
        return "the whole change"
    if comment.line is None:
        if comment.anchor_state == "lost":
            return "the code it was on is gone from the file; it is quoted as it was"
        return "the whole file"
    end = comment.end_line or comment.line
    lines = f"line {comment.line}" if end == comment.line else f"lines {comment.line}-{end}"
    if comment.side == "old":
        lines += " of the old version (removed code)"
    if comment.anchor_state == "moved":
        lines += " (moved since the comment was written)"
    elif comment.anchor_state == "changed":
        lines += " (changed since the comment was written)"
    return lines


def code_block(quote: Quote) -> list[str]:
    """The quoted code, inert, in a fence longer than any run of backticks in it."""
    # '>' marks the commented lines; the others are context. Numbers are the file's own.
    if not quote.lines:
        return ["(no code quoted)"]
    width = len(str((quote.first or 1) + len(quote.lines)))
    body = []
    for index, line in enumerate(quote.lines):
        mark = ">" if index in quote.commented else " "
        number = "" if quote.first is None else f"{quote.first + index:>{width}} "
        body.append(f"{mark}{number}{visible(line, keep_tabs=True)}")
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(body))), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *body, fence]


def as_json(worktree: Path, latest: Round | None, items: Sequence[Instruction]) -> dict[str, Any]:
    """The instructions as the JSON of DESIGN.md (`review pending --json`); each reply in a thread
    also says whether it is `new` to the agent."""
    return {
        "worktree": str(worktree),
        "round": None
        if latest is None
        else {"id": latest.id, "verdict": latest.verdict, "summary": latest.summary, "sent_at": latest.sent_at},
        "comments": [
            {
                "id": item.comment.id,
                "path": item.comment.path,
                "side": item.comment.side,
                "line": item.comment.line,
                "end_line": item.comment.end_line,
                "severity": None if item.comment.is_note else item.comment.severity,
                "status": item.comment.status,
                "anchor_state": item.comment.anchor_state,
                "body": item.comment.body,
                "code": [item.quote.lines[i] for i in item.quote.commented],
                "thread": [
                    {"author": r.author, "body": r.body, "at": r.at, "new": index in item.new}
                    for index, r in enumerate(item.comment.thread)
                ],
            }
            for item in items
        ],
    }
