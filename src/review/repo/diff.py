"""The diff model: the changed files with their counts at once, each file's hunks when first asked.

`parse` reads the output of `git diff --raw --patch -z` (see `git.diff_output`). The raw records
give every file's exact path bytes, status, modes and blobs; the patch is only indexed (where each
file's text starts and ends) and its added and removed lines counted, at C speed, until a file's
hunks are needed, when unidiff parses that file alone. (`--numstat` would give the counts too,
but git would compute every diff twice.)
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from unidiff.constants import LINE_TYPE_EMPTY, LINE_TYPE_NO_NEWLINE
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk as ParsedHunk
from unidiff.patch import PatchSet

from review.errors import BrokenDiff
from review.repo.text import decode, visible

# Beyond either limit a file is summarised in one line until the reviewer expands it.
LARGE_FILE_BYTES = 1_000_000
LARGE_FILE_LINES = 20_000

SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"
_NO_MODE = "000000"


class Status(Enum):
    """How a file changed, with git's status letter as the value."""

    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"
    RENAMED = "R"
    COPIED = "C"
    TYPE_CHANGED = "T"
    UNMERGED = "U"

    @property
    def letter(self) -> str:
        return self.value


@dataclass(slots=True)
class Line:
    """One line of a hunk."""

    kind: str
    """'+' added, '-' removed, ' ' context."""
    old: int | None
    """Line number on the old side; None for an added line."""
    new: int | None
    """Line number on the new side; None for a removed line."""
    text: str
    """The line's text, without its line ending."""
    no_newline: bool = False
    """The file ends after this line with no newline."""
    crlf: bool = False
    """The line ended with CR LF."""


@dataclass(slots=True)
class Hunk:
    """A run of changed lines with their context."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str
    """What git shows after the second @@: usually the enclosing function."""
    lines: list[Line]

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"


@dataclass(eq=False)
class FileDiff:
    """One changed file. Its metadata is known at once; `hunks` are parsed on first use."""

    path: str
    """The path on the new side (the old path for a deleted file), as `os.fsdecode` gives it."""
    old_path: str | None
    """The path on the old side, when it differs (renames and copies)."""
    status: Status
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    """The new side's blob id; all zeros when it is the working tree."""
    similarity: int | None
    """Percent similarity of a rename or copy."""
    added: int
    removed: int
    binary: bool
    _source: bytes = field(repr=False)
    _spans: tuple[tuple[int, int], ...] = field(repr=False)
    utf8: bool = True
    """False once the file's patch turned out not to be UTF-8."""
    old_size: int | None = None
    """Bytes of a binary file on the old side, when known."""
    new_size: int | None = None
    """Bytes of a binary file on the new side, when known."""

    @property
    def from_working_tree(self) -> bool:
        """The new side is the working tree's file rather than a stored blob."""
        return set(self.new_blob) == {"0"} and self.status is not Status.DELETED

    @property
    def display_path(self) -> str:
        """The path, safe to print: control characters shown as stand-ins."""
        return visible(self.path)

    @property
    def submodule(self) -> bool:
        return SUBMODULE_MODE in (self.old_mode, self.new_mode)

    @property
    def symlink(self) -> bool:
        return SYMLINK_MODE in (self.old_mode, self.new_mode)

    @property
    def mode_changed(self) -> bool:
        return _NO_MODE not in (self.old_mode, self.new_mode) and self.old_mode != self.new_mode

    @property
    def moved_unchanged(self) -> bool:
        """Renamed or copied without a change: git's patch then says nothing of the content, not
        even whether it is binary (see `binary_paths`)."""
        return (
            self.status in (Status.RENAMED, Status.COPIED)
            and self.similarity == 100
            and not self.submodule
            and not any(hunk_text(section) for section in self.sections)
        )

    @property
    def patch_size(self) -> int:
        return sum(end - start for start, end in self._spans)

    @property
    def large(self) -> bool:
        """Too big to show before the reviewer asks for it."""
        return self.added + self.removed > LARGE_FILE_LINES or self.patch_size > LARGE_FILE_BYTES

    @property
    def fingerprint(self) -> str:
        """Changes whenever the file's change does: a viewed mark holds it, to lapse with it."""
        return hashlib.sha1(self.patch).hexdigest()[:16]

    @property
    def sections(self) -> list[bytes]:
        """This file's parts of git's patch output, headers included: one, or two for a type
        change, which git shows as a deletion and a creation."""
        return [self._source[start:end] for start, end in self._spans]

    @property
    def patch(self) -> bytes:
        return b"".join(self.sections)

    @cached_property
    def line_kinds(self) -> bytes:
        """The first character of every hunk header and line, in order: b'@', b' ', b'-' or
        b'+' ("no newline" markers left out). Read from the patch bytes, without parsing."""
        return b"".join(kind for section in self.sections for kind in _LINE_KIND.findall(hunk_text(section)))

    @cached_property
    def body_lines(self) -> int:
        """How many hunk headers and lines the file has, counted without parsing, once: every
        layout of the diff asks it of every file, and a diff read again keeps the files that did
        not change."""
        if "line_kinds" in self.__dict__:
            return len(self.line_kinds)
        count = 0
        for section in self.sections:
            body = hunk_text(section)
            count += body.count(b"\n") + (not body.endswith(b"\n") and bool(body)) - body.count(b"\n\\")
        return count

    @cached_property
    def hunks(self) -> list[Hunk]:
        """The file's hunks, parsed the first time they are asked for.

        Raises:
            BrokenDiff: the patch text is not a well-formed diff.
        """
        hunks: list[Hunk] = []
        for section in self.sections:
            hunks.extend(self._parse_section(section))
        return hunks

    def _parse_section(self, section: bytes) -> list[Hunk]:
        body = hunk_text(section)
        if not body:
            return []
        text, utf8 = decode(body)
        self.utf8 = self.utf8 and utf8
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        # unidiff parses hunks of a file it has a header for; the header carries nothing we
        # need (paths come from git's raw output), so a neutral one is given.
        feed = ["--- a\n", "+++ b\n", *(line + "\n" for line in lines)]
        try:
            patch = PatchSet(feed)
        except UnidiffParseError as error:
            raise BrokenDiff(f"{self.display_path}: broken diff: {error}") from None
        return [_hunk(h) for patched in patch for h in patched]


