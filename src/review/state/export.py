"""A sent round of review taken elsewhere: Markdown to paste into a chat, JSON, or the body of a
GitHub pull request review, which `gh` can post.

Every comment is shown where its code is now (the review is re-anchored before it is exported),
with the quoted code, its severity, its status and its thread. Text from the repository and from
the agent is shown inert, as in the agent's instructions, whose pieces these formats share.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.errors import PostFailed, UnknownRound
from review.repo.git import Worktree
from review.repo.text import visible
from review.state import instructions
from review.state.instructions import VERDICT_TITLES, Instruction, code_block, inert, sections, summary_quote
from review.state.model import Comment, Review, Round, Side, Verdict

FORMATS = ("markdown", "json", "github")


def chosen_round(review: Review, id: str | None) -> Round:
    """The round with this id, or the latest sent when `id` is None.

    Raises:
        UnknownRound: no round has been sent yet, or none has this id.
    """
    if not review.rounds:
        raise UnknownRound("no review has been sent from this worktree yet: there is no round to export")
    if id is None:
        return review.rounds[-1]
    for sent in review.rounds:
        if sent.id == id:
            return sent
    raise UnknownRound(f"no round '{id}' in this worktree's review (sent: {', '.join(r.id for r in review.rounds)})")


def gather(review: Review, sent: Round, read: Callable[[str, Side], list[str] | None]) -> list[Instruction]:
    """The comments sent in `sent`, whatever their status now, each with its code as the file is
    now, in the order the agent was given them."""
    return instructions.quoted([c for c in review.comments if c.id in sent.comment_ids], read)


def markdown(worktree: Worktree, sent: Round, items: Sequence[Instruction]) -> str:
    """The round as Markdown for people: which worktree and branch, the verdict and summary, then
    each comment by file, with its lines, severity, status, quoted code and thread."""
    title = f"# Review of {visible(worktree.root.name)}"
    if worktree.branch is not None:
        title += f" ({visible(worktree.branch)})"
    count = len(items)
    out = [
        f"{title}: round {sent.id}, {VERDICT_TITLES[sent.verdict]}",
        "",
        f"Sent {sent.sent_at}, {count} comment{'s' * (count != 1)}. Line numbers are those of the files now.",
    ]
    if sent.summary.strip():
        out.extend(["", *summary_quote(sent.summary)])
    out.extend(sections(items, answer=None))
    return "\n".join(out) + "\n"


def as_json(worktree: Worktree, sent: Round, items: Sequence[Instruction]) -> dict[str, Any]:
    """The round as `review pending --json` gives one, with every comment of the round whatever
    its status (each comment carries its `status`)."""
    return instructions.as_json(worktree.root, sent, items)


# GitHub's "Create a review for a pull request" (POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews,
# https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request) takes `commit_id`,
# `body` ("Required when using REQUEST_CHANGES or COMMENT for the event parameter"), `event` (one of
# APPROVE, REQUEST_CHANGES, COMMENT) and `comments`, each with `path` and `body` (required) and
# `line`, `side`, `start_line`, `start_side` ("LEFT" for deletions, "RIGHT" for additions and
# context). A review's comments have no `subject_type` (only the endpoint that creates one comment
# has it), so comments on a whole file, and comments whose code is gone, are told in the body.
EVENTS: dict[Verdict, str] = {"approve": "APPROVE", "request_changes": "REQUEST_CHANGES", "comment": "COMMENT"}
"""The review's `event` for each verdict."""
SIDES: dict[Side, str] = {"new": "RIGHT", "old": "LEFT"}
"""A line comment's `side` for each side of the diff."""


def github(sent: Round, items: Sequence[Instruction], commit: str | None = None) -> dict[str, Any]:
    """The round as the body of GitHub's "Create a review for a pull request"; `commit` is the
    commit the lines are of (`commit_id`), when known. GitHub takes only lines in the pull
    request's diff."""
    on_lines = [item for item in items if item.comment.line is not None]
    elsewhere = [item for item in items if item.comment.line is None]
    review: dict[str, Any] = {"body": _review_body(sent, elsewhere), "event": EVENTS[sent.verdict]}
    if commit is not None:
        review["commit_id"] = commit
    review["comments"] = [_line_comment(item.comment) for item in on_lines]
    return review


