"""The overview's summary line: the repository and what waits on the reviewer, laid out anew for
whatever width the terminal gives it.

The facts are ranked. When they do not all fit, the least needed give way whole (the default
branch, the count of worktrees, ...), so that no word or number is ever cut; what waits on the
reviewer always stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget


@dataclass(frozen=True)
class Fact:
    """One part of the summary."""

    text: str
    style: str = ""
    rank: int | None = None
    """When it gives way to a narrow terminal (lower goes first); None: it always stays."""
    before: str = "  "
    """What separates it from the fact before it."""


class OverviewSummary(Widget):
    """One line: the repository, its default branch, the hosts, and the counts that matter."""

    DEFAULT_CSS = """
    OverviewSummary { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._facts: list[Fact] = []

    def show(self, facts: Sequence[Fact]) -> None:
        """Show these facts, in order (their text already made inert)."""
        self._facts = list(facts)
        self.refresh()

    @property
    def text(self) -> str:
        """The line as drawn at its width now, without styles."""
        return self.render().plain

    def render(self) -> Text:
        return fitted(self._facts, self.content_size.width)


def fitted(facts: Sequence[Fact], width: int) -> Text:
    """The facts that fit in `width` cells, the lowest ranked left out first."""
    kept = list(facts)
    for rank in sorted({fact.rank for fact in facts if fact.rank is not None}):
        if _line(kept).cell_len <= width:
            break
        kept = [fact for fact in kept if fact.rank != rank]
    return _line(kept)


def _line(facts: Sequence[Fact]) -> Text:
    line = Text(no_wrap=True, overflow="crop", end="")
    for index, fact in enumerate(facts):
        # what leads into a fact is in its style
        line.append(f"{fact.before if index else ''}{fact.text}", fact.style)
    return line
