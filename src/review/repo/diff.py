"""The diff model: the changed files with their counts at once, each file's hunks when first asked.

`parse` reads the output of `git diff --raw --patch -z` (see `git.start_diff`). The raw records
give every file's exact path bytes, status, modes and blobs; the patch is only indexed (where each
file's text starts and ends) and its added and removed lines counted, at C speed, until a file's
hunks are needed, when unidiff parses that file alone. (`--numstat` would give the counts too,
but git would compute every diff twice.)

Memory stays bounded whatever the size of the diff: a large output is read a chunk at a time and
stays in git's temporary file, from which a file's part is read back when its hunks are needed;
the parsed hunks of the files used last are kept, up to a budget of lines. The output is read as
git writes it (`git.Running`), so that a huge diff is parsed soon after git is done rather than a
parse later.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, BinaryIO, NamedTuple

from unidiff.constants import LINE_TYPE_EMPTY, LINE_TYPE_NO_NEWLINE
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk as ParsedHunk
from unidiff.patch import PatchSet

from review.errors import BrokenDiff
from review.repo.git import Running
from review.repo.recently_used import RecentlyUsed
from review.repo.text import decode, visible

# Beyond either limit a file is summarised in one line until the reviewer expands it.
LARGE_FILE_BYTES = 1_000_000
LARGE_FILE_LINES = 20_000
SHOWN_AT_MOST_LINES = 100_000
SHOWN_AT_MOST_BYTES = 16_000_000
"""A change larger than this is never shown in the viewer: its lines, parsed, would take more than
a hundred megabytes and seconds to lay out (a generated file of a million lines took 1.3 GB).
git and an editor show it."""

IN_MEMORY_BYTES = 1 << 20
"""git output up to this size is read into memory; a larger one stays in its temporary file."""
PARSED_LINES = 20_000
"""The hunks of the files used last are kept parsed up to this many lines in all (about 4 MB)..."""
PARSED_FILES = 16
"""...and those of this many files whatever their size: the files on one screen and where the
next keys lead are not parsed again on every frame."""

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


Record = tuple[tuple[str, str, str, str, str], tuple[str, ...]]
"""A file's raw record in git's output: its modes, blobs and status field, and its path (its old
path first, for a rename or a copy)."""
Summary = tuple[
    str, str | None, str, str, str, str, str, int | None, int, int, bool, int, str, int, int | None, int | None
]
"""A file counted, in plain values (`FileDiff.summary`)."""


class Counts(NamedTuple):
    """What a file's diff comes to, short of its patch: all that the file list, the header and
    the layout of the whole diff need of a file that is not on the screen. (A named tuple: the
    counts of thousands of files are made as a diff opens, `state.counted`.)"""

    added: int
    removed: int
    binary: bool
    body_lines: int
    fingerprint: str
    patch_size: int
    old_size: int | None
    new_size: int | None


_COUNTS = Counts._fields


class Later(Future[Mapping[str, "FileDiff"]]):
    """The diff read whole, by path, once git has read it: the files known by their counts alone
    (`FileDiff.counted`) take their patches from it."""

    def read_alone(self, file: FileDiff) -> bool:
        """Have git read `file` on its own while the whole diff is not read yet, for it to take
        its patch from (`FileDiff.take_patch`); False when it cannot, and the file waits for the
        whole diff."""
        return False


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
    body_lines: int
    """How many hunk headers and lines the file has, counted as git's output is read: every
    layout of the diff asks it of every file."""
    fingerprint: str
    """Changes whenever the file's change does: a viewed mark holds it, to lapse with it. (A
    hash of its patch, taken as git's output is read.)"""
    patch_size: int
    """Bytes of the file's patch."""
    _output: _Output = field(repr=False)
    _spans: tuple[tuple[int, int], ...] = field(repr=False)
    """Where the file's sections are in the output."""
    _later: Later | None = field(default=None, repr=False)
    """For a file known by its counts alone (`counted`): the diff read whole, by path, once
    git has read it, which the file's patch is then read from."""
    utf8: bool = True
    """False once the file's patch turned out not to be UTF-8."""
    old_size: int | None = None
    """Bytes of a binary file on the old side, when known."""
    new_size: int | None = None
    """Bytes of a binary file on the new side, when known."""

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
            and not self.has_hunks
        )

    @property
    def has_hunks(self) -> bool:
        return self.body_lines > 0

    @property
    def large(self) -> bool:
        """Too big to show before the reviewer asks for it."""
        return self.added + self.removed > LARGE_FILE_LINES or self.patch_size > LARGE_FILE_BYTES

    @property
    def hunks_shown_unasked(self) -> bool:
        """Whether a view shows the file's hunks before the reviewer asks for them: a binary,
        large or submodule file, or one with no hunks, is a header and a note."""
        return self.has_hunks and not (self.binary or self.large or self.submodule)

    @property
    def too_large(self) -> bool:
        """Too big to show at all (`SHOWN_AT_MOST_LINES`)."""
        return self.added + self.removed > SHOWN_AT_MOST_LINES or self.patch_size > SHOWN_AT_MOST_BYTES

    @property
    def sections(self) -> list[bytes]:
        """This file's parts of git's patch output, headers included: one, or two for a type
        change, which git shows as a deletion and a creation. Read from the output each time."""
        self._settle()
        return [self._output.read(start, end) for start, end in self._spans]

    @property
    def patch(self) -> bytes:
        return b"".join(self.sections)

    @cached_property
    def line_kinds(self) -> bytes:
        """The first character of every hunk header and line, in order: b'@', b' ', b'-' or
        b'+' ("no newline" markers left out). Read from the patch bytes, without parsing."""
        return b"".join(kind for section in self.sections for kind in _LINE_KIND.findall(hunk_text(section)))

    @property
    def hunks(self) -> list[Hunk]:
        """The file's hunks, parsed when asked for and kept while the file is among those used
        last (see `PARSED_LINES`); parsed again the same after that.

        Raises:
            BrokenDiff: the patch text is not a well-formed diff.
        """
        self._settle()
        # kept by where the file is in the output: the output holding its files would be a cycle
        hunks = self._output.parsed.get(self._spans)
        if hunks is None:
            hunks = []
            for section in self.sections:
                hunks.extend(self._parse_section(section))
            self._output.parsed.put(self._spans, hunks)
        return hunks

    @property
    def parsed(self) -> bool:
        """Whether the file's hunks are kept parsed."""
        return self._later is None and self._spans in self._output.parsed

    @classmethod
    def counted(cls, record: Record, counts: Counts, later: Later) -> FileDiff:
        """The file of a raw record whose diff was counted before (see `Counts`): what the
        layout and the file list need is known at once, its patch once `later` has the diff."""
        # (by position: 10,000 files are made as a diff of 10,000 new files opens)
        return cls(
            *_entry(record),
            counts.added,
            counts.removed,
            counts.binary,
            counts.body_lines,
            counts.fingerprint,
            counts.patch_size,
            _NOTHING,
            (),
            later,
            True,
            counts.old_size,
            counts.new_size,
        )

    @property
    def summary(self) -> Summary:
        """The file as `counted` makes it, in plain values: its record's fields and its counts."""
        return (
            self.path,
            self.old_path,
            self.status.value,
            self.old_mode,
            self.new_mode,
            self.old_blob,
            self.new_blob,
            self.similarity,
            *self.counts,
        )

    @property
    def record(self) -> Record:
        """The file's raw record, as git wrote it."""
        status = self.status.letter if self.similarity is None else f"{self.status.letter}{self.similarity:03d}"
        return (self.old_mode, self.new_mode, self.old_blob, self.new_blob, status), self.paths

    @property
    def paths(self) -> tuple[str, ...]:
        """Its path, as its record gives it: the old path first, for a rename or a copy."""
        return (self.path,) if self.old_path is None else (self.old_path, self.path)

    @property
    def counts(self) -> Counts:
        return Counts(*(getattr(self, name) for name in _COUNTS))

    @property
    def ready(self) -> bool:
        """Whether the file's patch can be read without waiting for git (see `counted`)."""
        later = self._later
        return later is None or later.done()

    def _settle(self) -> None:
        """Take the patch of a counted file from git: read on its own while the whole diff is
        not read yet (`Later.read_alone`), else from the diff read whole, waiting for git to have read
        it. A file that is not in it has no patch (the screen reads the diff again when what git
        read differs from what was counted)."""
        later = self._later
        if later is not None and (later.done() or not later.read_alone(self)):
            self.take_patch(later.result().get(self.path))

    def take_patch(self, read: FileDiff | None) -> None:
        """Take the patch of a counted file from `read`, the file as git read it (no patch if
        None)."""
        if read is not None:
            self._output, self._spans, self.utf8 = read._output, read._spans, read.utf8
        # last: another thread that finds it None finds the patch's place set
        self._later = None

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
            raise BrokenDiff(f"{self.display_path}: broken diff: {_reason(error)}") from None
        return [_hunk(h) for patched in patch for h in patched]


