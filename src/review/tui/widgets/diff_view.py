"""The diff view: every row of a worktree's diff in one line-API ScrollView.

Only the rows on screen are drawn, each from the flat `Layout`; drawn rows are cached, and the
cursor is laid over a cached row, so moving it costs nothing. A row is drawn whole, syntax colours
included, in the frame that first shows it: the colours of what the next keys will show are made
ahead in a worker, and anything else is coloured as it is drawn.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Collection, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.strip import Strip
from textual.timer import Timer

from review.repo.colouring import CHUNK, sides
from review.repo.diff import Diff, Line, Status
from review.repo.highlight import highlight
from review.repo.text import visible
from review.repo.words import WordChanges
from review.state.model import Comment
from review.tui import collecting
from review.tui.comment_box import CONSOLE, INDENT, BoxStyles, box_lines
from review.tui.compact import WIDTH as COMPACT_BELOW
from review.tui.diff_rows import HunkColours, Palette, RowContext, render_row
from review.tui.first_frame import LaidOnce, show_scrollbars, size_to_come
from review.tui.layout import FoldedMatch, Layout, Place, Row, RowKind, Selection, search_pattern
from review.tui.scroll_bar import ScrollViewWithItsBar
from review.tui.syntax_styles import SyntaxStyles

# How long the view is still before it prepares the places the next keys lead to.
PREFETCH_DELAY = 0.05

COLLECT_AFTER = 1.0
"""Seconds the view is still, all drawn ahead, before Python collects all its objects if due
(`collecting`): that takes 100-200 ms on a huge diff, which a key pressed meanwhile would wait
for. Right after the drawing ahead, it landed on one press in ten of a reviewer going through
the comments with `n` every half second."""

ColourKey = tuple[int, int, int, int]
"""Generation of the diff, file, hunk and chunk of a hunk's colours."""


