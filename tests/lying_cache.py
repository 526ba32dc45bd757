"""A cache of counts made to lie (`review.state.counted`): what a file's diff came to, as the
next opening takes it, in the counts by key and in the diff remembered whole."""

from __future__ import annotations

import json

from conftest import Repo
from review.repo import git
from review.state import counted


def lie(agent: Repo, path: str, added: int) -> None:
    """Make the caches of `agent`'s diff say `path` added `added` lines."""
    counts = counted.cache_file(git.find_worktree(agent.root))
    data = json.loads(counts.read_bytes())
    (key,) = [key for key in data["files"] if key.split("\0")[1:-1] == [path]]
    data["files"][key][0] = added
    counts.write_text(json.dumps(data))
    worktree = git.find_worktree(agent.root)
    listing = counted.remembered_listing(worktree)
    if listing is not None:
        made_of, summaries = listing
        files = [list(summary) for summary in summaries]
        (summary,) = [summary for summary in files if summary[0] == path]
        summary[8] = added  # after the path, old path, status, modes, blobs and similarity
        counted.remember_listing(worktree, made_of, files)