_REASON_LENGTH = 100
"""The most characters of unidiff's reason a broken diff's message gives."""


def from_summaries(summaries: Iterable[Sequence[Any]], later: Later) -> list[FileDiff]:
    """The files of `FileDiff.summary`s (as read back from a cache), as `FileDiff.counted` makes
    them: their patches once `later` has the diff. (Made in one comprehension, by position: 10,000
    files take 8 ms, where `counted` from their records takes 30.)

    Raises:
        ValueError: a summary is not one (of a cache written otherwise, say).
    """
    try:
        return [
            FileDiff(
                path,
                old_path,
                _STATUSES[status],
                old_mode,
                new_mode,
                old_blob,
                new_blob,
                similarity,
                added,
                removed,
                binary,
                body_lines,
                fingerprint,
                patch_size,
                _NOTHING,
                (),
                later,
                True,
                old_size,
                new_size,
            )
            for (
                path,
                old_path,
                status,
                old_mode,
                new_mode,
                old_blob,
                new_blob,
                similarity,
                added,
                removed,
                binary,
                body_lines,
                fingerprint,
                patch_size,
                old_size,
                new_size,
            ) in summaries
        ]
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a file's summary: {error}") from None


def _reason(error: UnidiffParseError) -> str:
    """unidiff's reason, one line and inert: it quotes the line it stopped at, which may be a
    megabyte long, end in its newline, or hold escape sequences."""
    text = visible(str(error)[: _REASON_LENGTH + 1].rstrip("\n"))
    return text if len(text) <= _REASON_LENGTH else text[: _REASON_LENGTH - 1] + "…"


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
_DIFF_START, _UNMERGED_START = (b"\n" + head for head in _SECTION_HEADS)
_LONGEST_START = 1 + max(len(head) for head in _SECTION_HEADS)

