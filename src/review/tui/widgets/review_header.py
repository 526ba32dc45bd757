"""The review screen's header: the worktree, what is compared, the totals and the review's state,
laid out anew for whatever width the terminal gives it.

The facts are ranked. When they do not all fit, the least needed go first (the branch, the viewed
count, the scope, the counts of files and comments), then the worktree's name is shortened after
one of its words; the review's state, the totals, the search's place and whatever is not saved
yet always stay, and a number or a word is never cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from review.repo.text import visible
from review.tui.compact import word_ends

_GAP = "  "

# The order in which facts give way to a narrow terminal; facts without a rank always stay. The
# worktree's name is shortened last: on a small screen, which worktree this is matters more than
# the counts (the review's state stays).
_BRANCH, _VIEWED, _SCOPE, _FILES, _COMMENTS, _SHORTER_NAME = range(1, 7)

# The worktree's name is first cut to this many cells, before anything more useful gives way.
_SHORT_NAME = 12

# Comment counts shown, in this order; the agent's standing notes last.
_COUNTED = ("draft", "open", "answered", "addressed", "note")


class _Facts(NamedTuple):
    worktree: str = ""
    branch: str = ""
    scope: str = ""
    files: int | None = None
    added: int = 0
    removed: int = 0
    viewed: int = 0
    comments: Mapping[str, int] = MappingProxyType({})
    state: str = ""
    match: tuple[int, int] | None = None
    saving: int = 0
    unsaved: int = 0


class _Part(NamedTuple):
    text: Text
    rank: int | None = None
    """When it gives way to a narrow terminal (lower goes first); None: it always stays."""
    is_name: bool = False
    """The worktree's name, which is shortened rather than left out."""


class ReviewHeader(Widget):
    """One line: worktree, branch, scope, files, +added −removed, viewed, comments, review state."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "review-header--worktree",
        "review-header--branch",
        "review-header--added",
        "review-header--removed",
        "review-header--addressed",
        "review-header--match",
        "review-header--saving",
        "review-header--unsaved",
    }

    DEFAULT_CSS = """
    ReviewHeader {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
        & > .review-header--worktree { text-style: bold; }
        & > .review-header--branch { text-style: italic; }
        & > .review-header--added { color: $text-success; }
        & > .review-header--removed { color: $text-error; }
        & > .review-header--addressed { text-style: bold; }
        & > .review-header--match { color: $text-accent; text-style: bold; }
        & > .review-header--saving { text-style: italic; }
        & > .review-header--unsaved { color: $text-error; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._facts = _Facts()

    def show(
        self,
        *,
        worktree: str,
        branch: str | None,
        scope: str | None = None,
        files: int | None = None,
        added: int = 0,
        removed: int = 0,
        viewed: int = 0,
        comments: Mapping[str, int] | None = None,
        state: str = "none",
        match: tuple[int, int] | None = None,
        saving: int = 0,
        unsaved: int = 0,
    ) -> None:
        """Show these facts (names are made inert here).

        Args:
            worktree: The worktree's folder name.
            branch: Its branch; None for a detached HEAD.
            scope: What is compared, e.g. `main...working tree`; None until it is known.
            files: How many files changed; None until the diff is read.
            added: Lines added in the whole diff.
            removed: Lines removed in the whole diff.
            viewed: Files marked viewed.
            comments: How many comments are in each status (draft, open, addressed, and the
                agent's notes: note).
            state: The review's state (none, drafts, sent, ...).
            match: The search's match under the cursor and how many there are; None without one.
            saving: The reviewer's changes being saved now.
            unsaved: The reviewer's changes that could not be saved yet (shown first, as an error).
        """
        facts = _Facts(
            worktree=visible(worktree),
            branch=visible(branch or "detached HEAD"),
            scope=visible(scope or ""),
            files=files,
            added=added,
            removed=removed,
            viewed=viewed,
            comments=dict(comments or {}),
            state=visible(state),
            match=match,
            saving=saving,
            unsaved=unsaved,
        )
        if facts != self._facts:  # (shown again as each change is saved, mostly the same)
            self._facts = facts
            self.refresh()

    @property
    def text(self) -> str:
        """The header as drawn at its width now, without styles."""
        return self.render().plain

    def render(self) -> Text:
        return self._fit(self.content_size.width)

    def _fit(self, width: int) -> Text:
        parts = self._parts()
        name = self._facts.worktree
        for rank in (_BRANCH, _VIEWED, _SCOPE, _FILES, _COMMENTS, _SHORTER_NAME):
            if _width(parts, name) <= width:
                break
            if rank == _SHORTER_NAME:
                name = at_a_word(name, _SHORT_NAME)
            else:
                parts = [part for part in parts if part.rank != rank]
        # the rest always stays: the name takes the room it leaves, down to its first word or "…"
        name = at_a_word(self._facts.worktree, max(1, width - _width(parts, "")))
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        for index, part in enumerate(parts):
            if index:
                line.append(_GAP)
            line.append_text(Text(name, self._style("worktree")) if part.is_name else part.text)
        return line

    def _parts(self) -> list[_Part]:
        facts = self._facts
        style = self._style
        parts: list[_Part] = []
        # what is not saved comes first: the reviewer must not quit without knowing
        if facts.unsaved:
            parts.append(_Part(Text(f"{facts.unsaved} not saved", style("unsaved"))))
        elif facts.saving:
            parts.append(_Part(Text("saving…", style("saving"))))
        parts.append(_Part(Text(), is_name=True))
        parts.append(_Part(Text(facts.branch, style("branch")), _BRANCH))
        if facts.scope:
            parts.append(_Part(Text(facts.scope), _SCOPE))
        if facts.files is not None:
            parts.append(_Part(Text(f"{facts.files} file{'s' * (facts.files != 1)}"), _FILES))
            totals = Text.assemble((f"+{facts.added}", style("added")), " ", (f"−{facts.removed}", style("removed")))
            parts.append(_Part(totals))
            parts.append(_Part(Text(f"{facts.viewed}/{facts.files} viewed"), _VIEWED))
        for status in _COUNTED:
            if count := facts.comments.get(status, 0):
                emphasis = style("addressed") if status in ("answered", "addressed") else Style()
                said = f"{count} note{'s' * (count != 1)}" if status == "note" else f"{count} {status}"
                parts.append(_Part(Text(said, emphasis), _COMMENTS))
        parts.append(_Part(Text(f"review: {facts.state}")))
        if facts.match is not None:
            at, total = facts.match
            parts.append(_Part(Text(f"match {at}/{total}", style("match"))))
        return parts

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"review-header--{name}", partial=True)


def _width(parts: list[_Part], name: str) -> int:
    """Cells the parts take on one line, with `name` as the worktree's name."""
    cells = sum(cell_len(name) if part.is_name else part.text.cell_len for part in parts)
    return cells + cell_len(_GAP) * (len(parts) - 1)


def at_a_word(name: str, cells: int) -> str:
    """`name` in `cells` cells, cut after the last of its words that fits whole ("tally-csv-…"
    for "tally-csv-export"), or "…" alone: a word cut in half reads as another word."""
    if cell_len(name) <= cells:
        return name
    ends = [end for end in word_ends(name) if cell_len(name[:end]) + 1 <= cells]
    return (name[: ends[-1]] if ends else "") + "…"


def shortened(name: str, cells: int) -> str:
    """`name` cut to `cells` cells, its end replaced by an ellipsis."""
    if cell_len(name) <= cells:
        return name
    text = Text(name)
    text.truncate(cells, overflow="ellipsis")
    return text.plain