_LINE_KIND = re.compile(rb"^([ +\-@])", re.MULTILINE)


def hunk_text(section: bytes) -> bytes:
    """A file section's patch from its first hunk header on, or nothing when it has no hunks."""
    if section.startswith(b"@@ "):
        return section
    start = section.find(b"\n@@ ")
    return section[start + 1 :] if start >= 0 else b""


def _hunk(parsed: ParsedHunk) -> Hunk:
    lines: list[Line] = []
    for item in parsed:
        if item.line_type == LINE_TYPE_NO_NEWLINE:
            if lines:
                lines[-1].no_newline = True
            continue
        if item.line_type == LINE_TYPE_EMPTY:
            continue
        text = item.value[:-1] if item.value.endswith("\n") else item.value
        crlf = text.endswith("\r")
        if crlf:
            text = text[:-1]
        lines.append(Line(item.line_type, item.source_line_no, item.target_line_no, text, crlf=crlf))
    return Hunk(
        parsed.source_start,
        parsed.source_length,
        parsed.target_start,
        parsed.target_length,
        parsed.section_header,
        lines,
    )


@dataclass(eq=False)
class Diff:
    """The changed files between two sides, in git's order."""

    files: list[FileDiff]
    size: int
    """Bytes of git output the model was read from."""

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)

    def file(self, path: str) -> FileDiff | None:
        for candidate in self.files:
            if candidate.path == path:
                return candidate
        return None


# A patch line can only begin one of these words when it starts a file's section: content lines
# begin with ' ', '+', '-' or '\\'.
_SECTION_HEADS = (b"diff --git ", b"* Unmerged path ")
_SECTION_START = re.compile(rb"\n(?:diff --git |\* Unmerged path )")