_CHUNK = 1 << 20
"""Bytes of a large output read at a time."""


def parse(
    output: bytes | BinaryIO | Running,
    named: Callable[[list[Record]], None] | None = None,
    parsed: Callable[[FileDiff], bool] | None = None,
    *,
    split: Callable[[list[Record]], int | None] | None = None,
) -> Diff:
    """Build the model from `git diff --raw --patch -z` output, given as bytes, as the file it
    is in (`Running.whole`), or as git writes it (`git.start_diff`), read while git runs;
    `named` is given the files' records as soon as they are read, before their patches;
    `parsed` each file as soon as its patch is read (its hunks can be read already), until it
    returns True. `split`, given the records too, may say how many of the first files the diff
    is to have: git is stopped once their patches are read (other gits read the rest,
    `scope.read`). The
    file is parse's to close: it is read into memory and closed when small (`IN_MEMORY_BYTES`);
    a large one stays open, for each file's part to be read back when its hunks are needed, and
    is closed once the diff's files are all gone.

    Raises:
        BrokenDiff: the output does not have the expected shape.
        GitFailed: git, still running when given, ended with a failure (whatever was read of
            its output is thrown away).
    """
    source = _Output(output)
    try:
        diff, cut = _parse(source, named, parsed, split)
        source.whole(cut=cut)
        diff.size = source.size
        return diff
    except BrokenDiff:
        # git's own failure, when it failed, says more than the output it left unfinished
        source.close(after_git=True)
        raise
    except BaseException:
        source.close()
        raise


