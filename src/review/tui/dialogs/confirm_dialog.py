"""A yes-or-no question before something that cannot be undone, such as deleting a comment."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from review.repo.text import visible
from review.tui.dialogs.frame import Dialog
from review.tui.widgets.review_footer import ReviewFooter


class ConfirmDialog(Dialog[bool]):
    """Ask a question; True when the reviewer answers yes."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm_yes"),
        Binding("n", "answer(False)", "No", id="confirm_no"),
        Binding("escape", "answer(False)", "No", show=False, id="cancel_confirm"),
    ]

    AUTO_FOCUS = "#no"

    DEFAULT_CSS = """
    ConfirmDialog {
        /* a question, smaller than the frame and in the colour of a warning */
        & > Vertical { width: 60; max-width: 96%; height: auto; min-height: 0; border: round $warning; padding: 1 2 0 2; }
        #answers { height: auto; margin: 1 0; }
        #answers > Button { min-width: 10; margin: 0 2 0 0; }
    }
    """

    def __init__(self, question: str, *, yes: str = "Delete", no: str = "Keep") -> None:
        """Open the dialog.

        Args:
            question: What is asked, e.g. "Delete the comment on src/app.py:12?".
            yes: The label of the answer that goes ahead.
            no: The label of the answer that leaves things as they are (also escape's answer).
        """
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            question = "\n".join(visible(line) for line in self.question.split("\n"))
            yield Static(Text(question), id="question")
            with Horizontal(id="answers"):
                yield Button(Text(visible(self.yes)), variant="error", compact=True, id="yes")
                yield Button(Text(visible(self.no)), compact=True, id="no")
            yield ReviewFooter(dialog=True)

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
