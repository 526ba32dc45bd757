"""The frame every dialog of the review screen shares: a box in the middle with its keys below."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from textual.screen import ModalScreen
from textual.widgets import OptionList, RadioButton, RadioSet

from review.tui.compact import CLASS, WIDTH
from review.tui.first_frame import FirstFrameOnly

Result = TypeVar("Result")
Value = TypeVar("Value", bound=str)


class Dialog(FirstFrameOnly[Result], ModalScreen[Result]):
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
        ReviewFooter { background: $panel; }
    }
    """

    def on_mount(self) -> None:
        # The breakpoints' class before the first frame: Textual sets it once the terminal tells
        # the dialog its size, after that frame, which drew it again whole (the worktree's detail
        # in the overview, `i`). Textual's rule: the widest breakpoint the width reaches. (Each
        # class's `on_mount` runs, a subclass's too.)
        width = self.app.size.width
        _, reached = max(breakpoint for breakpoint in self.HORIZONTAL_BREAKPOINTS if width >= breakpoint[0])
        self.update_classes({name: name == reached for _, name in self.HORIZONTAL_BREAKPOINTS})


class Picker(Dialog[Result]):
    """A dialog that lists options (an `OptionList`, absent when there are none) and closes with
    the one chosen, or with None."""

    def chosen(self, option_id: str) -> Result:
        """What the dialog closes with when the option `option_id` is chosen."""
        raise NotImplementedError

    def action_go_to(self) -> None:
        """Close with the highlighted option."""
        for options in self.query(OptionList):
            option = options.highlighted_option
            if option is not None and option.id is not None:
                self.dismiss(self.chosen(option.id))

    def action_close(self) -> None:
        """Close without choosing."""
        self.dismiss(None)

    def action_move(self, rows: int) -> None:
        """Highlight the next (1) or previous (-1) option."""
        for options in self.query(OptionList):
            if rows > 0:
                options.action_cursor_down()
            else:
                options.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(self.chosen(event.option.id))


def following(values: Sequence[Value], value: Value) -> Value:
    """The value after `value` (after the last, the first): what `ctrl+t` chooses next."""
    return values[(values.index(value) + 1) % len(values)]


class Choices(RadioSet):
    """One of a few named values, chosen with the keys or a click: Textual's radio set, made of
    `labels` (name, label) with `chosen` pressed and highlighted. Textual highlights its first
    button until one is pressed; pressing `chosen` once mounted drew it a frame after the dialog."""

    def __init__(self, labels: Iterable[tuple[str, str]], chosen: str, *, id: str) -> None:
        buttons = (RadioButton(label, value=name == chosen, name=name) for name, label in labels)
        super().__init__(*buttons, id=id, compact=True)

    def action_next_button(self) -> None:
        # (Textual's mount moves the highlight from none to the next button)
        pressed = (i for i, button in enumerate(self._buttons()) if button.value)
        if self._selected is None and (first := next(pressed, None)) is not None:
            self._selected = first
        else:
            super().action_next_button()

    def choose(self, name: str) -> None:
        """Press the button named `name`, as a click would."""
        for button in self._buttons():
            if button.name == name:
                button.value = True

    def _buttons(self) -> list[RadioButton]:
        return list(self.query_children(RadioButton))