def _parse(
    source: _Output,
    named: Callable[[list[Record]], None] | None,
    parsed: Callable[[FileDiff], bool] | None,
    split: Callable[[list[Record]], int | None] | None,
) -> tuple[Diff, bool]:
    """The diff, and whether it has only the first files `split` asked for."""
    reader = _Reader(source)
    records = reader.raw_records()
    if named is not None:
        named(records)
    if not records:
        if reader.rest_is_blank():
            return Diff(files=[], size=source.size), False
        raise BrokenDiff("git diff output does not start with file records")
    first = split(records) if split is not None else None
    reader.start_patch()
    files: list[FileDiff] = []
    for record in records[:first]:
        entry = _entry(record)
        # git prints a type change (a file becoming a symlink, say) as a deletion and a creation.
        taken = 2 if entry.status is Status.TYPE_CHANGED else 1
        digest = hashlib.sha1()
        sections = [section for _ in range(taken) if (section := reader.section(digest)) is not None]
        if len(sections) != taken:
            raise BrokenDiff(f"git diff output is incomplete: no patch for {visible(record[1][-1])}")
        files.append(
            FileDiff(
                *entry,
                added=sum(section.added for section in sections),
                removed=sum(section.removed for section in sections),
                binary=any(section.binary for section in sections),
                body_lines=sum(section.body_lines for section in sections),
                fingerprint=digest.hexdigest()[:16],
                patch_size=sum(section.end - section.start for section in sections),
                _output=source,
                _spans=tuple((section.start, section.end) for section in sections),
            )
        )
        if parsed is not None and parsed(files[-1]):
            parsed = None
    if first is not None:
        return Diff(files=files, size=source.size), True
    used = sum(len(file._spans) for file in files)
    left = 0
    while reader.section(hashlib.sha1()) is not None:
        left += 1
    if left:
        raise BrokenDiff(f"git diff output has {used + left} patches for {len(records)} files")
    return Diff(files=files, size=source.size), False


class _Entry(NamedTuple):
    """The fields of a file that its raw record gives: `FileDiff`'s first fields, in order."""

    path: str
    old_path: str | None
    status: Status
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    similarity: int | None


def _entry(record: Record) -> _Entry:
    (old_mode, new_mode, old_blob, new_blob, status_field), paths = record
    return _Entry(
        paths[-1],
        paths[0] if len(paths) == 2 else None,
        _status(status_field),
        old_mode,
        new_mode,
        old_blob,
        new_blob,
        int(status_field[1:]) if len(status_field) > 1 else None,
    )


def records(output: bytes | Running) -> list[Record]:
    """The raw records of `git diff --raw -z` output (with or without the patch); from git still
    running, as soon as it has written them, before its first patch, and leaving git running.

    Raises:
        BrokenDiff: the output does not have the expected shape.
        GitFailed: git, still running when given, ended with a failure.
    """
    return _Reader(_Output(output, owned=False), eager=True).raw_records()


_ZEROS = frozenset("0")


def same_file(one: Record, other: Record) -> bool:
    """Whether two readings of a diff found the same file: the same record, but that git names
    the blob of a working tree file only where it looked for renames among it."""
    (one_meta, one_paths), (other_meta, other_paths) = one, other
    return (
        one_paths == other_paths
        and one_meta[:3] == other_meta[:3]
        and one_meta[4] == other_meta[4]
        and (one_meta[3] == other_meta[3] or _ZEROS in (set(one_meta[3]), set(other_meta[3])))
    )


