"""The outcomes of trial merges, remembered between runs in the user's cache folder.

A snapshot of the same work is always the same commit (`repo.merge.snapshot_commits`), so the
outcome of merging two snapshots is known by their two commit ids for good. Opening the overview
again, or `review status` run by a script every few seconds, merges only the pairs whose work
changed since. It is a cache: a file that cannot be read or written is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from review.repo.merge import Merge
from review.state.files import user_cache_file, write_cache

_SCHEMA = 1


def cache_file(common_dir: Path) -> Path:
    """Where the merges of the repository whose git folder is `common_dir` are remembered."""
    return user_cache_file("merges", common_dir)


def load(path: Path) -> dict[tuple[str, str], Merge]:
    """The merges remembered in `path`, without their trees (`Merge.tree` is "")."""
    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or data.get("schema") != _SCHEMA:
            return {}
        found = {}
        for key, (clean, files) in data["merges"].items():
            ours, theirs = key.split(" ")
            found[(ours, theirs)] = Merge(ours, theirs, clean=bool(clean), tree="", conflict_files=list(files))
        return found
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # AttributeError: "merges" not an object
        return {}


def save(path: Path, merges: dict[tuple[str, str], Merge]) -> None:
    """Remember these merges (those git could merge) in `path`, in place of what it held."""
    kept = {f"{m.ours} {m.theirs}": [m.clean, m.conflict_files] for m in merges.values() if m.tree is not None}
    write_cache(path, json.dumps({"schema": _SCHEMA, "merges": kept}).encode())
