"""The line the reviewer types a search into, under the diff."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input


class SearchField(Input):
    """An Input that closes on enter or escape as it reads them, and hands on the keys after.

    Keys that arrive together ("/foo", enter, "c" typed fast, or pasted by tmux) all go to the
    widget that has the focus when the app reads them: the field. It takes enter in order with
    the letters before it, and passes what follows, meant for the diff, on as `Missed`.
    """

    DEFAULT_CSS = """
    SearchField, SearchField:focus { display: none; border: none; height: 1; padding: 0 1; }
    SearchField.-open { display: block; }
    """

    class Closed(Message):
        """The search was closed: with its text on enter, with None on escape."""

        def __init__(self, text: str | None) -> None:
            super().__init__()
            self.text = text

    class Missed(Message):
        """A key typed after the search was closed."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        """Show the field, empty."""
        self.value = ""
        self.add_class("-open")

    def on_key(self, event: events.Key) -> None:
        if self.is_open and event.key not in ("enter", "escape"):
            return  # typed into the search
        event.stop()
        event.prevent_default()
        if self.is_open:
            self.remove_class("-open")
            self.post_message(self.Closed(self.value if event.key == "enter" else None))
        else:
            self.post_message(self.Missed(event.key))
