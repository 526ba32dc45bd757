"""Every comment of the worktree in one list; choosing one goes to it in the diff."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from review.repo.text import visible
from review.state.model import AnchorState, Comment, CommentStatus, Severity
from review.tui.dialogs.frame import Picker
from review.tui.widgets.review_footer import ReviewFooter

BODY_PREVIEW = 200
"""Characters of a comment's first line kept in its row; the row's width cuts it shorter."""

_STATUS_STYLE: dict[CommentStatus, str] = {
    "draft": "yellow",
    "open": "bold",
    "addressed": "cyan",
    "resolved": "green",
    "wontfix": "dim",
    "note": "bold",
    "dismissed": "dim",
}
_SEVERITY_STYLE: dict[Severity, str] = {
    "must": "bold red",
    "should": "yellow",
    "nit": "dim",
    "question": "magenta",
}
_ANCHOR_STYLE: dict[AnchorState, str] = {
    "exact": "",
    "moved": "dim",
    "changed": "yellow",
    "lost": "red",
}


@dataclass(frozen=True)
class PanelEntry:
    """One comment as the panel lists it."""

    id: str
    path: str
    line: int | None
    """The first commented line now; None for a file-level comment."""
    end_line: int | None
    severity: Severity
    status: CommentStatus
    anchor_state: AnchorState
    body: str
    replies: int
    """How many messages its thread holds."""
    note: bool = False
    """An agent's note, listed with "note" where a comment has its severity."""
    thread: tuple[tuple[str, str], ...] = ()
    """Its thread, each message's author (reviewer or agent) and what it says."""

    @classmethod
    def of(cls, comment: Comment) -> PanelEntry:
        """The entry for a comment of the review file."""
        return cls(
            id=comment.id,
            path=comment.path,
            line=comment.line,
            end_line=comment.end_line,
            severity=comment.severity,
            status=comment.status,
            anchor_state=comment.anchor_state,
            body=comment.body,
            replies=len(comment.thread),
            note=comment.is_note,
            thread=tuple((reply.author, reply.body) for reply in comment.thread),
        )

    @property
    def place(self) -> str:
        """Where the comment is, e.g. "src/app.py:12-14", "src/app.py:12" or "src/app.py (file)"."""
        if not self.path:
            return "(the whole change)"
        if self.line is None:
            return f"{self.path} (file)"
        if self.end_line is None or self.end_line == self.line:
            return f"{self.path}:{self.line}"
        return f"{self.path}:{self.line}-{self.end_line}"


def entry_prompt(entry: PanelEntry, whole: bool = False) -> Text:
    """The two lines that list `entry`: what and where, then the start of what it says; `whole`:
    all it says and its thread, to be read wrapped (a small screen has no diff beside it)."""
    text = Text(end="")
    text.append(f"{entry.status:<9}", _STATUS_STYLE[entry.status])
    if entry.note:
        text.append(f" {'note':<8}", "italic")
    else:
        text.append(f" {entry.severity:<8}", _SEVERITY_STYLE[entry.severity])
    text.append(f" {visible(entry.place)}", "bold")
    if entry.anchor_state != "exact":
        text.append(f"  {entry.anchor_state}", _ANCHOR_STYLE[entry.anchor_state])
    if entry.replies:
        text.append(f"  {entry.replies} repl{'y' if entry.replies == 1 else 'ies'}", "italic")
    if whole:
        for line in entry.body.strip().splitlines():
            text.append(f"\n  {visible(line)}")
        for author, body in entry.thread:
            text.append(f"\n  {author}: ", "bold italic")
            text.append(" ".join(visible(line) for line in body.strip().splitlines()))
        return text
    lines = entry.body.strip().split("\n", 1)
    first = visible(lines[0].rstrip("\r")[:BODY_PREVIEW])
    text.append(f"\n  {first}")
    return text


class CommentsPanel(Picker[str | None]):
    """Choose a comment; the panel closes with its id."""

    BINDINGS = [
        # a priority over the list's own enter, so that the footer shows it
        Binding("enter", "go_to", "Go to", priority=True, id="go_to_comment"),
        Binding("escape", "close", "Close", id="close_comments"),
        Binding("j", "move(1)", "Down", show=False, id="comments_down"),
        Binding("k", "move(-1)", "Up", show=False, id="comments_up"),
    ]

    DEFAULT_CSS = """
    CommentsPanel {
        & > Vertical { max-width: 120; height: 80%; min-height: 12; }
        #title { margin: 0 0 1 0; }
        OptionList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
        #empty { height: auto; color: $text-muted; margin: 0 0 1 0; }
        &.-empty > Vertical { height: auto; min-height: 0; }
        /* a small screen: the whole screen, each comment and its thread wrapped by words */
        &.-whole > Vertical { width: 100%; height: 100%; min-height: 0; }
        &.-whole OptionList { text-wrap: wrap; }
    }
    """

    def __init__(self, entries: Sequence[PanelEntry], *, whole: bool = False) -> None:
        """Open the panel.

        Args:
            entries: The comments, in the order (and grouping) they are listed.
            whole: Show each comment whole with its thread, wrapped, on the whole screen (a
                small screen's panel, where the replies are read).
        """
        super().__init__()
        self.entries = list(entries)
        self.whole = whole

    def compose(self) -> ComposeResult:
        count = len(self.entries)
        with Vertical():
            yield Static(Text(f"Comments ({count})"), id="title")
            if self.entries:
                options: list[Option | None] = []
                for index, entry in enumerate(self.entries):
                    if index:
                        options.append(None)
                    options.append(Option(entry_prompt(entry, self.whole), id=entry.id))
                yield OptionList(*options, markup=False)
            else:
                yield Static(Text("No comments yet: press c on a line to write one."), id="empty")
            yield ReviewFooter(dialog=True)

    def on_mount(self) -> None:
        self.set_class(not self.entries, "-empty")
        self.set_class(self.whole, "-whole")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # nothing to go to: the footer leaves the key out
        return action != "go_to" or bool(self.entries)

    def chosen(self, option_id: str) -> str | None:
        return option_id
