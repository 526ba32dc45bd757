"""The detail of the worktree under the overview's cursor as a pop-up, for a small screen where
it has no room below the table; the overview keeps it current while it is open."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical

from review.tui.dialogs.frame import Dialog
from review.tui.widgets.radar_detail import RadarDetail
from review.tui.widgets.review_footer import ReviewFooter


class WorktreeDetail(Dialog[bool]):
    """Where one worktree stands and what it collides with; True when the reviewer asks for its
    review."""

    BINDINGS = [
        Binding("enter", "review", "Review", priority=True, id="detail_review"),
        Binding("escape,i", "close", "Close", id="close_detail"),
    ]

    AUTO_FOCUS = "RadarDetail"

    DEFAULT_CSS = """
    WorktreeDetail {
        & > Vertical { width: 100%; height: 100%; min-height: 0; padding: 0; }
        RadarDetail { height: 1fr; }
        /* read on a small screen: wrapped by words rather than cut */
        RadarDetail > Static { text-wrap: wrap; }
    }
    """

    def __init__(
        self, *, now: Callable[[], float] = time.time, shown: Callable[[RadarDetail], None] | None = None
    ) -> None:
        """`shown` is given the detail as the pop-up is made, to fill it before its first frame
        (filled once shown, it came in two)."""
        super().__init__()
        self.now = now
        self._shown = shown

    def on_mount(self) -> None:
        if self._shown is not None:
            self._shown(self.detail)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield RadarDetail(now=self.now)
            yield ReviewFooter(dialog=True)

    @property
    def detail(self) -> RadarDetail:
        return self.query_one(RadarDetail)

    def action_review(self) -> None:
        self.dismiss(True)

    def action_close(self) -> None:
        self.dismiss(False)
