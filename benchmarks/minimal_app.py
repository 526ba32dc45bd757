"""The baseline for first-paint time: the smallest Textual app that shows a line of text."""

from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("minimal-app-ready")


if __name__ == "__main__":
    Minimal().run()
