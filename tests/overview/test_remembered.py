"""The remembered merges are only a cache: whatever the file holds, reading it never fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from review.overview import remembered
from review.repo.merge import Merge


def test_merges_saved_are_loaded_without_their_trees(tmp_path: Path) -> None:
    path = tmp_path / "merges.json"
    merges = {
        ("a", "b"): Merge("a", "b", clean=True, tree="t1", conflict_files=[]),
        ("a", "c"): Merge("a", "c", clean=False, tree="t2", conflict_files=["x.py"]),
    }
    remembered.save(path, merges)
    assert remembered.load(path) == {
        ("a", "b"): Merge("a", "b", clean=True, tree="", conflict_files=[]),
        ("a", "c"): Merge("a", "c", clean=False, tree="", conflict_files=["x.py"]),
    }


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe not json",
        b"[1, 2]",
        b'"text"',
        b"null",
        b'{"schema": 2, "merges": {}}',
        b'{"schema": 1}',
        b'{"schema": 1, "merges": [1, 2]}',
        b'{"schema": 1, "merges": {"one-key-only": [true, []]}}',
        b'{"schema": 1, "merges": {"a b": 7}}',
    ],
)
def test_a_cache_that_holds_anything_else_is_read_as_empty(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "merges.json"
    path.write_bytes(content)
    assert remembered.load(path) == {}


def test_a_missing_cache_is_read_as_empty(tmp_path: Path) -> None:
    assert remembered.load(tmp_path / "none.json") == {}
