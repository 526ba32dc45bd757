"""Text from a repository is untrusted: make it inert before it reaches a terminal.

File names and contents may hold escape sequences that would recolour, move the cursor or retitle
the reviewer's terminal, and bidirectional controls that make code read differently from how it
runs. Every such character is replaced by a visible stand-in.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls except tab (which the view expands), DEL, C1 controls, bidirectional overrides and
# isolates, and the line and paragraph separators that some terminals treat as newlines.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _stand_in(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with every control character shown as a harmless stand-in (ESC becomes `^[`).

    Undecodable bytes carried as surrogates (from `os.fsdecode`) become `\\xNN`.
    """
    if _has_surrogates(text):
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _UNSAFE.sub(_stand_in, text)


# What `json.dumps` leaves as it is although a terminal acts on it (it escapes C0 controls itself),
# and lone surrogates (undecodable bytes of a file name), which cannot be written as UTF-8.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def inert_json(value: Any) -> str:
    """`value` as indented JSON that is safe to print: every character a terminal would act on is
    written as a `\\uXXXX` escape, which a JSON reader turns back into the same text.

    Other text stays as it is (not `\\u`-escaped), so the JSON reads well in any language.
    """
    text = json.dumps(value, indent=2, ensure_ascii=False)
    # Outside its strings JSON is plain ASCII, so each match is inside a string and may be escaped.
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def decode(data: bytes) -> tuple[str, bool]:
    """Bytes from git as text, and whether they were valid UTF-8.

    Invalid bytes are kept as `\\xNN` so that nothing is lost from view and nothing raises.
    """
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", "backslashreplace"), False
