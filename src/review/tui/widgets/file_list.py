"""The changed files as a folder tree: status letter, name, counts and a mark once viewed."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text, TextType
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from review.repo.diff import Diff, FileDiff, Status
from review.repo.text import visible
from review.tui.first_frame import LaidOnce, show_scrollbars, size_to_come

_STATUS_COLOUR = {
    Status.ADDED: "green",
    Status.DELETED: "red",
    Status.MODIFIED: "yellow",
    Status.RENAMED: "cyan",
    Status.COPIED: "cyan",
    Status.TYPE_CHANGED: "magenta",
    Status.UNMERGED: "red",
}


@dataclass
class _Folder:
    """Folders and files in the order the diff first names them: file names map to indexes."""

    entries: dict[str, _Folder | int] = field(default_factory=dict)

    def folder(self, name: str) -> _Folder:
        entry = self.entries.setdefault(name + "/", _Folder())
        assert isinstance(entry, _Folder)
        return entry


class FileList(Tree[int]):
    """Select a file to show it in the diff view; folders fold."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="files_down"),
        Binding("k", "cursor_up", "Up", show=False, id="files_up"),
    ]

    DEFAULT_CSS = """
    FileList {
        background: $surface;
        padding: 0 1 0 0;
        overflow-x: hidden;
    }
    """

    class FileChosen(Message):
        """The reviewer chose a file in the list."""

        def __init__(self, file: int) -> None:
            super().__init__()
            self.file = file

    _adding = False
    """Nodes are being added in bulk (see `_invalidate`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("files", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._diff: Diff | None = None
        self._viewed: set[str] = set()
        """The paths marked viewed."""
        self._file_nodes: dict[int, TreeNode[int]] = {}
        self._style = Style()
        """The list's style in the frame being drawn (see `render_lines`)."""
        self._laid_out = LaidOnce()
        self._drawn_size = Size(0, 0)
        """Its size when it was drawn last: its first resize comes after its first frame."""

    def show(self, diff: Diff, viewed: AbstractSet[str]) -> None:
        """List the files of `diff`, keeping folded folders folded."""
        folded = {str(node.label) for node in self._all_nodes() if node.allow_expand and not node.is_expanded}
        self._diff = diff
        self._viewed = set(viewed)
        self.clear()
        self._file_nodes = {}
        tree = _Folder()
        for index, file in enumerate(diff.files):
            *folders, name = file.path.split("/")
            folder = tree
            for part in folders:
                folder = folder.folder(part)
            folder.entries[name] = index
        # Each node added would clear the tree's caches again: once is enough for all of them.
        self._adding = True
        try:
            self._add(self.root, tree, folded, viewed)
        finally:
            self._adding = False
        self._invalidate()
        self.root.expand()
        if not self.container_size:
            # its lines are laid out now, to be measured: its scrollbar comes in the first frame
            self._tree_lines  # noqa: B018 (a private property: textual is pinned)
            show_scrollbars(self, size_to_come(self))

    def _invalidate(self) -> None:
        # (a private method of Tree: textual is pinned)
        if not self._adding:
            super()._invalidate()

    def process_label(self, label: TextType) -> Text:
        # The labels made here are one line each: the tree's own processing copies every one
        # (25 ms for 650 files).
        return label if isinstance(label, Text) else super().process_label(label)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        if self._laid_out.again(size, container_size, self.virtual_size):
            return False
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self, event: events.Resize) -> None:
        # Tree lays itself out again on every resize, but its lines do not depend on its size
        # (each drawn line is kept by width): the first resize, which comes just after the
        # first frame, would lay out and draw the list a second time.
        event.prevent_default()
        self._line_cache.grow(event.size.height)  # (private to Tree: textual is pinned)
        if self.size != self._drawn_size:
            self.refresh()

    def show_changed(self, diff: Diff, viewed: AbstractSet[str]) -> bool:
        """Show `diff` in place of the listed one when it has the same files in the same order
        (some read again): only their rows are drawn again, since building the tree anew takes
        long on a large diff. False, doing nothing, when the files are not the same."""
        listed = self._diff
        if listed is None or [f.path for f in listed.files] != [f.path for f in diff.files]:
            return False
        was_viewed, self._viewed = self._viewed, set(viewed)
        self._diff = diff
        for index, (before, after) in enumerate(zip(listed.files, diff.files, strict=True)):
            node = self._file_nodes.get(index)
            if node is not None and (before is not after or (after.path in viewed) != (after.path in was_viewed)):
                node.set_label(_label(after, after.path in viewed))
        return True

    def _add(self, parent: TreeNode[int], folder: _Folder, folded: set[str], viewed: AbstractSet[str]) -> None:
        # entries keep the diff's order, so the list reads top to bottom as the diff does
        for name, entry in folder.entries.items():
            if isinstance(entry, int):
                file = diff.files[entry] if (diff := self._diff) else None
                assert file is not None
                # the label drawn is made by render_label, fitted to its room; this one is kept
                # cheap, as a tree of 10,000 files makes one for each
                self._file_nodes[entry] = parent.add_leaf(Text(visible(name)), data=entry)
                continue
            # a chain of folders holding one folder each reads as one path: src/review/tui/
            while len(entry.entries) == 1:
                ((inner, only),) = entry.entries.items()
                if not isinstance(only, _Folder):
                    break
                name, entry = name + inner, only
            label = visible(name)
            node = parent.add(Text(label), expand=label not in folded)
            self._add(node, entry, folded, viewed)

    def _all_nodes(self) -> list[TreeNode[int]]:
        found: list[TreeNode[int]] = []
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            found.append(node)
            stack.extend(node.children)
        return found

    def mark_viewed(self, viewed: AbstractSet[str]) -> None:
        """Redraw each file's label with its viewed mark."""
        if self._diff is None:
            return
        changed = self._viewed ^ set(viewed)
        self._viewed = set(viewed)
        for index, node in self._file_nodes.items():
            path = self._diff.files[index].path
            if path in changed:
                node.set_label(Text(visible(path.rsplit("/", 1)[-1])))  # drawn again by render_label

    def select_file(self, file: int) -> None:
        """Move the list's cursor to `file` without choosing it."""
        node = self._file_nodes.get(file)
        if node is None:
            return
        parent = node.parent
        while parent is not None:
            # expanding an expanded folder still makes the tree lay itself out again
            if not parent.is_expanded:
                parent.expand()
            parent = parent.parent
        if node.line < 0:
            # The tree lays its nodes out when it next draws; done now, the cursor is drawn on
            # the file in this frame, not the next (a private property: textual is pinned).
            self._tree_lines  # noqa: B018
        if self.cursor_node is not node:
            self.move_cursor(node, animate=False)

    def render_lines(self, crop: Region) -> list[Strip]:
        # the list's style, worked out from its ancestors, once a frame rather than once a line
        self._style = self.rich_style
        self._drawn_size = self.size
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        # as Tree draws a line, with the style of this frame (private: textual is pinned)
        left, top = self.scroll_offset
        return self._render_line(y + top, left, left + self.size.width, self._style)

    def draw_ahead(self, file: int) -> None:
        """Draw the lines the list will show once its cursor is on `file`, while the reviewer
        reads: a far jump (to the next comment, say) then only puts them on the screen."""
        node = self._file_nodes.get(file)
        if node is None or node.line < 0 or not self.display:
            return
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        if top <= node.line < top + height:
            return  # the list will not scroll: its lines are drawn already
        # as Tree scrolls to its cursor: only as far as it takes to bring it into sight
        top = node.line if node.line < top else node.line - height + 1
        left, style = self.scroll_offset.x, self.rich_style
        for y in range(top, min(top + height, self.last_line + 1)):
            self._render_line(y, left, left + self.size.width, style)  # (private: textual is pinned)

    def get_label_width(self, node: TreeNode[int]) -> int:
        # The tree measures every label each time it lays itself out; drawing 10,000 labels to
        # measure them took seconds. A file's label is fitted to its room when drawn, so its
        # width is counted here without drawing it.
        if node.data is None or self._diff is None:
            # a folder: its icon and its name, as Tree draws it, without drawing it
            icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
            label = node.label
            return cell_len(icon) + (label.cell_len if isinstance(label, Text) else cell_len(label))
        file = self._diff.files[node.data]
        counts = 4 if file.binary else len(f" +{file.added} −{file.removed}")
        return 2 + cell_len(visible(file.path.rsplit("/", 1)[-1])) + counts + 2 * (file.path in self._viewed)

    def render_label(self, node: TreeNode[int], base_style: Style, style: Style) -> Text:
        # A file's label is fitted to the room its row has, so that its name is shortened rather
        # than its counts cut: the room changes with the terminal, so it is measured here.
        if node.data is None or self._diff is None:
            return super().render_label(node, base_style, style)
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        file = self._diff.files[node.data]
        label = _label(file, file.path in self._viewed, room)
        label.stylize(style)
        return label

    def on_tree_node_selected(self, event: Tree.NodeSelected[int]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.FileChosen(event.node.data))


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