def parse(output: bytes) -> Diff:
    """Build the model from `git diff --raw --patch -z` output.

    Raises:
        BrokenDiff: the output does not have the expected shape.
    """
    reader = _Reader(output)
    records = reader.raw_records()
    if not records and output.strip(b"\0\n"):
        raise BrokenDiff("git diff output does not start with file records")
    patch_start = reader.pos + 1 if records else len(output)
    starts = [m.start() + 1 for m in _SECTION_START.finditer(output, patch_start)]
    if output.startswith(_SECTION_HEADS, patch_start):
        starts.insert(0, patch_start)
    bounds = list(zip(starts, [*starts[1:], len(output)], strict=False))

    files: list[FileDiff] = []
    section = 0
    for meta, paths in records:
        old_mode, new_mode, old_blob, new_blob, status_field = meta
        status = _status(status_field)
        # git prints a type change (a file becoming a symlink, say) as a deletion and a creation.
        taken = 2 if status is Status.TYPE_CHANGED else 1
        spans = tuple(bounds[section : section + taken])
        if len(spans) != taken:
            raise BrokenDiff(f"git diff output is incomplete: no patch for {visible(paths[-1])}")
        section += taken
        added, removed, binary = _count(output, spans)
        files.append(
            FileDiff(
                path=paths[-1],
                old_path=paths[0] if len(paths) == 2 else None,
                status=status,
                old_mode=old_mode,
                new_mode=new_mode,
                old_blob=old_blob,
                new_blob=new_blob,
                similarity=int(status_field[1:]) if len(status_field) > 1 else None,
                added=added,
                removed=removed,
                binary=binary,
                _source=output,
                _spans=spans,
            )
        )
    if section != len(bounds):
        raise BrokenDiff(f"git diff output has {len(bounds)} patches for {len(records)} files")
    return Diff(files=files, size=len(output))


def renames(output: bytes) -> dict[str, str]:
    """Old path → new path of every rename in `git diff --raw -z` output (with or without the
    patch)."""
    return {paths[0]: paths[1] for meta, paths in _Reader(output).raw_records() if meta[4].startswith("R")}


def binary_paths(numstat: bytes) -> set[str]:
    """The paths git counts as binary (`-` for both counts) in `git diff --numstat -z
    --no-renames` output."""
    found: set[str] = set()
    for record in numstat.split(b"\0"):
        added, _, rest = record.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        if added == removed == b"-":
            found.add(os.fsdecode(path))
    return found


def _count(output: bytes, spans: tuple[tuple[int, int], ...]) -> tuple[int, int, bool]:
    """Added and removed lines of a file's patch, and whether git called it binary."""
    added = removed = 0
    binary = False
    for start, end in spans:
        body = hunk_text(output[start:end])
        if not body:
            binary = binary or output.find(b"\nBinary files ", start, end) >= 0
            continue
        added += body.count(b"\n+")
        removed += body.count(b"\n-")
    return added, removed, binary


def _status(field_: str) -> Status:
    try:
        return Status(field_[:1])
    except ValueError:
        raise BrokenDiff(f"unknown file status '{visible(field_)}' in git diff output") from None


class _Reader:
    """Reads the NUL-separated raw records at the start of git's output."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def field(self) -> bytes:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise BrokenDiff("git diff output ends in the middle of a record")
        value = self.data[self.pos : end]
        self.pos = end + 1
        return value

    def raw_records(self) -> list[tuple[tuple[str, str, str, str, str], tuple[str, ...]]]:
        records: list[tuple[tuple[str, str, str, str, str], tuple[str, ...]]] = []
        while self.data.startswith(b":", self.pos):
            meta = self.field()[1:].decode("ascii", "replace").split(" ")
            if len(meta) != 5:
                raise BrokenDiff("git diff output has a malformed file record")
            paths = [self.field()]
            if meta[4][:1] in ("R", "C"):
                paths.append(self.field())
            old_mode, new_mode, old_blob, new_blob, status = meta
            records.append(((old_mode, new_mode, old_blob, new_blob, status), tuple(os.fsdecode(p) for p in paths)))
        return records
