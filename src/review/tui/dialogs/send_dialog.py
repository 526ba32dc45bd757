"""Sending the review: the reviewer writes a summary, chooses a verdict and sends the drafts."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, RadioSet, Static

from review.state.model import VERDICTS, Verdict
from review.state.rounds import sends_something
from review.tui.dialogs.comment_editor import DraftText
from review.tui.dialogs.frame import Choices, Dialog, following
from review.tui.widgets.review_footer import ReviewFooter

VERDICT_LABELS: dict[Verdict, str] = {"request_changes": "Request changes", "comment": "Comment", "approve": "Approve"}
"""Each verdict's button; the chooser shows them, and `ctrl+t` steps through them, in the order of
`VERDICTS`."""


@dataclass(frozen=True)
class SendResult:
    """What the reviewer chose to send with the drafts."""

    summary: str
    """The summary, without whitespace around it; may be empty."""
    verdict: Verdict


def drafts_line(drafts: int) -> str:
    """What sending will do with the drafts, e.g. "3 draft comments will be sent"."""
    if drafts == 0:
        return "No draft comments: send a summary or an approval"
    if drafts == 1:
        return "1 draft comment will be sent"
    return f"{drafts} draft comments will be sent"


class SendDialog(Dialog[SendResult | None]):
    """Send the review: the drafts, a summary and a verdict, as one round."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="send_review"),
        Binding("escape", "cancel", "Cancel", id="cancel_send"),
        Binding("ctrl+t", "cycle_verdict", "Verdict", id="cycle_verdict"),
    ]

    AUTO_FOCUS = "DraftText"

    DEFAULT_CSS = """
    SendDialog {
        #drafts { color: $text-muted; }
        DraftText { margin: 1 0 0 0; }
        #verdict-row { height: auto; margin: 1 0 0 0; }
        #verdict-row > Label { padding: 0 1 0 0; }
        #verdict { layout: horizontal; width: auto; background: transparent; }
        #verdict > RadioButton { width: auto; margin: 0 2 0 0; }
        #actions { height: auto; margin: 1 0 0 0; align-horizontal: right; }
        #actions > Button { min-width: 10; margin: 0 0 0 2; }
        /* a small screen: the verdicts one under the other, each whole */
        &.-compact #verdict { layout: vertical; }
    }
    """

    def __init__(self, *, drafts: int, summary: str = "", verdict: Verdict | None = None) -> None:
        """Open the dialog.

        Args:
            drafts: How many draft comments sending will send.
            summary: The summary to start from (e.g. one written before and not sent).
            verdict: The verdict chosen when the dialog opens; None for "request_changes" when
                there are drafts and "comment" when there are none.
        """
        super().__init__()
        self.drafts = drafts
        self.initial_summary = summary
        self.verdict: Verdict = verdict if verdict is not None else "request_changes" if drafts else "comment"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Send the review"), id="title")
            yield Static(Text(drafts_line(self.drafts)), id="drafts")
            yield DraftText(self.initial_summary, placeholder="Summary for the agent (optional)", id="summary")
            with Horizontal(id="verdict-row"):
                yield Label("Verdict")
                yield Choices(VERDICT_LABELS.items(), self.verdict, id="verdict")
            with Horizontal(id="actions"):
                yield Button("Send", variant="primary", compact=True, id="send")
                yield Button("Cancel", compact=True, id="cancel")
            yield ReviewFooter(dialog=True)

    def on_mount(self) -> None:
        self.query_one(DraftText).move_to_end()

    def action_send(self) -> None:
        """Close with the summary and verdict, unless that would send nothing at all."""
        summary = self.query_one(DraftText).text.strip()
        if not sends_something(self.drafts, summary, self.verdict):
            self.notify("Nothing to send: write a summary, or approve", severity="warning", timeout=3)
            return
        self.dismiss(SendResult(summary, self.verdict))

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss(None)

    def action_cycle_verdict(self) -> None:
        """Choose the next verdict (after the last, the first)."""
        self.verdict = following(VERDICTS, self.verdict)
        self.query_one(Choices).choose(self.verdict)

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        for verdict in VERDICTS:
            if event.pressed.name == verdict:
                self.verdict = verdict

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "send":
            self.action_send()
        else:
            self.action_cancel()
