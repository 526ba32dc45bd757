"""The changed files as a folder tree: status letter, name, counts and a mark once viewed.

The list is drawn a line at a time (a line-API ScrollView), from a flat list of its rows: listing
10,000 files builds 10,000 small records and draws only the rows on screen, where a tree of
widgets' nodes took a tenth of a second to build and measured every label again at each change.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from review.repo.diff import Diff, FileDiff, Status
from review.repo.text import visible
from review.tui.first_frame import LaidOnce, size_to_come
from review.tui.scroll_bar import ScrollViewWithItsBar

_STATUS_COLOUR = {
    Status.ADDED: "green",
    Status.DELETED: "red",
    Status.MODIFIED: "yellow",
    Status.RENAMED: "cyan",
    Status.COPIED: "cyan",
    Status.TYPE_CHANGED: "magenta",
    Status.UNMERGED: "red",
}

_FOLDED, _UNFOLDED = "▶ ", "▼ "
_BRANCH, _LAST, _ALONG, _PAST = "├ ", "└ ", "│ ", "  "


@dataclass
class _Folder:
    """Folders and files in the order the diff first names them: file names map to indexes."""

    entries: dict[str, _Folder | int] = field(default_factory=dict)

    def folder(self, name: str) -> _Folder:
        entry = self.entries.get(name + "/")
        if entry is None:
            entry = self.entries[name + "/"] = _Folder()
        assert isinstance(entry, _Folder)
        return entry


@dataclass(slots=True)
class _Entry:
    """A folder or a file of the tree, in the order the list shows them, folded or not."""

    name: str
    """A file's name, or a folder's (a chain of folders that hold one folder each: `src/review/`)."""
    file: int
    """The file's index in the diff; -1 for a folder."""
    folder: str
    """A folder's path from the top, which keeps it folded while the diff is read again."""
    guides: str
    """The tree's lines before the name: one pair of cells for each folder it is in but the top."""
    end: int
    """The index of the entry after a folder's last file (after the file itself, for a file)."""


