"""The comment editor: the reviewer writes a comment, chooses its severity and saves it.

A draft is never lost: escape closes the editor, and whatever the reviewer wrote comes back to the
caller marked `kept`, to be saved as a draft like any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, RadioSet, Static, TextArea

from review.repo.text import visible
from review.state.model import SEVERITIES, Severity
from review.tui.dialogs.frame import Choices, Dialog, following
from review.tui.saving import TYPING_SECONDS
from review.tui.widgets.review_footer import ReviewFooter

_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")

# Short enough for the box on a 60-column terminal.
COMMENT_PLACEHOLDER = "What should change, and why (Markdown)"
REPLY_PLACEHOLDER = "Your answer in the thread (Markdown)"


def editable(text: str) -> str:
    """`text` with each line made inert (see `review.repo.text.visible`) and its line breaks kept.

    A text area draws what it holds as it is, escape sequences included, so text from the review
    file, from the code or from a paste is cleaned before it goes in. Windows line ends become `\\n`.
    """
    return "\n".join(visible(line.removesuffix("\r"), keep_tabs=True) for line in text.split("\n"))


class DraftText(TextArea):
    """A text area for what the reviewer writes: soft-wrapped, and inert whatever is put in it."""

    DEFAULT_CSS = """
    DraftText {
        height: 1fr;
        min-height: 3;
    }
    """

    def __init__(self, text: str = "", *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(editable(text), soft_wrap=True, tab_behavior="focus", placeholder=placeholder, id=id)

    def on_paste(self, event: events.Paste) -> None:
        # Runs before TextArea's own paste handler, which inserts `event.text`.
        event.text = editable(event.text)

    def move_to_end(self) -> None:
        """Put the cursor after the last character."""
        self.move_cursor(self.document.end)


@dataclass(frozen=True)
class EditorResult:
    """What the reviewer wrote."""

    body: str
    """The comment's text, Markdown, without blank lines around it."""
    severity: Severity
    kept: bool = False
    """True when the reviewer closed the editor with escape: save it as a draft and say so."""


def suggestion_block(code: Sequence[str]) -> str:
    """A Markdown `suggestion` block holding `code`, for the reviewer to edit into the replacement."""
    return "```suggestion\n" + "\n".join(code) + "\n```\n"


class CommentEditor(Dialog[EditorResult | None]):
    """Write or edit one comment."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="save_comment"),
        Binding("escape", "close", "Close (keeps a draft)", id="close_editor"),
        Binding("ctrl+t", "cycle_severity", "Severity", id="cycle_severity"),
        Binding("ctrl+g", "insert_suggestion", "Suggest code", id="insert_suggestion"),
    ]

    AUTO_FOCUS = "DraftText"

    DEFAULT_CSS = """
    CommentEditor {
        #where { color: $text-muted; }
        #severity-row { height: auto; margin: 1 0 0 0; }
        #severity-row > Label { padding: 0 1 0 0; }
        #severity { layout: horizontal; width: auto; background: transparent; }
        #severity > RadioButton { width: auto; margin: 0 2 0 0; }
        DraftText { margin: 1 0 0 0; }
        /* a small screen: the severities two by two, each whole (their names say what they are) */
        &.-compact #severity-row > Label { display: none; }
        &.-compact #severity { layout: grid; grid-size: 2; width: 1fr; height: auto; }
    }
    """

    def __init__(
        self,
        *,
        title: str,
        body: str = "",
        severity: Severity = "should",
        code: Sequence[str] = (),
        where: str = "",
        reply: bool = False,
    ) -> None:
        """Open the editor.

        Args:
            title: What is commented on, e.g. "Comment on src/app.py:12-14".
            body: The text to edit; empty for a new comment.
            severity: The severity chosen when the editor opens.
            code: The commented lines, which `ctrl+g` puts in a suggestion block.
            where: One more line about the place, shown under the title; empty for none.
            reply: Write a reply in a thread: there is no severity to choose.
        """
        super().__init__()
        self.title_text = title
        self.where = where
        self.initial_body = editable(body)
        self.initial_severity = severity
        self.severity: Severity = severity
        self.code = [editable(line) for line in code]
        self.reply = reply
        self.typing: Callable[[str], None] | None = None
        """Told the text every `TYPING_SECONDS` while it changes, by the screen that opens the
        editor: it keeps the text in a file, lest the viewer be killed before it is saved."""
        self._told = _trimmed(self.initial_body)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(visible(self.title_text), no_wrap=True, overflow="ellipsis"), id="title")
            if self.where:
                yield Static(Text(visible(self.where), no_wrap=True, overflow="ellipsis"), id="where")
            if not self.reply:
                with Horizontal(id="severity-row"):
                    yield Label("Severity")
                    yield Choices(((severity, severity) for severity in SEVERITIES), self.severity, id="severity")
            yield DraftText(self.initial_body, placeholder=REPLY_PLACEHOLDER if self.reply else COMMENT_PLACEHOLDER)
            yield ReviewFooter(dialog=True)

    @property
    def draft(self) -> DraftText:
        """The text area the reviewer writes in."""
        return self.query_one(DraftText)

    def on_mount(self) -> None:
        self.draft.move_to_end()
        if self.typing is not None:
            self.set_interval(TYPING_SECONDS, self._tell_typing)

    def action_save(self) -> None:
        """Close with the comment, unless there is nothing in it."""
        body = self._body()
        if not body:
            self.notify("Write something first, or press escape", severity="warning", timeout=3)
            return
        self.dismiss(EditorResult(body, self.severity))

    def action_close(self) -> None:
        """Close; anything the reviewer changed comes back as a kept draft."""
        body = self._body()
        unchanged = body == _trimmed(self.initial_body) and self.severity == self.initial_severity
        if not body or unchanged:
            self.dismiss(None)
        else:
            self.dismiss(EditorResult(body, self.severity, kept=True))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.reply and action == "cycle_severity")

    def action_cycle_severity(self) -> None:
        """Choose the next severity (after the last, the first)."""
        self.severity = following(SEVERITIES, self.severity)
        self.query_one(Choices).choose(self.severity)

    def action_insert_suggestion(self) -> None:
        """Insert a suggestion block of the commented code at the cursor, on a line of its own.

        The cursor ends on the block's last code line, where the reviewer edits the replacement.
        """
        draft = self.draft
        column = draft.cursor_location[1]
        block = suggestion_block(self.code)
        if column > 0:
            block = "\n" + block
        result = draft.replace(block, *draft.selection, maintain_selection_offset=False)
        last_code_row = result.end_location[0] - 2
        draft.move_cursor((last_code_row, len(draft.document[last_code_row])))
        draft.focus()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        name = event.pressed.name
        if name in SEVERITIES:
            self.severity = SEVERITIES[SEVERITIES.index(name)]

    def _body(self) -> str:
        return _trimmed(self.draft.text)

    def _tell_typing(self) -> None:
        body = self._body()
        if body != self._told and self.typing is not None:
            self._told = body
            self.typing(body)


def _trimmed(text: str) -> str:
    """`text` without blank lines before it or whitespace after it; indentation is Markdown."""
    return _LEADING_BLANK_LINES.sub("", text).rstrip()