def joined(pieces: Sequence[Diff], found: Sequence[Record]) -> Diff | None:
    """The diff read in pieces, by gits each reading some of its files, in git's order, as the
    whole diff's records (`found`) name them; None when the pieces hold other files (git paired
    renames otherwise among fewer files, say)."""
    files = [file for piece in pieces for file in piece.files]
    if len(files) != len(found) or not all(same_file(f.record, r) for f, r in zip(files, found, strict=True)):
        return None
    for file, ((_, _, old_blob, new_blob, _), _) in zip(files, found, strict=True):
        # (the whole diff's names, which the next opening's records are known by: `counted.key`)
        file.old_blob, file.new_blob = old_blob, new_blob
    return Diff(files=files, size=sum(piece.size for piece in pieces))


def renames(output: bytes) -> dict[str, str]:
    """Old path → new path of every rename in `git diff --raw -z` output (with or without the
    patch)."""
    return {paths[0]: paths[1] for meta, paths in records(output) if meta[4].startswith("R")}


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


class _Section(NamedTuple):
    """One file's section of git's patch (two for a type change), as counted while reading."""

    start: int
    end: int
    """Where the section starts and ends in the output."""
    added: int
    removed: int
    body_lines: int
    """Hunk headers and lines."""
    binary: bool
    """git said "Binary files … differ"."""


_NO_NEWLINE = b"\n\\ No newline at end of file"
"""The one line of a hunk that is none of its lines. (Searched for whole: two bytes, `\n\\`,
take twice as long to find in 100 MB.)"""

_HUNK_HEAD = re.compile(rb"\n@@ -[0-9]+(?:,([0-9]+))? \+[0-9]+(?:,([0-9]+))? @@")


def _changed(data: bytearray, first_hunk: int, end: int, lines: int) -> tuple[int, int]:
    """The lines added and removed in the hunks from `first_hunk` to `end`, which come to `lines`
    with their headers. Each header says how many lines its hunk has on each side (context and
    removed on the old, context and added on the new), so that the headers alone give both
    counts: one search where counting the lines starting with + and with - took two over the
    whole patch, each twice as long (0.18 s for a patch of 1,000,000 changed lines). Headers that
    do not add up (a patch cut short, say) are not trusted: the lines are counted."""
    hunks = old = new = 0
    for old_count, new_count in _HUNK_HEAD.findall(data, first_hunk, end):
        hunks += 1
        old += int(old_count or 1)
        new += int(new_count or 1)
    body = lines - hunks
    added, removed = body - old, body - new
    if added < 0 or removed < 0 or old + new < body:
        start = first_hunk + 1
        return data.count(b"\n+", start, end), data.count(b"\n-", start, end)
    return added, removed


_STATUSES = {status.value: status for status in Status}


def _status(field_: str) -> Status:
    found = _STATUSES.get(field_[:1])
    if found is None:
        raise BrokenDiff(f"unknown file status '{visible(field_)}' in git diff output")
    return found


_RAW_RECORD = re.compile(rb":([0-7]{6} [0-7]{6}(?: [0-9a-f]{40}| [0-9a-f]{64}){2} ([A-Z])[0-9]{0,3})\0([^\0]*)\0")
"""A raw record as git writes it: two modes, two object ids (SHA-1, or SHA-256 in a repository
that uses it, as `--full-index` writes them) and a status letter, with the similarity of a rename
or copy; then its path (a rename or copy has a second). Anything else is no record of git's, and
is not shown (a mode is drawn in the file's header, a similarity read as a number). One pattern
for a record and its first path: 10,000 records took 60 ms read field by field, and take 36."""
_FS = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
"""How a path's bytes are decoded, as `os.fsdecode` decodes them."""


