"""Ways to break git's diff output, each a function of a seeded `random.Random` and the output.

Each mutation knows the shape of `git diff --raw --patch -z` output (the NUL-separated raw
records, then each file's section of the patch, then its lines) so that it breaks one part of it
while the rest still looks right: a parser that only guards against garbage is not let off.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

Mutation = Callable[[random.Random, bytes], bytes]

_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_SECTION_START = re.compile(rb"(?m)^(?=diff --git )")
_HEADER_LINE = re.compile(
    rb"(?m)^(?:diff --git |index |--- |\+\+\+ |new file mode |deleted file mode |old mode |new mode "
    rb"|similarity index |rename from |rename to |copy from |copy to |Binary files ).*\n"
)


def split_output(data: bytes) -> tuple[bytes, bytes]:
    """The raw records (through the NUL that ends the last) and the patch after them."""
    at = data.find(b"\0\0")
    if at < 0:
        return data, b""
    return data[: at + 2], data[at + 2 :]


def sections(patch: bytes) -> list[bytes]:
    """The patch cut where each file's section starts (anything before the first kept first)."""
    return [part for part in _SECTION_START.split(patch) if part]


def records(raw: bytes) -> list[list[bytes]]:
    """The raw records, each as its fields: the status field, then one or two paths."""
    fields = raw.rstrip(b"\0").split(b"\0")
    found: list[list[bytes]] = []
    for field in fields:
        if field.startswith(b":") or not found:
            found.append([field])
        else:
            found[-1].append(field)
    return found


def join_records(found: list[list[bytes]]) -> bytes:
    return b"".join(b"\0".join(record) + b"\0" for record in found) + b"\0"


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _pick_line(rng: random.Random, data: bytes, wanted: bytes = b"") -> tuple[list[bytes], int] | None:
    """The lines of the patch and the index of one (starting with one of `wanted`, if given)."""
    lines = _lines(data)
    choices = [i for i, line in enumerate(lines) if not wanted or line[:1] in wanted]
    if not choices:
        return None
    return lines, rng.choice(choices)


# -- the mutations -------------------------------------------------------------------------------


