"""Text from a repository is untrusted: make it inert before it reaches a terminal.

File names and contents may hold escape sequences that would recolour, move the cursor or retitle
the reviewer's terminal, and bidirectional controls that make code read differently from how it
runs. Every such character is replaced by a visible stand-in.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Invisible format characters: bidirectional marks, overrides and isolates (code that reads
# differently from how it runs), and the zero-width ones (a soft hyphen, zero-width spaces and
# joiners, word joiners, a byte order mark, Unicode tags that smuggle text to a language model
# unseen), which hide a difference between two lines or inside a name. Also the Hangul fillers,
# blank letters that make an identifier no one sees (and that Rich and terminals give different
# widths, so a row holding one was drawn out of place).
_INVISIBLE = (
    "\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff"
    "\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
)

# C0 controls except tab (which code keeps, for the view to expand), DEL, C1 controls, the
# invisible characters, and the line and paragraph separators that some terminals treat as newlines.
_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
# The same and tab: in a name or a label, drawn as it is, a tab moves the terminal's cursor to its
# next tab stop, past cells the widget measured as the tab's zero width.
_UNSAFE_IN_A_LABEL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")


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


def visible(text: str, *, keep_tabs: bool = False) -> str:
    """`text` with every control character shown as a harmless stand-in (ESC becomes `^[`, a tab
    `^I`).

    `keep_tabs` leaves tabs for the caller to expand into spaces, as code is drawn. Undecodable
    bytes carried as surrogates (from `os.fsdecode`) become `\\xNN`.
    """
    if text.isascii() and text.isprintable():
        return text  # most text, and none of it to stand in for: no search needed
    if _has_surrogates(text):
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return (_UNSAFE if keep_tabs else _UNSAFE_IN_A_LABEL).sub(_stand_in, text)


# What `json.dumps` leaves as it is although a terminal acts on it (it escapes C0 controls itself),
# and lone surrogates (undecodable bytes of a file name), which cannot be written as UTF-8.
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f\u2028\u2029{_INVISIBLE}\ud800-\udfff]")


def inert_json(value: Any) -> str:
    """`value` as indented JSON that is safe to print: every character a terminal would act on is
    written as a `\\uXXXX` escape, which a JSON reader turns back into the same text.

    Other text stays as it is (not `\\u`-escaped), so the JSON reads well in any language.
    """
    text = json.dumps(value, indent=2, ensure_ascii=False)
    # Outside its strings JSON is plain ASCII, so each match is inside a string and may be escaped.
    return _UNSAFE_IN_JSON.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    # A character beyond U+FFFF (a Unicode tag) is written as its UTF-16 surrogate pair, as JSON has it.
    units = match.group().encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))


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