class DiffView(ScrollViewWithItsBar, can_focus=True):
    """The rows of a diff, with a cursor the reviewer moves line by line."""

    BINDINGS = [
        Binding("j,down", "cursor_down", "Down", show=False, id="cursor_down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="cursor_up"),
        Binding("space,pagedown", "page_down", "Page down", show=False, id="page_down"),
        Binding("b,pageup", "page_up", "Page up", show=False, id="page_up"),
        Binding("g,home", "top", "Top", show=False, id="top"),
        Binding("G,end", "bottom", "Bottom", show=False, id="bottom"),
        Binding("right_square_bracket", "next_hunk", "Hunk", key_display="]", id="next_hunk"),
        Binding("left_square_bracket", "previous_hunk", "Previous hunk", show=False, id="previous_hunk"),
        Binding("right_curly_bracket", "next_file", "File", key_display="}", id="next_file"),
        Binding("left_curly_bracket", "previous_file", "Previous file", show=False, id="previous_file"),
        Binding("h,left", "scroll_text(-8)", "Scroll left", show=False, id="scroll_left"),
        Binding("l,right", "scroll_text(8)", "Scroll right", show=False, id="scroll_right"),
        Binding("s", "toggle_split", "Split", id="toggle_split"),
        Binding("w", "toggle_wrap", "Wrap", show=False, id="toggle_wrap"),
        Binding("enter", "toggle_fold", "Fold/expand", show=False, id="toggle_fold"),
        Binding("v", "toggle_selection", "Select lines", show=False, id="select_lines"),
    ]

    COMPONENT_CLASSES = {
        "diff-view--context",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--gutter",
        "diff-view--gutter-added",
        "diff-view--gutter-removed",
        "diff-view--word-added",
        "diff-view--word-removed",
        "diff-view--hunk",
        "diff-view--file",
        "diff-view--note",
        "diff-view--empty",
        "diff-view--match",
        "diff-view--cursor",
        "diff-view--status-added",
        "diff-view--status-removed",
        "diff-view--status-modified",
        "diff-view--status-renamed",
        "diff-view--selection",
        "diff-view--comment",
        "diff-view--comment-border",
        "diff-view--comment-muted",
        "diff-view--comment-code",
        "diff-view--must",
        "diff-view--should",
        "diff-view--nit",
        "diff-view--question",
        "diff-view--addressed",
        "diff-view--attention",
        "diff-view--agent-note",
        "diff-view--agent-note-border",
        "diff-view--agent-note-label",
    }

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        overflow-y: hidden;  /* its scrollbar is its own (`ScrollBar`) */
        scrollbar-size-horizontal: 1;
        & > .diff-view--context { color: $foreground; }
        & > .diff-view--added { background: $success 15%; }
        & > .diff-view--removed { background: $error 15%; }
        & > .diff-view--gutter { color: $foreground-muted; }
        & > .diff-view--gutter-added { color: $text-success; background: $success 25%; }
        & > .diff-view--gutter-removed { color: $text-error; background: $error 25%; }
        & > .diff-view--word-added { background: $success 45%; text-style: bold; }
        & > .diff-view--word-removed { background: $error 45%; text-style: bold; }
        & > .diff-view--hunk { color: $text-accent; background: $accent 10%; }
        & > .diff-view--file { background: $panel; color: $foreground; }
        & > .diff-view--note { color: $foreground-muted; text-style: italic; }
        & > .diff-view--empty { background: $foreground 4%; }
        & > .diff-view--match { background: $warning 60%; color: $foreground; }
        & > .diff-view--cursor { background: $primary 35%; }
        & > .diff-view--status-added { color: $text-success; }
        & > .diff-view--status-removed { color: $text-error; }
        & > .diff-view--status-modified { color: $text-warning; }
        & > .diff-view--status-renamed { color: $text-accent; }
        & > .diff-view--selection { background: $accent 30%; }
        & > .diff-view--comment { background: $panel; color: $foreground; }
        & > .diff-view--comment-border { color: $primary; }
        & > .diff-view--comment-muted { color: $foreground-muted; }
        & > .diff-view--comment-code { color: $text-accent; }
        & > .diff-view--must { color: $text-error; text-style: bold; }
        & > .diff-view--should { color: $text-warning; text-style: bold; }
        & > .diff-view--nit { color: $foreground-muted; }
        & > .diff-view--question { color: $text-accent; text-style: bold; }
        & > .diff-view--addressed { color: $text-success; }
        & > .diff-view--attention { color: $text-warning; }
        & > .diff-view--agent-note { background: $panel; color: $foreground; }
        & > .diff-view--agent-note-border { color: $accent; }
        & > .diff-view--agent-note-label { color: $text-accent; text-style: bold italic; }
    }
    DiffView:blur > .diff-view--cursor { background: $primary 15%; }
    """

    split: reactive[bool] = reactive(False, init=False)
    """Old and new side by side, rather than one above the other."""
    wrap: reactive[bool] = reactive(False, init=False)
    """Long lines continue on the next rows rather than scrolling sideways."""
    cursor_file: var[int] = var(-1, init=False)
    """The index of the file the cursor is in. Watchers run at once, so what follows the cursor
    (the file list) is drawn in the same frame as the diff."""
    note: var[str] = var("", init=False)
    """The id of the agent's note the cursor is on, "" elsewhere: the screen offers the keys for
    notes while it is on one."""

    def __init__(self, *, syntax_theme: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: Diff | None = None
        self.diff_layout: Layout | None = None
        """The diff laid out as rows (not `layout`: Textual's widgets arrange children by that)."""
        self.cursor = 0
        self._folded: set[str] = set()
        """The files shown as their header only."""
        self._expanded: set[str] = set()
        """The large files (and submodules) shown in full all the same."""
        self._viewed: set[str] = set()
        """The files the reviewer marked viewed."""
        self.pattern: re.Pattern[str] | None = None
        """What the search looks for; None when no search is on."""
        self.comments: dict[str, list[Comment]] = {}
        """The comments shown, by path."""
        self._selection: int | None = None
        """The row where a selection of lines started (`v`); None when nothing is selected."""
        self._boxes: LRUCache[tuple[str, int], list[Text]] = LRUCache(1024)
        self._box_styles: BoxStyles | None = None
        self.empty_message = "Loading the diff…"
        self.unified_only = False
        """Whether `s` is refused: a small screen has no room for two sides."""
        self._syntax_theme = syntax_theme
        self._generation = 0
        # Sized for a dozen screens and where the next keys lead (a prefetch colours about a dozen
        # chunks): paging through a whole diff then holds a few MB, not the colours of every
        # line seen (800 bytes a line) or the hunks the word changes point to.
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self._comment_strips: LRUCache[tuple[int, int, int, bool], tuple[list[Text], Strip]] = LRUCache(128)
        """The lines of the comments' boxes, by the box's lines (which keep their id their own)."""
        self._colours: LRUCache[ColourKey, HunkColours] = LRUCache(64)
        self._words: LRUCache[tuple[int, int, int], WordChanges] = LRUCache(64)
        self._pending: set[ColourKey] = set()
        self._queue: list[tuple[ColourKey, str, list[Line], int]] = []
        self._queue_lock = threading.Lock()
        self._colouring = False
        self._prefetch_timer: Timer | None = None
        self._collect_timer: Timer | None = None
        self._ahead: list[int] = []
        """The first rows of the screens to draw ahead (see `_prefetch`)."""
        self._laid_out = LaidOnce()
        self._palette: Palette | None = None
        self._matches: tuple[Layout, re.Pattern[str], list[tuple[int, int]]] | None = None
        """The lines the search matches (`Layout.matches`), for the layout and search they were
        found in."""

    # -- content -------------------------------------------------------------------------------

    def show(self, diff: Diff, place: Place | None = None, comments: Sequence[Comment] | None = None) -> None:
        """Show `diff` (and `comments`), with the cursor at `place` (or where it was) and at the
        same height."""
        if place is None and self.diff_layout is not None and self.diff_layout.total:
            place = self.diff_layout.place(self.cursor)
        if comments is not None:
            self.comments = _by_path(comments)
        self.diff = diff
        self._generation += 1
        self._pending.clear()
        with self._queue_lock:
            self._queue.clear()
        self._relayout(place)

    @property
    def viewed(self) -> frozenset[str]:
        """The paths of the files the reviewer marked viewed."""
        return frozenset(self._viewed)

    def set_viewed(self, paths: Collection[str]) -> None:
        """Take these files as the viewed ones (what the review file says): a file newly viewed is
        folded, one no longer viewed unfolded. Drawn at the next `show`."""
        viewed = set(paths)
        self._folded -= self._viewed - viewed
        self._folded |= viewed - self._viewed
        self._viewed = viewed

    def mark_viewed(self, path: str, viewed: bool) -> None:
        """Mark the file viewed and fold it, or unmark it and unfold it."""
        if viewed:
            self._viewed.add(path)
            self._folded.add(path)
        else:
            self._viewed.discard(path)
            self._folded.discard(path)
        self.relayout()

    def unfold(self, path: str) -> None:
        """Show the file's rows if it was folded."""
        if path in self._folded:
            self._folded.discard(path)
            self.relayout()

    def relayout(self) -> None:
        """Lay the rows out again after a change of view, keeping the cursor's place."""
        place = self.diff_layout.place(self.cursor) if self.diff_layout is not None and self.diff_layout.total else None
        self._relayout(place)

    def _relayout(self, place: Place | None, quiet: bool = False) -> None:
        if self.diff is None:
            return
        height_above = self.cursor - self.scroll_offset.y
        self.diff_layout = Layout(
            self.diff,
            split=self.split,
            wrap=self.wrap,
            width=self._text_width(),
            folded=frozenset(self._folded),
            expanded=frozenset(self._expanded),
            comments=self.comments,
            measure=lambda comment: len(self._box(comment)),
        )
        self._strips.clear()
        found = self.diff_layout.find(place) if place is not None else None
        self.cursor = found if found is not None else min(self.cursor, max(0, self.diff_layout.total - 1))
        self._build_on_screen()
        self._sync_size(quiet)
        self.scroll_to(y=max(0, self.cursor - height_above), animate=False, immediate=True)
        self.cursor_file = -1
        self._cursor_changed()
        self.refresh()

    def _sync_size(self, quiet: bool = False) -> None:
        """Make the scrollable size the diff's; `quiet` while Textual lays the screen out, when
        setting it must not ask for another layout. Before the diff is first laid out, the size
        and scrollbars it will have (see `review.tui.first_frame`)."""
        layout = self.diff_layout
        if layout is None:
            return
        container = self.container_size or size_to_come(self)
        # the text is as wide as the room the scrollbar leaves, if the rows need one
        width = container.width - self.bar.width * (layout.total > container.height)
        size = Size(container.width + layout.overflow(width), layout.total)
        if not self.container_size:
            self.set_reactive(DiffView.virtual_size, size)
            show_scrollbars(self, container)
        elif quiet:
            self.set_reactive(DiffView.virtual_size, size)
        else:
            self.virtual_size = size

    def _text_width(self) -> int:
        """The width the diff's rows are laid out in, with room for the scrollbar (a diff is
        mostly longer than a screen); before the diff is laid out, in the room it will have."""
        container = self.container_size or size_to_come(self)
        return max(1, container.width - self.bar.width)

    def show_comments(self, comments: Sequence[Comment]) -> None:
        """Draw these comments under their lines (keeping the cursor's place)."""
        by_path = _by_path(comments)
        if by_path == self.comments:
            return
        self.comments = by_path
        self.relayout()

    def comment(self, id: str) -> Comment | None:
        for comments in self.comments.values():
            for comment in comments:
                if comment.id == id:
                    return comment
        return None

    def _box(self, comment: Comment) -> list[Text]:
        width = self.bar.room() or 80
        # Everything the box shows is in the comment: a time is no key, since a reply or an
        # edit in the same second as the comment keeps it.
        key = (repr(comment), width)
        lines = self._boxes.get(key)
        if lines is None:
            lines = box_lines(comment, width, self._get_box_styles())
            self._boxes[key] = lines
        return lines

    def _get_box_styles(self) -> BoxStyles:
        if self._box_styles is None:

            def style(name: str) -> Style:
                # the box has its own background
                return _foreground(self.get_component_rich_style(name))

            self._box_styles = BoxStyles(
                border=style("diff-view--comment-border"),
                text=style("diff-view--comment"),
                code=style("diff-view--comment-code"),
                muted=style("diff-view--comment-muted"),
                must=style("diff-view--must"),
                should=style("diff-view--should"),
                nit=style("diff-view--nit"),
                question=style("diff-view--question"),
                addressed=style("diff-view--addressed"),
                warning=style("diff-view--attention"),
                note_border=style("diff-view--agent-note-border"),
                note_label=style("diff-view--agent-note-label"),
            )
        return self._box_styles

    def selected(self) -> Selection | None:
        """The lines a comment would go on: the selected range, or the cursor's line."""
        if self.diff_layout is None or not self.diff_layout.total:
            return None
        start = self._selection if self._selection is not None else self.cursor
        return self.diff_layout.selection(start, self.cursor)

    @property
    def selecting(self) -> bool:
        """Whether a selection of lines is started."""
        return self._selection is not None

    def clear_selection(self) -> None:
        """Stop selecting lines."""
        if self._selection is not None:
            self._selection = None
            self.refresh()

    def action_toggle_selection(self) -> None:
        """Start selecting lines at the cursor, or stop."""
        if self._selection is not None:
            self._selection = None
        elif (
            self.diff_layout is not None
            and self.diff_layout.total
            and self.diff_layout.selection(self.cursor, self.cursor) is not None
        ):
            self._selection = self.cursor
        else:
            self.app.bell()
        self.refresh()

    def current_file(self) -> int | None:
        """The index of the file the cursor is in."""
        if self.diff_layout is None or not self.diff_layout.total:
            return None
        return self.diff_layout.file_of(self.cursor)

    def go_to(self, index: int, *, top: bool = False, through: int | None = None) -> None:
        """Put the cursor on row `index`; with `top`, scroll so that row is at the top; with
        `through`, so that the rows down to that one are in sight too, as far as they fit."""
        if self.diff_layout is None or not self.diff_layout.total:
            return
        previous = self.cursor
        self.cursor = max(0, min(index, self.diff_layout.total - 1))
        y = self._top_after(self.cursor, top, through)
        before = self.scroll_offset.y
        if y != before:
            self.scroll_to(y=y, animate=False, immediate=True)
        # a scroll redraws every row; without one (or at the end of the diff, where it cannot
        # scroll) only the rows that changed are redrawn
        if self.scroll_offset.y == before:
            if self._selection is not None:
                self.refresh()  # the selected rows between the old and the new cursor change too
            else:
                # refresh_line takes the row's index in the whole view, not on the screen
                self.refresh_line(previous)
                self.refresh_line(self.cursor)
        self._cursor_changed()

    def _top_after(self, cursor: int, top: bool = False, through: int | None = None) -> int:
        """The first row on screen once the cursor goes to row `cursor` (at the top, with `top`;
        otherwise only as far as it takes to bring the cursor into sight, and the rows after it
        down to `through` as far as they fit)."""
        height = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if top or cursor < y:
            return cursor
        last = cursor if through is None else max(cursor, through)
        if last >= y + height:
            return min(cursor, last - height + 1)
        return y

    def go_to_file(self, file: int) -> None:
        if self.diff_layout is not None and 0 <= file < len(self.diff_layout.diff.files):
            self.go_to(self.diff_layout.file_start(file), top=True)

    def _cursor_changed(self) -> None:
        # where the next jumps lead depends on the cursor, not only on what is on screen
        self.look_ahead()
        file = self.current_file()
        if file is not None:
            self.cursor_file = file
        layout = self.diff_layout
        if layout is None or not any(c.is_note for comments in self.comments.values() for c in comments):
            self.note = ""
            return
        before = layout.total, layout.widest
        note = self.note_at_cursor()  # builds the cursor's file, if drawing has not yet
        if (layout.total, layout.widest) != before:
            self.call_after_refresh(self._sync_size)
        self.note = note.id if note is not None else ""

    def find_text(self, needle: str, forward: bool = True) -> bool:
        """Move to the next line containing `needle` (smart-case: see `search_pattern`); False
        when there is none. An empty `needle` ends the search."""
        self.pattern = search_pattern(needle) if needle else None
        self._strips.clear()
        self.refresh()
        found = self._search(forward)
        if found is None:
            return False
        self.go_to(found)
        self._center_cursor()
        return True

    def next_match(self, forward: bool = True) -> bool:
        """Move to the next line the search matches (the previous one if not `forward`); False
        when no search is on or no line matches."""
        return self._move_to(self._search(forward))

    def _search(self, forward: bool) -> int | None:
        """The row of the next line the search matches, its file unfolded if it was folded (a
        file marked viewed is searched too)."""
        if self.diff_layout is None or self.pattern is None:
            return None
        found = self.diff_layout.search(self.pattern, self.cursor, forward)
        if isinstance(found, FoldedMatch):
            self.unfold(self.diff_layout.diff.files[found.file].path)
            found = self.diff_layout.search(self.pattern, self.cursor, forward)
        return found if isinstance(found, int) else None

    def next_comment(self, forward: bool = True) -> bool:
        """Move to the next comment (the previous one if not `forward`); False when there is none."""
        if self.diff_layout is None:
            return False
        found = self.diff_layout.next_comment(self.cursor, forward)
        if found is None:
            return False
        self.go_to(found, through=self.diff_layout.box_end(found))  # (the whole comment, as far as it fits)
        return True

    def _move_to(self, index: int | None) -> bool:
        if index is None:
            return False
        self.go_to(index)
        return True

    def comment_at_cursor(self) -> Comment | None:
        """The comment the cursor is on, if any."""
        if self.diff_layout is None or not self.diff_layout.total:
            return None
        id = self.diff_layout.comment_at(self.cursor)
        return self.comment(id) if id else None

    def note_at_cursor(self) -> Comment | None:
        """The agent's note the cursor is on (its box, or its lines), if any."""
        if self.diff_layout is None or not self.diff_layout.total:
            return None
        id = self.diff_layout.comment_at(self.cursor, notes=True)
        return self.comment(id) if id else None

    def go_to_comment(self, id: str) -> bool:
        """Put the comment at the top, unfolding its file; False when it is not in this diff."""
        comment = self.comment(id)
        if comment is not None:
            self.unfold(comment.path)
        found = self.diff_layout.find_comment(id) if self.diff_layout is not None else None
        if found is None:
            return False
        self.go_to(found, top=True)
        return True

    def match_position(self) -> tuple[int, int] | None:
        """Which match of the search the cursor is on (or last passed), and how many there are;
        None when no search is on or nothing matches."""
        if self.pattern is None or self.diff_layout is None:
            return None
        layout = self.diff_layout
        cached = self._matches
        if cached is None or cached[0] is not layout or cached[1] != self.pattern:
            cached = (layout, self.pattern, layout.matches(self.pattern))
            self._matches = cached
            self._sync_size()  # the files with matches are built now: rows may have been added
        found = cached[2]
        return (bisect_right(found, layout.among_matches(self.cursor)), len(found)) if found else None

    def _center_cursor(self) -> None:
        height = self.scrollable_content_region.height
        if not self.cursor - height // 3 <= self.scroll_offset.y <= self.cursor:
            self.scroll_to(y=max(0, self.cursor - height // 3), animate=False, immediate=True)

    # -- actions -------------------------------------------------------------------------------

    def action_cursor_down(self) -> None:
        self._into_view()
        self.go_to(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self._into_view()
        self.go_to(self.cursor - 1)

    def _into_view(self) -> None:
        # after the wheel scrolled the cursor out of sight, keys start from what is on screen
        y, height = self.scroll_offset.y, self.scrollable_content_region.height
        if not y <= self.cursor < y + height:
            self.cursor = y if self.cursor < y else y + height - 1

    def action_page_down(self) -> None:
        self._page(+1)

    def action_page_up(self) -> None:
        self._page(-1)

    def _page(self, direction: int) -> None:
        if self.diff_layout is None:
            return
        height = max(1, self.scrollable_content_region.height)
        self._into_view()
        above = self.cursor - self.scroll_offset.y
        y = max(0, min(self.scroll_offset.y + direction * height, self.diff_layout.total - height))
        self.cursor = max(0, min(self.diff_layout.total - 1, y + above))
        self.scroll_to(y=y, animate=False, immediate=True)
        self.refresh()
        self._cursor_changed()

    def action_top(self) -> None:
        self.go_to(0)

    def action_bottom(self) -> None:
        if self.diff_layout is not None:
            self.go_to(self.diff_layout.total - 1)

    def action_next_hunk(self) -> None:
        self._jump(self.diff_layout.next_hunk(self.cursor) if self.diff_layout else None)

    def action_previous_hunk(self) -> None:
        self._jump(self.diff_layout.next_hunk(self.cursor, forward=False) if self.diff_layout else None)

    def action_next_file(self) -> None:
        self._jump(self.diff_layout.next_file(self.cursor) if self.diff_layout else None)

    def action_previous_file(self) -> None:
        self._jump(self.diff_layout.next_file(self.cursor, forward=False) if self.diff_layout else None)

    def _jump(self, index: int | None) -> None:
        if index is None:
            self.app.bell()
            return
        self.go_to(index, top=True)

    def action_scroll_text(self, cells: int) -> None:
        if not self.wrap:
            self.scroll_to(x=max(0, self.scroll_offset.x + cells), animate=False, immediate=True)

    def action_toggle_split(self) -> None:
        if self.unified_only and not self.split:
            self.notify(f"Side by side needs {COMPACT_BELOW} columns or more: here the diff is unified.", timeout=4)
            return
        self.split = not self.split

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def watch_split(self) -> None:
        self.relayout()

    def watch_wrap(self) -> None:
        self.scroll_to(x=0, animate=False, immediate=True)
        self.relayout()

    def action_toggle_fold(self) -> None:
        """On a file's header, fold or unfold the file; on a large file's note, show it."""
        if self.diff_layout is None or not self.diff_layout.total:
            return
        row = self.diff_layout.row(self.cursor)
        file = self.diff_layout.diff.files[row.file]
        if row.kind is RowKind.NOTE and (file.large or file.submodule) and file.path not in self._expanded:
            if file.too_large:
                self.notify(f"{visible(file.path)} is too large to show here: git diff or an editor shows it.")
                return
            self._expanded.add(file.path)
        elif file.path in self._folded:
            self._folded.discard(file.path)
        else:
            self._folded.add(file.path)
            self.cursor = self.diff_layout.file_start(row.file)
        self.relayout()

    # -- looking ahead -------------------------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.look_ahead()

    def look_ahead(self) -> None:
        """Prepare where the next keys lead, once the reviewer pauses (see `_prefetch`)."""
        self._ahead = []
        for timer in (self._prefetch_timer, self._collect_timer):
            if timer is not None:
                timer.stop()
        self._prefetch_timer = self.set_timer(PREFETCH_DELAY, self._prefetch)

    def _prefetch(self) -> None:
        """While the reviewer reads, prepare where the next keys lead: the next and the previous
        screen, hunk, file and comment, the top and the bottom are parsed and their colours made
        in a worker, so that those jumps draw in one frame."""
        self._prefetch_timer = None
        rows = self.diff_layout
        if rows is None or not rows.total:
            return
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        # the first row on screen after each key: pages, top and bottom, and the jumps (hunks and
        # files go to the top of the screen, a comment only into sight, whole as far as it fits)
        starts = [top + height, max(0, top - height), 0, max(0, rows.total - height)]
        onward = [top + height, 0, max(0, rows.total - height)]
        comments, commented = [], []
        for forward in (True, False):
            for jump in (rows.next_hunk(self.cursor, forward), rows.next_file(self.cursor, forward)):
                if jump is not None:
                    starts.append(jump)
                    if forward:
                        onward.append(jump)
            comment = rows.next_comment(self.cursor, forward)
            if comment is not None:
                starts.append(self._top_after(comment, through=rows.box_end(comment)))
                comments.append(starts[-1])
                commented.append(rows.file_of(comment))
        # Where the keys onward, the top and the bottom and the comments lead are drawn too (the
        # next comment is mostly far away), and the file list where it will follow the cursor to.
        # A file git has not read yet is left for the jump to it (`ready_rows`).
        self._ahead = onward + comments
        # (the file list follows the file the cursor lands in, not the one atop the screen)
        self.post_message(self.LookingAhead(commented))
        for start in starts:
            for row in rows.ready_rows(start, height):
                if row.kind is RowKind.LINE:
                    self._colour_ahead(row.file, row.hunk, row.line)
                elif row.kind is RowKind.PAIR:
                    for line in (row.left, row.right):
                        if line >= 0:
                            self._colour_ahead(row.file, row.hunk, line)
        if not self._pending:
            self._draw_ahead()

    def _draw_ahead(self) -> None:
        """Draw the rows of the next screen to draw ahead (`_ahead`), once their colours are made;
        a screen at a time, so that a key pressed meanwhile waits for one at most."""
        rows = self.diff_layout
        if not self._ahead or rows is None:
            return
        start = self._ahead.pop(0)
        width = self.bar.room()
        # as `line` will draw them there, but for the cursor's row (wherever the key puts it)
        lines = [
            self._comment_strip(row, width) if row.kind is RowKind.COMMENT else self._row_strip(row, width)
            for row in rows.ready_rows(start, self.scrollable_content_region.height)
        ]
        self.style_ahead(start, lines)
        if self._ahead:
            self.call_later(self._draw_ahead)
        else:  # all is ready for the next keys: a pause to use
            collecting.collect_young()
            collecting.collect_if_overdue()
            self._collect_timer = self.set_timer(COLLECT_AFTER, collecting.collect_if_due)

    # -- drawing -------------------------------------------------------------------------------

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Called while Textual lays the screen out, before it draws: the rows on screen are
        # built for the new size and the scrollbars measured on them now, so that the frame that
        # first shows the diff has its width, its scrollbars and every row right, with no second
        # frame to correct them (a Resize event comes only after that frame).
        if self._laid_out.again(size, container_size, self.virtual_size):
            return False
        changed = super()._size_updated(size, virtual_size, container_size, layout)
        if self.diff_layout is not None and changed:
            if self.wrap and self.diff_layout.width != self._text_width():
                self._relayout(self.diff_layout.place(self.cursor) if self.diff_layout.total else None, quiet=True)
            else:
                self._build_on_screen()
                self._sync_size(quiet=True)
            self._scroll_update(self.virtual_size)
        return changed

    def _build_on_screen(self) -> None:
        """Build the files of the rows on screen, so that the diff's width and the sizes of
        those files are known before they are drawn."""
        layout = self.diff_layout
        if layout is None:
            return
        # Before the first layout, the screen's height is the one it will have: a file lower on
        # the first screen with a line too wide for it then has the horizontal scrollbar in the
        # first frame, not in a second one that takes the screen's last row.
        height = self.scrollable_content_region.height if self.container_size else size_to_come(self).height
        top = self.scroll_offset.y
        for index in range(top, min(top + height + 1, layout.total)):
            layout.row(index)

    def on_resize(self, event: events.Resize) -> None:
        # Mostly done already, as the size was set (`_size_updated`); the drawn rows are kept
        # by width, so none of them needs drawing again.
        if self.wrap and self.diff_layout is not None and self.diff_layout.width != self._text_width():
            self.relayout()
        else:
            self._sync_size()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette = None
        self._box_styles = None
        self._boxes.clear()
        self._comment_strips.clear()
        self._strips.clear()

    def on_click(self, event: events.Click) -> None:
        if self.diff_layout is not None and self.diff_layout.total and not self.bar.takes(event):
            self.go_to(self.scroll_offset.y + event.y)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.bar.move(event)

    def on_leave(self, event: events.Leave) -> None:
        self.bar.leave()

    def line(self, y: int) -> Strip:
        width = self.bar.room()
        index = self.scroll_offset.y + y
        layout = self.diff_layout
        if layout is None or not layout.total:
            message = self.empty_message if y == 1 else ""
            return Strip([Segment(f"  {message}".ljust(width), self.rich_style)]).crop(0, width)
        if index >= layout.total:
            return Strip.blank(width, self.rich_style)
        before = layout.total, layout.widest
        row = layout.row(index)
        if (layout.total, layout.widest) != before:
            self.call_after_refresh(self._sync_size)
        strip = self._comment_strip(row, width) if row.kind is RowKind.COMMENT else self._row_strip(row, width)
        if self._selection is not None and min(self._selection, self.cursor) <= index <= max(
            self._selection, self.cursor
        ):
            chosen = self.get_component_rich_style("diff-view--selection")
            strip = Strip(Segment.apply_style(strip, post_style=Style(bgcolor=chosen.bgcolor)), strip.cell_length)
        if index == self.cursor:
            cursor = self.get_component_rich_style("diff-view--cursor")
            strip = Strip(Segment.apply_style(strip, post_style=Style(bgcolor=cursor.bgcolor)), strip.cell_length)
        return strip

    def _comment_strip(self, row: Row, width: int) -> Strip:
        comment = self.comment(row.comment)
        is_note = comment is not None and comment.is_note
        base = self.get_component_rich_style("diff-view--agent-note" if is_note else "diff-view--comment")
        if comment is None:
            return Strip.blank(width, base)
        lines = self._box(comment)
        # the same strip for the same line of the same box: Textual keeps its styling on it
        key = (id(lines), row.part, width, is_note)
        found = self._comment_strips.get(key)
        if found is not None and found[0] is lines:
            return found[1]
        text = lines[row.part] if row.part < len(lines) else Text()
        segments = [Segment(" " * INDENT, self._get_palette().context), *text.render(CONSOLE, end="")]
        strip = Strip(Segment.apply_style(segments, base)).crop_extend(0, width, base)
        self._comment_strips[key] = (lines, strip)
        return strip

    def _row_strip(self, row: Row, width: int) -> Strip:
        assert self.diff_layout is not None
        path = self.diff_layout.diff.files[row.file].path
        key = (row, width, self.scroll_offset.x, self.pattern, path in self._viewed)
        strip = self._strips.get(key)
        if strip is None:
            colours = None
            words = None
            if row.kind in (RowKind.LINE, RowKind.PAIR):
                colours = self._row_colours(row)
                words = self._hunk_words(row.file, row.hunk)
            context = RowContext(
                layout=self.diff_layout,
                palette=self._get_palette(),
                width=width,
                scroll_x=self.scroll_offset.x,
                colours=colours,
                words=words,
                search=self.pattern,
                viewed=path in self._viewed,
            )
            strip = render_row(row, context)
            self._strips[key] = strip
        return strip

    def _hunk_words(self, file: int, hunk: int) -> WordChanges:
        key = (self._generation, file, hunk)
        words = self._words.get(key)
        if words is None:
            assert self.diff_layout is not None
            words = WordChanges(self.diff_layout.diff.files[file].hunks[hunk])
            self._words[key] = words
        return words

    def _row_colours(self, row: Row) -> HunkColours:
        """The syntax colours of the lines a row shows, made now if no worker made them yet."""
        indexes = (row.line,) if row.kind is RowKind.LINE else (row.left, row.right)
        chunks = sorted({index // CHUNK for index in indexes if index >= 0})
        parts = [self._chunk_colours((self._generation, row.file, row.hunk, chunk)) for chunk in chunks]
        if len(parts) == 1:
            return parts[0]
        # a split row whose old and new lines are in different chunks
        return HunkColours(
            {k: v for p in parts for k, v in p.old.items()}, {k: v for p in parts for k, v in p.new.items()}
        )

    def _chunk_colours(self, key: ColourKey) -> HunkColours:
        colours = self._colours.get(key)
        if colours is None:
            colours = _colour(*self._chunk(key))
            self._colours[key] = colours
        return colours

    def _chunk(self, key: ColourKey) -> tuple[str, list[Line], int]:
        """The path, the lines of the hunk and where the chunk `key` starts in them."""
        assert self.diff_layout is not None
        _, file, hunk, chunk = key
        diff_file = self.diff_layout.diff.files[file]
        return diff_file.path, diff_file.hunks[hunk].lines, chunk * CHUNK

    def _colour_ahead(self, file: int, hunk: int, index: int) -> None:
        """Queue the colours of the chunk holding line `index` of a hunk for the worker."""
        key = (self._generation, file, hunk, index // CHUNK)
        if key in self._colours or key in self._pending:
            return
        self._pending.add(key)
        with self._queue_lock:
            self._queue.append((key, *self._chunk(key)))
            start = not self._colouring
            self._colouring = True
        if start:
            self.run_worker(self._colour_queue, thread=True, group="highlight", exit_on_error=False)

    def _colour_queue(self) -> None:
        """Worker thread: lex the queued chunks, the one queued last first."""
        while True:
            with self._queue_lock:
                if not self._queue:
                    self._colouring = False
                    return
                key, path, lines, start = self._queue.pop()
            self.post_message(self._Coloured(key, _colour(path, lines, start)))

    class LookingAhead(Message):
        """The cursor may go to these files next (the next and the previous comment's)."""

        def __init__(self, files: list[int]) -> None:
            super().__init__()
            self.files = files

    class _Coloured(Message):
        def __init__(self, key: ColourKey, colours: HunkColours) -> None:
            super().__init__()
            self.key = key
            self.colours = colours

    def on_diff_view__coloured(self, message: _Coloured) -> None:
        self._pending.discard(message.key)
        if message.key[0] == self._generation and message.key not in self._colours:
            self._colours[message.key] = message.colours
        if not self._pending:
            self._draw_ahead()

    def _get_palette(self) -> Palette:
        if self._palette is None:
            style = self.get_component_rich_style
            theme_name = self._syntax_theme or ("monokai" if self.app.current_theme.dark else "friendly")
            syntax = SyntaxStyles(theme_name)
            statuses = {
                Status.ADDED: style("diff-view--status-added"),
                Status.DELETED: style("diff-view--status-removed"),
                Status.RENAMED: style("diff-view--status-renamed"),
                Status.COPIED: style("diff-view--status-renamed"),
            }
            modified = style("diff-view--status-modified")
            # each plain style of the palette is the component class of the same name
            plain = {
                name: style("diff-view--" + name.replace("_", "-"))
                for name in Palette._fields
                if name not in ("syntax", "status")
            }
            self._palette = Palette(
                **plain,
                syntax=syntax.style,
                status=lambda status: statuses.get(status, modified),
            )
        return self._palette


def _foreground(style: Style) -> Style:
    """Only the colour and the emphasis of `style`: drawn over a background that is not its own."""
    return Style(color=style.color, bold=style.bold, italic=style.italic, underline=style.underline)


def _by_path(comments: Sequence[Comment]) -> dict[str, list[Comment]]:
    by_path: dict[str, list[Comment]] = {}
    for comment in comments:
        by_path.setdefault(comment.path, []).append(comment)
    return by_path


def _colour(path: str, lines: Sequence[Line], start: int) -> HunkColours:
    """The syntax colours of `lines[start:start + CHUNK]` of a hunk, by index in the hunk; each
    side is lexed as one text."""
    old, new = sides(lines, start)
    old_tokens = highlight(path, [lines[i].text for i in old])
    new_tokens = highlight(path, [lines[i].text for i in new])
    return HunkColours(dict(zip(old, old_tokens, strict=True)), dict(zip(new, new_tokens, strict=True)))
