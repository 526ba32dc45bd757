"""Repository text made inert before it reaches a terminal: `review.repo.text`."""

from __future__ import annotations

import json
import os

from review.repo.text import decode, inert_json, visible


def test_plain_text_is_left_alone_and_tabs_when_asked() -> None:
    assert visible("x = 1 änd 名前") == "x = 1 änd 名前"
    assert visible("x = 1\tänd 名前", keep_tabs=True) == "x = 1\tänd 名前"


def test_an_escape_sequence_is_shown_not_run() -> None:
    assert visible("\x1b[31mred\x1b[0m") == "^[[31mred^[[0m"


def test_c0_controls_and_newlines_become_caret_letters() -> None:
    assert visible("a\x00b\x07c\nd\re") == "a^@b^Gc^Jd^Me"


def test_del_becomes_caret_question_mark() -> None:
    assert visible("a\x7fb") == "a^?b"


def test_c1_controls_become_hex_escapes() -> None:
    assert visible("\x80\x9b\x9f") == "\\x80\\x9b\\x9f"


def test_bidi_overrides_and_embeddings_are_named() -> None:
    assert visible("".join(chr(code) for code in range(0x202A, 0x202F))) == ("<U+202A><U+202B><U+202C><U+202D><U+202E>")


def test_bidi_isolates_are_named() -> None:
    assert visible("".join(chr(code) for code in range(0x2066, 0x206A))) == "<U+2066><U+2067><U+2068><U+2069>"


def test_line_and_paragraph_separators_are_named() -> None:
    assert visible("a\u2028b\u2029c") == "a<U+2028>b<U+2029>c"


def test_undecodable_bytes_of_a_file_name_become_hex_escapes() -> None:
    assert visible(os.fsdecode(b"caf\xe9.py")) == "caf\\xe9.py"


def test_decode_of_utf8_says_it_was_valid() -> None:
    assert decode("café".encode()) == ("café", True)


def test_decode_keeps_invalid_bytes_as_hex_escapes() -> None:
    assert decode(b"caf\xe9 \xff") == ("caf\\xe9 \\xff", False)


def test_decoded_control_characters_are_left_for_visible_to_show() -> None:
    text, valid = decode(b"\x1b[2J")
    assert (visible(text), valid) == ("^[[2J", True)


def test_inert_json_escapes_what_a_terminal_acts_on_and_reads_back_the_same() -> None:
    value = {"code": "x\x1b[2J\x9b\u202e" + os.fsdecode(b"\xe9"), "name": "café 名前"}
    text = inert_json(value)
    assert not any(char in text for char in "\x1b\x9b\u202e")
    assert "café 名前" in text
    assert json.loads(text) == value
