"""The frame every dialog of the review screen shares: a box in the middle with its keys below."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from textual.screen import ModalScreen
from textual.widgets import RadioButton, RadioSet

from review.tui.compact import CLASS, WIDTH

Result = TypeVar("Result")
Value = TypeVar("Value", bound=str)


class Dialog(ModalScreen[Result]):
    """A dialog box in the middle of the screen; subclasses compose a `Vertical` with a `#title`.

    Below `compact.WIDTH` columns it has the class `-compact`, by which a dialog lays its parts
    out for a small screen."""

    HORIZONTAL_BREAKPOINTS = [(0, CLASS), (WIDTH, "-wide")]

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


def following(values: Sequence[Value], value: Value) -> Value:
    """The value after `value` (after the last, the first): what `ctrl+t` chooses next."""
    return values[(values.index(value) + 1) % len(values)]


def press(choices: RadioSet, name: str) -> None:
    """Press the radio button named `name`, as a click would."""
    for button in choices.query(RadioButton):
        if button.name == name:
            button.value = True
