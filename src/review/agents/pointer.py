"""The one line every channel (the Stop hook, `review watch`) gives an agent that has news."""

from __future__ import annotations

from review import command
from review.state.news import News


def line(told: News) -> str:
    """The one line that tells an agent of news worth interrupting it for (`News.interrupting`):
    a command that prints it, runnable as written in the agent's shell, then what it is and what
    to do, after a `#` so that a shell ignores them."""
    review = command.runnable()
    said = []
    if told.asking:
        said.append(f"{told.open} review comment{'s wait' if told.open != 1 else ' waits'} for you on this worktree")
    if told.replies:
        said.append(f"the reviewer answered you on {', '.join(told.answered())}")
    what = "; ".join(said)
    return (
        f"{review} pending  # {what[0].upper()}{what[1:]}. This command prints {'them' if told.open > 1 else 'it'}."
        f' Fix what each comment asks, then answer it with {review} resolve ID -m "what you did"'
        f' (or {review} reply ID -m "your answer" to disagree or ask). Your review skill tells the rest.'
    )