def truncated(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def wrong_hunk_counts(rng: random.Random, data: bytes) -> bytes:
    matches = list(_HUNK_HEADER.finditer(data))
    if not matches:
        return data
    match = rng.choice(matches)
    numbers = [int(group) if group is not None else 1 for group in match.groups()]
    which = rng.randrange(4)
    numbers[which] = rng.choice(
        [0, 1, max(0, numbers[which] - 1), numbers[which] + 1, numbers[which] * 3, 10**9, 10**40]
    )
    header = b"@@ -%d,%d +%d,%d @@" % tuple(numbers)
    if rng.random() < 0.2:
        header = rng.choice([b"@@ -x,1 +1 @@", b"@@ -1,-1 +1,1 @@", b"@@ @@", b"@@@ -1,1 -1,1 +1,1 @@@", b"@@ -1 +1"])
    return data[: match.start()] + header + data[match.end() :]


def shuffled_sections(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    parts = sections(patch)
    rng.shuffle(parts)
    return raw + b"".join(parts)


def duplicated_section(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    parts = sections(patch)
    if not parts:
        return data
    at = rng.randrange(len(parts))
    parts.insert(rng.randrange(len(parts) + 1), parts[at])
    return raw + b"".join(parts)


def dropped_section(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    parts = sections(patch)
    if not parts:
        return data
    del parts[rng.randrange(len(parts))]
    return raw + b"".join(parts)


def shuffled_lines(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    lines = _lines(patch)
    start = rng.randrange(len(lines))
    window = lines[start : start + rng.randint(2, 12)]
    rng.shuffle(window)
    lines[start : start + len(window)] = window
    return raw + b"\n".join(lines)


def duplicated_lines(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    lines = _lines(patch)
    start = rng.randrange(len(lines))
    lines[start:start] = lines[start : start + rng.randint(1, 5)]
    return raw + b"\n".join(lines)


def dropped_lines(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    lines = _lines(patch)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.randint(1, 5)]
    return raw + b"\n".join(lines)


def binary_garbage(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.randbytes(rng.randint(1, 600)) + data[at:]


def long_line(rng: random.Random, data: bytes) -> bytes:
    picked = _pick_line(rng, data, b" +-")
    if picked is None:
        return data
    lines, at = picked
    # a megabyte now and then: each costs the layout a good part of a second
    length = 1_000_000 if rng.random() < 0.03 else rng.choice([2_000, 20_000, 100_000])
    filler = rng.choice([b"x", b"\t", b"\xe7\x95\x8c", b"ab \x1b[31m", b"\xff"])
    lines[at] = lines[at][:1] + filler * (length // len(filler))
    return b"\n".join(lines)


_ENCODED = [
    "caf\xe9 na\xefve".encode("latin-1"),
    "hello wörld".encode("utf-16"),
    "hello".encode("utf-16-le"),
    b"\xed\xa0\x80 lone surrogate",
    b"\xed\xb2\x80",
    b"\xc0\xaf overlong",
    b"\xf4\x90\x80\x80 beyond unicode",
    b"\xe2\x80",
    "\u201csmart\u201d".encode("cp1252"),
    "日本語".encode("shift_jis"),
    "\u202egnp.exe".encode(),
]


def mixed_encodings(rng: random.Random, data: bytes) -> bytes:
    picked = _pick_line(rng, data)
    if picked is None:
        return data
    lines, at = picked
    line = lines[at]
    cut = rng.randrange(len(line) + 1)
    lines[at] = line[:cut] + rng.choice(_ENCODED) + line[cut:]
    return b"\n".join(lines)


def nul_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(out) + 1)
        out[at:at] = b"\0" * rng.randint(1, 3)
    return bytes(out)


def carriage_returns(rng: random.Random, data: bytes) -> bytes:
    way = rng.randrange(3)
    if way == 0:
        return data.replace(b"\n", b"\r\n")
    if way == 1:
        return data.replace(b"\n", b"\r")
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(out) + 1)
        out[at:at] = b"\r"
    return bytes(out)


def removed_header(rng: random.Random, data: bytes) -> bytes:
    matches = list(_HEADER_LINE.finditer(data))
    if not matches:
        return data
    match = rng.choice(matches)
    return data[: match.start()] + data[match.end() :]


def doubled_header(rng: random.Random, data: bytes) -> bytes:
    matches = list(_HEADER_LINE.finditer(data))
    if not matches:
        return data
    match = rng.choice(matches)
    return data[: match.end()] + match.group() + data[match.end() :]


_STATUSES = [
    b"A",
    b"M",
    b"D",
    b"R",
    b"C",
    b"T",
    b"U",
    b"X",
    b"B",
    b"Z",
    b"",
    b"R",
    b"Rxx",
    b"C-5",
    b"R999",
    b"R100",
    b"M\xff",
]


def bad_records(rng: random.Random, data: bytes) -> bytes:
    """Raw records that do not match the patches: one dropped, doubled or swapped, a wrong
    status, mode or blob, a missing or extra path, a bad separator."""
    raw, patch = split_output(data)
    found = records(raw)
    if not found:
        return data
    at = rng.randrange(len(found))
    way = rng.randrange(8)
    if way == 0:
        del found[at]
    elif way == 1:
        found.insert(at, list(found[at]))
    elif way == 2:
        other = rng.randrange(len(found))
        found[at], found[other] = found[other], found[at]
    elif way in (3, 4):
        meta = found[at][0].split(b" ")
        if len(meta) == 5:
            if way == 3:
                meta[4] = rng.choice(_STATUSES)
            else:
                field = rng.randrange(4)
                meta[field] = rng.choice([b"", b"zzzzzz", b"12345678", b"0" * 40, b"\xff" * 6, meta[field] * 2])
        else:
            meta.append(b"extra")
        found[at][0] = b" ".join(meta)
    elif way == 5:
        if len(found[at]) > 1:
            del found[at][-1]
    elif way == 6:
        found[at].append(rng.choice([b"extra/path", b"", b":not a record"]))
    else:
        joined = join_records(found)
        return joined.rstrip(b"\0") + rng.choice([b"", b"\0\0\0", b"\n"]) + patch
    return join_records(found) + patch


def no_newline_markers(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    lines = _lines(patch)
    for _ in range(rng.randint(1, 4)):
        lines.insert(rng.randrange(len(lines) + 1), b"\\ No newline at end of file")
    return raw + b"\n".join(lines)


def line_kinds(rng: random.Random, data: bytes) -> bytes:
    """A hunk line's first character changed: to another kind, a header's, or none at all."""
    picked = _pick_line(rng, data, b" +-\\@")
    if picked is None:
        return data
    lines, at = picked
    lines[at] = rng.choice([b"+", b"-", b" ", b"@", b"\\", b"#", b"x", b"", b"\t", b"@@ "]) + lines[at][1:]
    return b"\n".join(lines)


def flipped_bytes(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def emptied(rng: random.Random, data: bytes) -> bytes:
    raw, patch = split_output(data)
    return rng.choice([b"", b"\0", b"\0\0\n\n", raw, raw.rstrip(b"\0"), patch, b"\n" * 5, b":", b"\0" + patch])


MUTATIONS: dict[str, Mutation] = {
    "truncated": truncated,
    "wrong hunk counts": wrong_hunk_counts,
    "shuffled sections": shuffled_sections,
    "duplicated section": duplicated_section,
    "dropped section": dropped_section,
    "shuffled lines": shuffled_lines,
    "duplicated lines": duplicated_lines,
    "dropped lines": dropped_lines,
    "binary garbage": binary_garbage,
    "very long line": long_line,
    "mixed encodings": mixed_encodings,
    "NUL bytes": nul_bytes,
    "carriage returns": carriage_returns,
    "removed header": removed_header,
    "doubled header": doubled_header,
    "raw records not matching": bad_records,
    "no-newline markers": no_newline_markers,
    "line kinds": line_kinds,
    "flipped bytes": flipped_bytes,
    "emptied": emptied,
}
"""Every mutation by the name the report gives it."""


def mutate(rng: random.Random, data: bytes) -> tuple[bytes, list[str]]:
    """`data` broken by one to three mutations chosen at random; their names, in order."""
    names = rng.choices(list(MUTATIONS), k=rng.choice([1, 1, 1, 2, 3]))
    for name in names:
        data = MUTATIONS[name](rng, data)
    return data, names