class _Output:
    """git's output a diff was read from: in memory when small; else the temporary file git wrote
    it to, which the diff's files read their parts back from (the file has no name, and is
    closed when the last of them is gone). Also where the hunks of its files are kept parsed.

    Given git still running, it is read as git writes it, a read waiting for what git has not
    written yet (`Running.written_past`), until `whole`."""

    def __init__(self, output: bytes | BinaryIO | Running, *, owned: bool = True) -> None:
        """`owned`: the file is closed (and git stopped) once this is gone."""
        self._data: bytes | None = None
        self._fd = -1
        self._closing: weakref.finalize[[], _Output] | None = None
        self._running: Running | None = None
        if isinstance(output, bytes):
            self._data = output
        elif isinstance(output, Running):
            self._running = output
            self._fd = output.output.fileno()
            if owned:
                self._closing = weakref.finalize(self, output.stop)
        elif os.fstat(output.fileno()).st_size <= IN_MEMORY_BYTES:
            with output:
                self._data = output.read()
        else:
            self._fd = output.fileno()
            self._closing = weakref.finalize(self, output.close)
        self.size = len(self._data) if self._data is not None else os.fstat(self._fd).st_size
        """Bytes of output; while git runs, those written so far."""
        self.parsed: RecentlyUsed[tuple[tuple[int, int], ...], list[Hunk]] = RecentlyUsed(
            PARSED_LINES, PARSED_FILES, lambda hunks: sum(1 + len(hunk.lines) for hunk in hunks)
        )

    def read(self, start: int, end: int, *, some: bool = False) -> bytes:
        """The bytes from `start` to `end` (fewer at the end of the output), waiting for git to
        write them while it runs; with `some`, only for the first of them.

        Raises:
            GitFailed: git, still running when the output was given, ended with a failure.
        """
        if self._data is not None:
            return self._data[start:end]
        parts: list[bytes] = []
        while start < end:
            # pread leaves the file's position alone: threads may read at the same time
            part = os.pread(self._fd, end - start, start)
            if part:
                parts.append(part)
                start += len(part)
                if some:
                    break
            elif self._running is None or not self._running.written_past(start):
                break
        return b"".join(parts)

    def whole(self, *, cut: bool = False) -> None:
        """Know the output whole: wait for git to end when it ran (with `cut`, stop it: what is
        wanted of its output is read), then read a small output into memory and close its file,
        as one given whole would be.

        Raises:
            GitFailed: git ended with a failure.
        """
        if self._running is None:
            return
        if cut:
            self._running.halt()
        else:
            self._running.wait()
        self._running = None
        self.size = os.fstat(self._fd).st_size
        if self.size <= IN_MEMORY_BYTES:
            data = self.read(0, self.size)
            self.close()
            self._data, self._fd = data, -1

    def close(self, *, after_git: bool = False) -> None:
        """Let go of the file, stopping git if it still runs; with `after_git`, wait for it to
        end instead, to raise its failure (GitFailed) if it failed."""
        try:
            if after_git and self._running is not None:
                self._running.wait()
        finally:
            if self._closing is not None:
                self._closing()


