"""What the agent reads of its review: the open comments and the news, the same whichever way it
reads them (`review pending`, `review wait`, the MCP server's `pending` and `wait` tools).

**Delivered means read**: the news in a reading counts as read only once the agent was shown it,
so a reading is taken in two steps. `read` gathers what to show; the caller shows it (prints it,
or returns it from a tool) and then calls `Reading.mark_read` with what the agent read it with,
which the overview and the review file tell apart ("pending", "wait", "mcp").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.state import instructions, news
from review.state.here import Here
from review.state.instructions import Instruction
from review.state.model import Round
from review.state.news import News, Reader
from review.state.store import Store


@dataclass(frozen=True)
class Reading:
    """The review as the agent is to read it now: its latest round, the open comments with their
    code as the files are now, and what of it is news."""

    worktree: Path
    store: Store
    latest: Round | None
    items: list[Instruction]
    news: News
    """What the agent has not read yet: marked read by `mark_read`."""
    waited: bool
    """Read at the end of a wait: the round is shown even with nothing to change."""

    @property
    def shown(self) -> bool:
        """Whether there is something to show: open comments, or a round the agent has not read
        (an approval, a summary alone), or any round after a wait. `review pending` prints
        nothing when there is not."""
        always = self.waited or bool(self.news.rounds)
        return bool(self.items) or (always and self.latest is not None)

    def as_json(self, *, with_news: bool) -> dict[str, Any]:
        """The JSON of `review pending --json` (DESIGN.md); `with_news` adds "news": what of it
        the agent had not read ("round", "approval", "reply")."""
        data = instructions.as_json(self.worktree, self.latest, self.items)
        if with_news:
            data["news"] = self.news.kinds()
        return data

    def markdown(self, review: str) -> str:
        """The instructions as Markdown; `review` is the command that runs review in the agent's
        shell (`review.command.runnable`). Empty when nothing is `shown`."""
        always = self.waited or bool(self.news.rounds)
        return instructions.markdown(self.worktree, self.latest, self.items, review=review, always=always)

    def mark_read(self, by: Reader) -> None:
        """Record that the agent read this with `by`: once it was shown, never before."""
        news.mark_read(self.store, self.news, by)


def read(here: Here, *, waited: bool) -> Reading:
    """The review of `here` as the agent is to read it, with every comment found again in the
    files as they are now. Nothing is marked read (see `Reading.mark_read`)."""
    review = here.reanchored()
    return Reading(
        worktree=here.worktree.root,
        store=here.store,
        latest=review.latest_round(),
        items=instructions.gather(review, here.read),
        news=news.find(review),
        waited=waited,
    )
