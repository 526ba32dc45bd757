"""The dialogs of the Textual application, on one shared frame."""

from __future__ import annotations

import importlib

from review.background import in_a_thread

REVIEWS = ("comment_editor", "send_dialog", "confirm_dialog", "comments_panel", "file_picker")
"""The review screen's dialogs (modules of this package)."""


def import_ahead() -> None:
    """Import the review screen's dialogs in a thread of their own, while the reviewer reads. They
    are imported when first opened, off the path to the first screen: the first comment took
    some 30 ms more for it (Textual's text area), the first of the others some 15."""

    def run() -> None:
        for name in REVIEWS:
            importlib.import_module(f"{__name__}.{name}")

    in_a_thread(run, "review-dialogs")
