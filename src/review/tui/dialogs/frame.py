"""The frame every dialog of the review screen shares: a box in the middle with its keys below."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

Result = TypeVar("Result")


class Dialog(ModalScreen[Result]):
    """A dialog box in the middle of the screen; subclasses compose a `Vertical` with a `#title`."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        & > Vertical {
            width: 96%; max-width: 100; height: 75%; min-height: 18; max-height: 100%;
            background: $panel; border: round $primary; padding: 0 1;
        }
        #title { text-style: bold; }
        Footer { background: $panel; }
    }
    """
