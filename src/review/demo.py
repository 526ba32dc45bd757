"""`review demo`: a small real project with three agents at work in their own worktrees.

The repository `tally` (a ledger of expenses) has a few commits on main. Each agent's worktree has
what agents leave behind: commits on its branch, staged, unstaged and untracked work, a new file, a
rename and a deletion. The currency and csv-export agents both rewrite `total()` in
`tally/ledger.py`, so merging both would conflict; the overview's radar shows it. Two agents have
finished (their hooks said so in `.review/agent.json`) and one is still at work. Everything is made locally, with fixed dates,
so two demos are identical.

The project's files are package data, in `review/demo_files/`, one folder per writer: `main/` holds
the files of main's three commits, and `currency/`, `csv-export/` and `cleanup/` the whole files
each agent writes. Below a writer's folder, a file sits at the path it gets in the demo
(`demo_files/currency/tally/currency.py` becomes `tally/currency.py` in `tally-currency`). They
are copied byte for byte; the agents' small edits to existing files stay here, in code.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from review.agents import activity
from review.errors import ReviewError
from review.repo.git import run_git

# The user's git configuration must not sign, hook or rename anything in the demo.
_CONFIG = ("-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "init.defaultBranch=main")

# The project's files, one folder per writer: main, then each agent by name.
_FILES = resources.files("review") / "demo_files"


@dataclass(frozen=True)
class Demo:
    """Where a demo was made."""

    folder: Path
    repository: Path
    """The main worktree, on branch main."""
    agents: dict[str, Path]
    """Each agent's worktree by task name."""


_MAIN_HISTORY = [
    (
        "Start tally: entries and totals",
        ["README.md", "pyproject.toml", "tally/__init__.py", "tally/ledger.py", "tests/test_ledger.py"],
    ),
    ("Add the monthly report", ["tally/format.py", "tally/report.py", "tests/test_report.py"]),
    ("Add the tally command", ["tally/cli.py", "tally/legacy.py", "docs/usage.md"]),
]


def create(folder: Path | None = None) -> Demo:
    """Make the demo in `folder` (a new temporary folder when None).

    Raises:
        ReviewError: `folder` exists and is not empty.
    """
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="review-demo-"))
    folder = folder.expanduser().resolve()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ReviewError(f"{folder} already exists and is not empty; give a new folder")
    folder.mkdir(parents=True, exist_ok=True)
    repo = folder / "tally"
    repo.mkdir()
    clock = itertools.count()
    builder = _Builder(repo, clock, files="main")
    builder.git("init", "--quiet")
    for message, paths in _MAIN_HISTORY:
        for path in paths:
            builder.write(path)
        builder.commit(message, paths)

    agents: dict[str, Path] = {}
    for name, build, harness, state in _agents():
        worktree = folder / f"tally-{name}"
        builder.git("worktree", "add", "--quiet", "-b", f"agent/{name}", str(worktree), "main")
        build(_Builder(worktree, clock, files=name, author="Agent"))
        # What the agents' hooks would have said: two have finished and wait, one is at work.
        activity.record(worktree, state, harness, "demo")
        agents[name] = worktree
    return Demo(folder=folder, repository=repo, agents=agents)


class _Builder:
    """Writes files and commits in one worktree, at fixed times, whoever runs it.

    `files` names the folder of `demo_files` its whole files come from.
    """

    def __init__(self, root: Path, clock: Iterator[int], files: str, author: str = "Dana Reviewer") -> None:
        self.root = root
        self.clock = clock
        self.files = files
        self.author = author

    def env(self) -> dict[str, str]:
        hour = next(self.clock)
        stamp = f"2026-03-{1 + hour // 24:02d}T{hour % 24:02d}:00:00+00:00"
        email = f"{self.author.split()[0].lower()}@example.com"
        return {
            "GIT_AUTHOR_NAME": self.author,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": self.author,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
        }

    def git(self, *args: str) -> None:
        run_git(self.root, *_CONFIG, *args, env=self.env())

    def write(self, path: str) -> None:
        """Copy `path` from this writer's folder of `demo_files`, byte for byte."""
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_FILES.joinpath(self.files, *path.split("/")).read_bytes())

    def edit(self, path: str, old: str, new: str) -> None:
        target = self.root / path
        text = target.read_text(encoding="utf-8")
        if old not in text:
            raise AssertionError(f"demo edit does not apply to {path}: {old!r}")
        target.write_text(text.replace(old, new, 1), encoding="utf-8")

    def commit(self, message: str, paths: list[str]) -> None:
        if paths:
            self.git("add", "--", *paths)
        self.git("commit", "--quiet", "-m", message)

    def stage(self, *paths: str) -> None:
        self.git("add", "--", *paths)