class _Reader:
    """Reads git's output from its start, a chunk at a time: the NUL-separated raw records, then
    each file's section of the patch. Only what is not yet read of a chunk and the section being
    read are held, never the whole output."""

    def __init__(self, output: _Output, *, eager: bool = False) -> None:
        """`eager`: a chunk read from git still running is what git has written so far, rather
        than a whole chunk (which waits for git to write it)."""
        self.output = output
        self.eager = eager
        self.data = bytearray()
        self.base = 0
        """Where `data` starts in the output."""
        self.pos = 0
        """Where reading is in `data`."""
        self.in_section = False
        """Whether `data` starts with a section of the patch (see `start_patch`)."""
        self.unmerged = False
        """Whether a raw record is of an unmerged file: only then may a section of the patch be
        one's (`* Unmerged path`), for `_next_start` to look for (a second search of the whole
        patch: 5 ms of 13 MB)."""

    def more(self) -> bool:
        """Read the next chunk onto `data`; False at the end of the output."""
        end = self.base + len(self.data)
        chunk = self.output.read(end, end + _CHUNK, some=self.eager)
        self.data += chunk
        return bool(chunk)

    def has(self, count: int) -> bool:
        """Whether `count` bytes from `pos` on are in `data`, reading on for them."""
        while len(self.data) - self.pos < count:
            if not self.more():
                return False
        return True

    def forget(self, index: int) -> None:
        """Let go of `data` before `index`."""
        del self.data[:index]
        self.base += index
        self.pos -= index

    def field(self) -> bytes:
        end = self.data.find(b"\0", self.pos)
        while end < 0:
            searched = len(self.data)
            if not self.more():
                raise BrokenDiff("git diff output ends in the middle of a record")
            end = self.data.find(b"\0", searched)
        value = bytes(self.data[self.pos : end])
        self.pos = end + 1
        return value

    def raw_records(self) -> list[Record]:
        records: list[Record] = []
        while self.has(1) and self.data.startswith(b":", self.pos):
            found = _RAW_RECORD.match(self.data, self.pos)
            if found is None:
                # a record is its fields and their two NULs: one cut by the chunk's end is read whole
                if self.data.count(b"\0", self.pos) >= 2:
                    raise BrokenDiff("git diff output has a malformed file record")
                if not self.more():
                    raise BrokenDiff("git diff output ends in the middle of a record")
                continue
            self.pos = found.end()
            self.unmerged = self.unmerged or found[2] == b"U"
            paths = (found[3], self.field()) if found[2] in (b"R", b"C") else (found[3],)
            old_mode, new_mode, old_blob, new_blob, status = found[1].decode("ascii").split(" ")
            records.append(((old_mode, new_mode, old_blob, new_blob, status), tuple(p.decode(*_FS) for p in paths)))
        return records

    def rest_is_blank(self) -> bool:
        """Whether nothing but NULs and newlines is left."""
        self.forget(self.pos)
        while not self.data.strip(b"\0\n"):
            self.forget(len(self.data))
            if not self.more():
                return True
        return False

    def start_patch(self) -> None:
        """Go to the first section of the patch, past the raw records and the NUL after them;
        from then on `data` starts where the next section does."""
        self.has(1 + _LONGEST_START)
        self.forget(min(self.pos + 1, len(self.data)))
        start = 0 if self.data.startswith(_SECTION_HEADS) else self._next_start(0)
        self.forget(len(self.data) if start is None else start)
        self.in_section = start is not None

    def section(self, digest: hashlib._Hash) -> _Section | None:
        """The next section, counted, its bytes given to `digest`; None after the last one."""
        if not self.in_section:
            return None
        end = self._next_start(1)
        self.in_section = end is not None
        end = len(self.data) if end is None else end
        data = self.data
        with memoryview(data) as view:
            digest.update(view[:end])
        first_hunk = data.find(b"\n@@ ", 0, end)  # as `hunk_text` finds it
        if first_hunk >= 0:
            start = first_hunk + 1
            lines = data.count(b"\n", start, end) + (data[end - 1] != ord("\n")) - data.count(_NO_NEWLINE, start, end)
            added, removed = _changed(data, first_hunk, end, lines)
            found = _Section(self.base, self.base + end, added=added, removed=removed, body_lines=lines, binary=False)
        else:
            binary = data.find(b"\nBinary files ", 0, end) >= 0
            found = _Section(self.base, self.base + end, added=0, removed=0, body_lines=0, binary=binary)
        self.forget(end)
        return found

    def _next_start(self, searched: int) -> int | None:
        """Where in `data` the next section starts, from `searched` on, reading on for it; None
        when none does before the end of the output."""
        data = self.data
        while True:
            # (two finds, not one search of a pattern with both: 16 ms of 105 for 13 MB of patch)
            found = data.find(_DIFF_START, searched)
            if self.unmerged:
                unmerged = data.find(_UNMERGED_START, searched, len(data) if found < 0 else found)
                if unmerged >= 0:
                    found = unmerged
            if found >= 0:
                return found + 1
            # a start cut by the chunk's end is found whole in the next search
            searched = max(searched, len(data) - _LONGEST_START)
            if not self.more():
                return None


_NOTHING = _Output(b"")
"""The output of a file whose patch git has not read yet."""