def _line_comment(comment: Comment) -> dict[str, Any]:
    assert comment.line is not None
    side = SIDES[comment.side]
    end = comment.end_line or comment.line
    made: dict[str, Any] = {"path": comment.path, "line": end, "side": side}
    if end > comment.line:
        # GitHub's range runs from start_line to line; a single line has no start_line.
        made.update(start_line=comment.line, start_side=side)
    made["body"] = _comment_text(comment)
    return made


def _review_body(sent: Round, elsewhere: Sequence[Instruction]) -> str:
    parts = [inert(sent.summary.strip())] if sent.summary.strip() else []
    for item in elsewhere:
        comment = item.comment
        if comment.anchor_state == "lost":
            said = f"On {_code_span(comment.path)}, code that is gone from the file now:"
            parts.append("\n".join([said, "", *code_block(item.quote), "", _comment_text(comment)]))
        else:
            parts.append(f"On the whole of {_code_span(comment.path)}: {_comment_text(comment)}")
    # GitHub refuses a REQUEST_CHANGES or COMMENT review without a body.
    return "\n\n".join(parts) or f"Review {sent.id}: see the comments on the lines."


def _comment_text(comment: Comment) -> str:
    """A comment's words with its severity first, then its thread."""
    said = [f"**{comment.severity}:** {inert(comment.body.strip())}"]
    said.extend(f"*{reply.author}, {reply.at}:* {inert(reply.body.strip())}" for reply in comment.thread)
    return "\n\n".join(said)


def _code_span(text: str) -> str:
    """`text` as a Markdown code span, its backticks kept."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{visible(text, keep_tabs=True)}{pad}{ticks}"


# Posting with gh, GitHub's command line, which knows the user's account and which repository
# the worktree's remote is: `{owner}` and `{repo}` in an API path are filled in by gh itself.


@dataclass(frozen=True)
class PullRequest:
    """The pull request of the worktree's branch, as `gh pr view` tells it."""

    number: int
    head: str
    """The commit at its head (`headRefOid`): the commit its review is of."""
    url: str


def pull_request(root: Path) -> PullRequest:
    """The pull request of the branch checked out at `root`.

    Raises:
        PostFailed: gh is not installed, or the branch has no pull request.
    """
    said = _gh(root, ["pr", "view", "--json", "number,headRefOid,url"], failing="no pull request to post to")
    try:
        found = json.loads(said)
        return PullRequest(int(found["number"]), str(found["headRefOid"]), str(found["url"]))
    except (ValueError, KeyError, TypeError):
        raise PostFailed("gh pr view did not print the pull request as JSON") from None


def post(root: Path, pull: PullRequest, review: dict[str, Any]) -> str:
    """Post `review` (the body `github` makes) to the pull request; the address of the review.

    Raises:
        PostFailed: gh is not installed, or GitHub did not take the review (gh's words).
    """
    path = f"repos/{{owner}}/{{repo}}/pulls/{pull.number}/reviews"
    said = _gh(root, ["api", path, "--method", "POST", "--input", "-"], json.dumps(review), "GitHub refused the review")
    try:
        return str(json.loads(said)["html_url"])
    except (ValueError, KeyError, TypeError):
        return pull.url


def _gh(root: Path, args: list[str], stdin: str | None = None, failing: str = "gh failed") -> str:
    gh = shutil.which("gh")
    if gh is None:
        raise PostFailed(
            "gh, GitHub's command line, is not installed (https://cli.github.com); without it, post what"
            " `review export --format github` prints yourself"
        )
    try:
        done = subprocess.run([gh, *args], cwd=root, input=stdin, capture_output=True, text=True, check=False)
    except OSError as error:
        raise PostFailed(f"gh could not be run: {error.strerror or error}") from None
    if done.returncode != 0:
        raise PostFailed(f"{failing}: {_gh_error(done)}")
    return done.stdout


def _gh_error(done: subprocess.CompletedProcess[str]) -> str:
    """gh's complaint on one line; for an API error, with GitHub's reasons (which gh prints on
    stdout in the response), such as a line that is not in the pull request's diff."""
    said = [line.strip().removeprefix("gh: ") for line in done.stderr.splitlines() if line.strip()]
    try:
        reasons = json.loads(done.stdout).get("errors", [])
    except (ValueError, AttributeError):
        reasons = []
    if isinstance(reasons, list):
        said.extend(str(r.get("message", r) if isinstance(r, dict) else r) for r in reasons)
    return visible("; ".join(said) or f"gh stopped with status {done.returncode}")
