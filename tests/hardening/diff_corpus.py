"""Real diffs to fuzz from: git's own output for generated repositories, taken exactly as the
viewer asks git for it (`scope.resolve`, then `git.diff_output` with the same sides and options).

One repository holds every kind of change the model knows (added, deleted, renamed, copied, mode
and type changes, binary, CRLF, no final newline, not UTF-8, odd names, several hunks, empty and
long lines), committed on an agent's branch, staged, unstaged and untracked; the corpus is its
diff in each scope and with several amounts of context.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from review.repo import git, scope
from review.repo.scope import Scope

_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_DATE": "2026-01-01T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T12:00:00+00:00",
}
_CONFIG = "[user]\n\tname = Fuzz\n\temail = fuzz@example.com\n[init]\n\tdefaultBranch = main\n"


def isolated_env(home: Path) -> dict[str, str]:
    """The environment git runs in for the corpus: the machine's configuration left out, dates
    fixed, as `tests/conftest.py` sets it for each test (the corpus is made once a module)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(_CONFIG)
    return {**_ENV, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _write(root: Path, name: str | bytes, content: bytes) -> None:
    path = root / os.fsdecode(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def _numbered(count: int, label: str = "line") -> bytes:
    return b"".join(b"%s %d\n" % (label.encode(), n) for n in range(1, count + 1))


def build_repository(root: Path) -> Path:
    """A repository on main with an agent's worktree beside it whose work is every kind of
    change; returns the agent's worktree. Needs the environment of `isolated_env`."""
    root.mkdir(parents=True)
    _git(root, "init", "--quiet")
    _write(root, "src/app.py", _numbered(80, "value"))
    _write(root, "src/copied_from.py", b"def source():\n" + _numbered(30, "    step"))
    _write(root, "src/renamed.py", _numbered(40, "stay"))
    _write(root, "src/renamed_edited.py", _numbered(40, "move"))
    _write(root, "src/gone.py", _numbered(12, "bye"))
    _write(root, "src/dos.txt", b"one\r\ntwo\r\nthree\r\n")
    _write(root, "src/no_newline.txt", b"first\nlast")
    _write(root, "src/latin1.txt", "caf\xe9\nna\xefve\n".encode("latin-1"))
    _write(root, "src/run.sh", b"#!/bin/sh\necho hi\n")
    _write(root, "src/link_target.txt", b"a file that becomes a symlink\n")
    _write(root, "assets/image.bin", bytes(range(256)) * 4)
    _write(root, "with space/tab\there é.txt", b"odd name\n")
    _write(root, "README.md", b"# project\n")
    _git(root, "add", "--all")
    _git(root, "commit", "--quiet", "-m", "initial")

    agent = root.parent / "agent"
    _git(root, "worktree", "add", "--quiet", "-b", "agent/work", str(agent), "main")
    # committed on the agent's branch
    app = [b"value %d\n" % n for n in range(1, 81)]
    for n in (3, 20, 41, 77):
        app[n - 1] = b"value %d * 2  # doubled\n" % n
    _write(agent, "src/app.py", b"".join(app))
    _git(agent, "mv", "src/renamed.py", "src/renamed_to.py")
    _git(agent, "mv", "src/renamed_edited.py", "src/renamed_edited_to.py")
    _write(agent, "src/renamed_edited_to.py", _numbered(40, "move").replace(b"move 20\n", b"moved twenty\n"))
    _git(agent, "rm", "--quiet", "src/gone.py")
    _write(agent, "assets/image.bin", bytes(range(255, -1, -1)) * 4)
    _git(agent, "add", "--all")
    _git(agent, "commit", "--quiet", "-m", "agent's first commit")
    # staged
    _write(agent, "src/copy.py", b"def source():\n" + _numbered(30, "    step") + b"    extra\n")
    _write(agent, "src/copied_from.py", b"def source():\n" + _numbered(30, "    step").replace(b"step 7", b"STEP 7"))
    _write(agent, "src/dos.txt", b"one\r\nTWO\r\nthree\r\n")
    os.chmod(agent / "src/run.sh", 0o755)
    _git(agent, "add", "--all")
    # unstaged
    _write(agent, "src/no_newline.txt", b"first\nlast, still no newline")
    _write(agent, "src/latin1.txt", "caf\xe9\nna\xefve\nd\xe9j\xe0\n".encode("latin-1"))
    (agent / "src/link_target.txt").unlink()
    os.symlink("app.py", agent / "src/link_target.txt")
    _write(agent, "with space/tab\there é.txt", b"odd name, edited\n")
    # untracked
    _write(agent, "notes/new.md", b"# New\n\n" + _numbered(25, "note"))
    _write(agent, "notes/empty.txt", b"")
    _write(agent, "notes/long.txt", b"start " + b"x" * 5_000 + b" end\n")
    _write(agent, "notes/esc\x1b[31mred.txt", b"\x1b]0;title\x07 and \xe2\x80\xae reversed\n")
    _write(agent, b"notes/caf\xe9.bin", b"\x00\x01\x02binary")
    _write(agent, "notes/utf16.txt", "hello\nwörld\n".encode("utf-16"))
    return agent


def diffs(agent: Path) -> list[bytes]:
    """The agent's diff in every scope the viewer offers, and with the context `z` asks for."""
    worktree = git.find_worktree(agent)
    found: list[bytes] = []
    # (--base main is the default scope here, --since-review a snapshot's diff with the working tree)
    for chosen in (Scope(), Scope(staged=True), Scope(range="main..agent/work")):
        sides = scope.resolve(worktree, chosen)
        for context in (None, 0, 1, 10):
            found.append(
                git.diff_output(
                    worktree, sides.old, sides.new, cached=sides.cached, untracked=sides.untracked, context=context
                )
            )
    return found