class FileList(ScrollViewWithItsBar, can_focus=True):
    """Move to a file and press enter to show it in the diff view; folders fold."""

    KEPT_SCREENS = 3
    """(the list shown, and where the next and the previous comment take it, drawn ahead)"""

    BINDINGS = [
        Binding("j,down", "cursor_down", "Down", show=False, id="files_down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="files_up"),
        Binding("enter", "choose", "Show file / fold folder", show=False, id="files_choose"),
        Binding("space", "fold", "Fold / unfold folder", show=False, id="files_fold"),
        Binding("left", "fold_in", "Fold, or go to folder", show=False, id="files_fold_in"),
        Binding("right", "unfold", "Unfold folder", show=False, id="files_unfold"),
        Binding("home", "first", "First", show=False, id="files_first"),
        Binding("end", "last", "Last", show=False, id="files_last"),
        Binding("pageup", "page_up", "Page up", show=False, id="files_page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="files_page_down"),
    ]

    COMPONENT_CLASSES = {"file-list--guides", "file-list--cursor", "file-list--hover"}

    DEFAULT_CSS = """
    FileList {
        background: $surface;
        color: $foreground;
        padding: 0 1 0 0;
        overflow: hidden;  /* its scrollbar is its own (`ScrollBar`), inside the padding */
        & > .file-list--guides { color: $surface-lighten-2; }
        & > .file-list--cursor {
            text-style: $block-cursor-blurred-text-style;
            background: $block-cursor-blurred-background;
        }
        & > .file-list--hover { background: $block-hover-background; }
        &:focus {
            background-tint: $foreground 5%;
            & > .file-list--cursor {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
            & > .file-list--guides { color: $surface-lighten-3; }
        }
        &:light > .file-list--guides { color: $surface-darken-1; }
    }
    FileList:ansi {
        color: ansi_default;
        & > .file-list--guides { color: $ansi-background; }
        &:nocolor > .file-list--cursor { text-style: reverse; }
    }
    """

    class FileChosen(Message):
        """The reviewer chose a file in the list."""

        def __init__(self, file: int) -> None:
            super().__init__()
            self.file = file

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._diff: Diff | None = None
        self._viewed: set[str] = set()
        """The paths marked viewed."""
        self._entries: list[_Entry] = []
        self._entry_of_file: list[int] = []
        self._folded: set[str] = set()
        """The folded folders, by path."""
        self._rows: list[int] = []
        """The entries shown, in order: those in folded folders are left out."""
        self._cursor = 0
        """The entry under the cursor."""
        self._hover = -1
        """The row under the mouse."""
        self._strips: LRUCache[tuple[object, ...], tuple[Strip, int, int]] = LRUCache(1024)
        self._laid_out = LaidOnce()
        self._blanks: dict[tuple[int, Style], Strip] = {}
        """The line below the last row, as wide as the room, in the list's style."""

    # -- what it lists ---------------------------------------------------------------------------

    def show(self, diff: Diff, viewed: AbstractSet[str]) -> None:
        """List the files of `diff`, keeping folded folders folded."""
        self._diff = diff
        self._viewed = set(viewed)
        tree = _Folder()
        # (a folder found once for all its files: 10,000 new files are in a few folders)
        found: dict[str, _Folder] = {"": tree}
        for index, file in enumerate(diff.files):
            path, _, name = file.path.rpartition("/")
            folder = found.get(path)
            if folder is None:
                folder = tree
                for part in path.split("/"):
                    folder = folder.folder(part)
                found[path] = folder
            folder.entries[name] = index
        self._entries = []
        self._entry_of_file = [0] * len(diff.files)
        self._add(tree, "", "", top=True)
        self._cursor = min(self._cursor, max(0, len(self._entries) - 1))
        self._strips.clear()
        self._list_rows()

    def _add(self, folder: _Folder, path: str, guides: str, *, top: bool) -> None:
        # entries keep the diff's order, so the list reads top to bottom as the diff does
        entries = self._entries
        last_name = next(reversed(folder.entries), None)
        branch, last_branch = ("", "") if top else (guides + _BRANCH, guides + _LAST)
        for name, entry in folder.entries.items():
            last = name == last_name
            own = last_branch if last else branch
            if isinstance(entry, int):
                self._entry_of_file[entry] = len(entries)
                entries.append(_Entry(visible(name), entry, "", own, len(entries) + 1))
                continue
            # a chain of folders holding one folder each reads as one path: src/review/tui/
            while len(entry.entries) == 1:
                ((inner, only),) = entry.entries.items()
                if not isinstance(only, _Folder):
                    break
                name, entry = name + inner, only
            at = len(entries)
            entries.append(_Entry(visible(name), -1, path + name, own, 0))
            self._add(entry, path + name, "" if top else guides + (_PAST if last else _ALONG), top=False)
            entries[at].end = len(entries)

    def _list_rows(self) -> None:
        """List the entries shown, and size the list to them; a cursor in a folded folder goes to
        the row above it."""
        rows: list[int] = []
        index, entries, folded = 0, self._entries, self._folded
        while index < len(entries):
            rows.append(index)
            entry = entries[index]
            index = entry.end if entry.file < 0 and entry.folder in folded else index + 1
        self._rows = rows
        row = self._row_of(self._cursor)
        if rows and (row == len(rows) or rows[row] != self._cursor):
            self._cursor = rows[max(0, row - 1)]
        self._sync_size()
        self.refresh()

    def _row_of(self, entry: int) -> int:
        """The row an entry is on; for one not shown, the row after it."""
        return bisect_left(self._rows, entry)

    def show_changed(self, diff: Diff, viewed: AbstractSet[str]) -> bool:
        """Show `diff` in place of the listed one when it has the same files in the same order
        (some read again): only their rows are drawn again. False, doing nothing, when the files
        are not the same."""
        listed = self._diff
        if listed is None or [f.path for f in listed.files] != [f.path for f in diff.files]:
            return False
        changed = {
            i for i, (before, after) in enumerate(zip(listed.files, diff.files, strict=True)) if before is not after
        }
        self._diff = diff
        self._show_again(changed, viewed)
        return True

    def mark_viewed(self, viewed: AbstractSet[str]) -> None:
        """Draw each file's row with its viewed mark."""
        self._show_again(set(), viewed)

    def _show_again(self, files: set[int], viewed: AbstractSet[str]) -> None:
        """Draw again the rows of `files` and of the files whose viewed mark changed (a row is
        kept by what it shows: see `_strip`)."""
        if self._diff is None:
            return
        marked = self._viewed ^ set(viewed)
        self._viewed = set(viewed)
        files |= {i for i, file in enumerate(self._diff.files) if file.path in marked}
        for file in files:
            self.refresh_lines(self._row_of(self._entry_of_file[file]))

    @property
    def cursor_file(self) -> int | None:
        """The file under the cursor; None on a folder or in an empty list."""
        if not self._entries:
            return None
        file = self._entries[self._cursor].file
        return file if file >= 0 else None

    def select_file(self, file: int, *, unfold: bool = True) -> None:
        """Move the list's cursor to `file` without choosing it, unfolding its folders; or, not
        to `unfold` them, to the folded folder it is in."""
        if not 0 <= file < len(self._entry_of_file):
            return
        entry = self._entry_of_file[file]
        if self._folded:
            around = [at for at, e in enumerate(self._entries[:entry]) if e.file < 0 and e.end > entry]
            folded = [at for at in around if self._entries[at].folder in self._folded]
            if folded and not unfold:
                entry = folded[0]  # the outermost, which is shown
            elif folded:
                self._folded -= {self._entries[at].folder for at in folded}
                self._list_rows()
        self._move_to(entry)

    def _move_to(self, entry: int) -> None:
        if entry != self._cursor:
            before, self._cursor = self._cursor, entry
            # only the two rows the cursor leaves and takes are drawn again (a scroll draws all)
            self.refresh_lines(self._row_of(before))
            self.refresh_lines(self._row_of(entry))
        self._scroll_to_row(self._row_of(entry))

    def _scroll_to_row(self, row: int) -> None:
        """Scroll as far as it takes to bring `row` into sight."""
        top = self._top_for(row)
        if top != self.scroll_offset.y:
            self.scroll_to(y=top, animate=False, immediate=True)

    def _top_for(self, row: int) -> int:
        top, height = self.scroll_offset.y, self.scrollable_content_region.height or size_to_come(self).height
        if row < top:
            return row
        if height and row >= top + height:
            return row - height + 1
        return top

    # -- size ------------------------------------------------------------------------------------

    def _sync_size(self) -> None:
        """Make the scrollable size the rows'; before the list is first laid out, in the room it
        will have (see `review.tui.first_frame`)."""
        container = self.container_size or size_to_come(self)
        size = Size(container.width, len(self._rows))
        if self.container_size:
            self.virtual_size = size
        else:
            self.set_reactive(FileList.virtual_size, size)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        if self._laid_out.again(size, container_size, self.virtual_size):
            return False
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self, event: events.Resize) -> None:
        # the rows are as wide as the list: it is as wide as its room (rows are kept by width)
        if self.virtual_size.width != self.container_size.width:
            self.set_reactive(FileList.virtual_size, Size(self.container_size.width, len(self._rows)))

    # -- drawing ---------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def line(self, y: int) -> Strip:
        width = self.bar.room()
        row = self.scroll_offset.y + y
        if row >= len(self._rows):
            key = (width, self.rich_style)
            if key not in self._blanks:
                self._blanks = {key: Strip.blank(width, self.rich_style)}
            return self._blanks[key]
        index = self._rows[row]
        strip, start, end = self._strip(index, width)
        if index == self._cursor:
            # as a tree draws its cursor: over the name and counts, not the lines before them
            cursor = self.get_component_rich_style("file-list--cursor", partial=False)
            label = Strip(Segment.apply_style(strip.crop(start, end), post_style=cursor), end - start)
            strip = Strip.join([strip.crop(0, start), label, strip.crop(end, width)])
        elif row == self._hover:
            hover = self.get_component_rich_style("file-list--hover")
            strip = Strip(Segment.apply_style(strip, post_style=Style(bgcolor=hover.bgcolor)), width)
        return strip

    def _strip(self, index: int, width: int) -> tuple[Strip, int, int]:
        """An entry's row `width` cells wide, and where its label starts and ends in it."""
        entry = self._entries[index]
        folded = entry.folder in self._folded
        file = self._diff.files[entry.file] if entry.file >= 0 and self._diff is not None else None
        viewed = file is not None and file.path in self._viewed
        # (a file read again is another FileDiff, with the same path: its row is what it counts)
        counts = None if file is None else (file.status, file.added, file.removed, file.binary)
        key = (index, width, folded, viewed, counts, self.has_focus)
        drawn = self._strips.get(key)
        if drawn is None:
            base = self.rich_style
            guides = Text(entry.guides, self.get_component_rich_style("file-list--guides", partial=True))
            if entry.file < 0:
                label = Text(_FOLDED if folded else _UNFOLDED) + Text(entry.name)
            else:
                assert file is not None
                label = _label(file, viewed, width - guides.cell_len)
            segments = list(Text.assemble(guides, label).render(self.app.console))
            strip = Strip(Segment.apply_style(segments, base)).crop_extend(0, width, base)
            start = min(width, guides.cell_len)
            drawn = self._strips[key] = (strip, start, min(width, start + label.cell_len))
        return drawn

    def draw_ahead(self, file: int) -> None:
        """Draw the rows the list will show once its cursor is on `file`, while the reviewer
        reads: a far jump (to the next comment, say) then only puts them on the screen."""
        if not 0 <= file < len(self._entry_of_file) or not self.display:
            return
        row = self._row_of(self._entry_of_file[file])
        top, width = self._top_for(row), self.bar.room()
        shown = range(top, min(top + self.scrollable_content_region.height, len(self._rows)))
        # (all but the cursor's, drawn over its row's as the cursor lands there)
        self.style_ahead(top, [self._strip(self._rows[at], width)[0] for at in shown])

    # -- keys and the mouse ----------------------------------------------------------------------

    def _move_rows(self, rows: int) -> None:
        if self._rows:
            row = max(0, min(len(self._rows) - 1, self._row_of(self._cursor) + rows))
            self._move_to(self._rows[row])

    def action_cursor_down(self) -> None:
        self._move_rows(1)

    def action_cursor_up(self) -> None:
        self._move_rows(-1)

    def action_page_down(self) -> None:
        self._move_rows(max(1, self.scrollable_content_region.height - 1))

    def action_page_up(self) -> None:
        self._move_rows(-max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self._move_rows(-len(self._rows))

    def action_last(self) -> None:
        self._move_rows(len(self._rows))

    def action_choose(self) -> None:
        """Show the file under the cursor in the diff view; fold or unfold a folder."""
        file = self.cursor_file
        if file is not None:
            self.post_message(self.FileChosen(file))
        else:
            self.action_fold()

    def action_fold(self) -> None:
        """Fold the folder under the cursor, or unfold it."""
        if self._entries and self._entries[self._cursor].file < 0:
            self._folded ^= {self._entries[self._cursor].folder}
            self._list_rows()

    def action_fold_in(self) -> None:
        """Fold the unfolded folder under the cursor; elsewhere, go to the folder the cursor is in."""
        if not self._entries:
            return
        entry = self._entries[self._cursor]
        if entry.file < 0 and entry.folder not in self._folded:
            self.action_fold()
            return
        inside = [at for at, e in enumerate(self._entries[: self._cursor]) if e.file < 0 and e.end > self._cursor]
        if inside:
            self._move_to(inside[-1])

    def action_unfold(self) -> None:
        if self._entries and self._entries[self._cursor].folder in self._folded:
            self.action_fold()

    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y
        if 0 <= row < len(self._rows) and not self.bar.takes(event):
            self._move_to(self._rows[row])
            self.action_choose()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_on(-1 if self.bar.move(event) else self.scroll_offset.y + event.y)

    def on_leave(self, event: events.Leave) -> None:
        self.bar.leave()
        self._hover_on(-1)

    def _hover_on(self, row: int) -> None:
        if row != self._hover:
            before, self._hover = self._hover, row
            for changed in (before, row):
                if changed >= 0:
                    self.refresh_lines(changed)


def file_counts(file: FileDiff, viewed: bool) -> Text:
    """A file's added and removed lines (or that it is binary), and a mark once viewed."""
    counts = (
        Text(" bin", Style(dim=True))
        if file.binary
        else Text.assemble((f" +{file.added}", Style(color="green")), (f" −{file.removed}", Style(color="red")))
    )
    if viewed:
        counts.append(" ✓", Style(color="green", bold=True))
    return counts


def _label(file: FileDiff, viewed: bool, room: int | None = None) -> Text:
    """The file's row: status letter, name, counts, viewed mark. Within `room` cells, the name is
    shortened (its end becomes "…"); the counts are never cut."""
    name = visible(file.path.rsplit("/", 1)[-1])
    counts = file_counts(file, viewed)
    letter = Text(file.status.letter + " ", Style(color=_STATUS_COLOUR[file.status], bold=True))
    shown = Text(name, Style(dim=viewed))
    if room is not None and letter.cell_len + shown.cell_len + counts.cell_len > room:
        shown.truncate(max(1, room - letter.cell_len - counts.cell_len), overflow="ellipsis")
    return Text.assemble(letter, shown, counts, no_wrap=True, overflow="ellipsis")