def _currency(agent: _Builder) -> None:
    agent.edit(
        "tally/ledger.py",
        "from dataclasses import dataclass\nfrom datetime import date\n",
        "from dataclasses import dataclass\nfrom datetime import date\n\nfrom tally.currency import convert\n",
    )
    agent.edit("tally/ledger.py", '    note: str = ""\n', '    note: str = ""\n    currency: str = "EUR"\n')
    agent.edit(
        "tally/ledger.py",
        '''def total(entries):
    """The sum of all entries' amounts."""
    return sum(entry.amount for entry in entries)
''',
        '''def total(entries, currency="EUR"):
    """The sum of all entries' amounts, converted to `currency`."""
    return sum(convert(entry.amount, entry.currency, currency) for entry in entries)
''',
    )
    agent.write("tally/currency.py")
    agent.commit("Entries carry a currency; totals convert", ["tally/ledger.py", "tally/currency.py"])
    agent.git("mv", "tests/test_ledger.py", "tests/test_entries.py")
    agent.edit(
        "tests/test_entries.py",
        "def test_total_adds_every_amount():\n",
        "def test_total_adds_every_amount_in_euros():\n",
    )
    agent.commit("Name the entry tests after what they test", ["tests/test_entries.py"])
    agent.write("tests/test_currency.py")
    agent.stage("tests/test_currency.py")
    agent.edit(
        "tally/report.py",
        "    lines.append(f\"{'total':<16} {money(whole):>12}\")\n",
        "    lines.append(f\"{'total':<16} {money(whole):>12} EUR\")\n",
    )
    (agent.root / "tally/legacy.py").unlink()
    agent.write("tally/rates.json")


def _csv_export(agent: _Builder) -> None:
    agent.edit(
        "tally/ledger.py",
        '''def total(entries):
    """The sum of all entries' amounts."""
    return sum(entry.amount for entry in entries)
''',
        '''def total(entries, category=None):
    """The sum of the entries' amounts, of one category when `category` is given."""
    return sum(entry.amount for entry in entries if category in (None, entry.category))
''',
    )
    agent.commit("Totals of one category", ["tally/ledger.py"])
    agent.write("tally/export.py")
    agent.git("mv", "tally/format.py", "tally/formatting.py")
    agent.edit(
        "tally/report.py", "from tally.format import money, percent\n", "from tally.formatting import money, percent\n"
    )
    agent.commit("Add CSV export; format.py becomes formatting.py", ["tally/export.py", "tally/report.py"])
    agent.edit(
        "tally/cli.py",
        '    report.add_argument("month", help="YYYY-MM")\n',
        '    report.add_argument("month", help="YYYY-MM")\n    verbs.add_parser("export")\n',
    )
    agent.edit(
        "tally/cli.py",
        "    else:\n        year, month",
        '    elif args.verb == "export":\n        print(to_csv(entries), end="")\n    else:\n        year, month',
    )
    agent.edit(
        "tally/cli.py",
        "from tally.ledger import Entry\n",
        "from tally.export import to_csv\nfrom tally.ledger import Entry\n",
    )
    agent.stage("tally/cli.py")
    agent.git("rm", "--quiet", "docs/usage.md")
    agent.edit("README.md", "tally report 2026-03\n", "tally report 2026-03\ntally export > ledger.csv\n")
    agent.write("tests/test_export.py")


def _cleanup(agent: _Builder) -> None:
    agent.edit(
        "tally/report.py",
        "def monthly_report(entries, year, month):\n",
        "def monthly_report(entries: list, year: int, month: int) -> list[str]:\n",
    )
    agent.edit("tally/format.py", "def money(amount):\n", "def money(amount: float) -> str:\n")
    agent.commit("Type hints on the report", ["tally/report.py", "tally/format.py"])
    agent.git("rm", "--quiet", "tally/legacy.py")
    agent.commit("Remove the unused spreadsheet import", [])
    agent.git("mv", "docs/usage.md", "docs/guide.md")
    agent.edit(
        "tally/cli.py",
        "def load():\n",
        'def load():\n    """The saved entries, or none when nothing was saved yet."""\n',
    )
    os.chmod(agent.root / "tally/cli.py", 0o755)
    agent.write("tally/py.typed")
    agent.write("NOTES.md")


def _agents() -> list[tuple[str, Callable[[_Builder], None], str, activity.State]]:
    """Each agent: its task, its work, the harness it runs in and what its hooks last said."""
    return [
        ("currency", _currency, "claude", "idle"),
        ("csv-export", _csv_export, "codex", "working"),
        ("cleanup", _cleanup, "claude", "idle"),
    ]
