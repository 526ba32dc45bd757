"""The syntax colours of the first screen, remembered between runs in the user's cache folder, so
that the viewer opened again draws its first screen without compiling a lexer first.

Compiling a Pygments lexer's rules takes 20 ms (Python's own regular expression compiler), a
sixth of what the viewer adds to Textual's start. The colours of a text depend only on the file's
name, the text and Pygments, which is what they are remembered by (`review.repo.highlight`): the
lexer is compiled once the first screen is drawn, for the screens after it. It is a cache: a file
that cannot be read or written is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from review.repo import highlight
from review.repo.git import Worktree
from review.state.files import user_cache_file, write_cache

_SCHEMA = 1


def cache_file(worktree: Worktree) -> Path:
    """Where the colours of `worktree`'s first screen are remembered."""
    return user_cache_file("colours", worktree.root)


def load(worktree: Worktree) -> bool:
    """Recall the colours remembered for `worktree` (before the first screen is drawn); whether
    there were any."""
    try:
        data = json.loads(cache_file(worktree).read_bytes())
        if isinstance(data, dict) and data.get("schema") == _SCHEMA:
            highlight.recall(data["colours"])
            return bool(data["colours"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return False


def save(worktree: Worktree) -> None:
    """Remember the colours made first in this run (the first screen's), in place of those
    remembered before."""
    made = highlight.made()
    if made:
        write_cache(cache_file(worktree), json.dumps({"schema": _SCHEMA, "colours": made}).encode())
