"""`review demo`: a small real project with three agents at work in their own worktrees.

The repository `tally` (a ledger of expenses) has a few commits on main. Each agent's worktree has
what agents leave behind: commits on its branch, staged, unstaged and untracked work, a new file, a
rename and a deletion. The currency and csv-export agents both rewrite `total()` in
`tally/ledger.py`, so merging both would conflict. Everything is made locally, with fixed dates,
so two demos are identical.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent

from review.errors import ReviewError
from review.repo.git import run_git

# The user's git configuration must not sign, hook or rename anything in the demo.
_CONFIG = ("-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "init.defaultBranch=main")


@dataclass(frozen=True)
class Demo:
    """Where a demo was made."""

    folder: Path
    repository: Path
    """The main worktree, on branch main."""
    agents: dict[str, Path]
    """Each agent's worktree by task name."""


def _text(source: str) -> str:
    return dedent(source).lstrip("\n")


MAIN_FILES = {
    "README.md": _text(
        """
        # tally

        A small ledger of expenses: record what you spend, see where it went.

        ```
        tally add 12.50 groceries "market"
        tally report 2026-03
        ```
        """
    ),
    "pyproject.toml": _text(
        """
        [project]
        name = "tally"
        version = "0.3.0"
        requires-python = ">=3.11"

        [project.scripts]
        tally = "tally.cli:main"
        """
    ),
    "tally/__init__.py": '"""tally: a small ledger of expenses."""\n\n__version__ = "0.3.0"\n',
    "tally/ledger.py": _text(
        '''
        """Entries of the ledger and the sums over them."""

        from dataclasses import dataclass
        from datetime import date


        @dataclass(frozen=True)
        class Entry:
            """One expense."""

            day: date
            amount: float
            category: str
            note: str = ""


        def total(entries):
            """The sum of all entries' amounts."""
            return sum(entry.amount for entry in entries)


        def by_category(entries):
            """The sum of the amounts in each category, largest first."""
            sums = {}
            for entry in entries:
                sums[entry.category] = sums.get(entry.category, 0) + entry.amount
            return dict(sorted(sums.items(), key=lambda item: -item[1]))


        def in_month(entries, year, month):
            """The entries of one calendar month."""
            return [e for e in entries if e.day.year == year and e.day.month == month]
        '''
    ),
    "tally/format.py": _text(
        '''
        """Formatting amounts for people."""


        def money(amount):
            """An amount with two decimals and a thousands separator."""
            return f"{amount:,.2f}"


        def percent(part, whole):
            """`part` as a percentage of `whole`, or a dash when there is no whole."""
            if not whole:
                return "-"
            return f"{100 * part / whole:.0f}%"
        '''
    ),
    "tally/report.py": _text(
        '''
        """The monthly report."""

        from tally.format import money, percent
        from tally.ledger import by_category, in_month, total


        def monthly_report(entries, year, month):
            """Lines of text summarising one month."""
            month_entries = in_month(entries, year, month)
            whole = total(month_entries)
            lines = [f"Report for {year}-{month:02d}", ""]
            for category, amount in by_category(month_entries).items():
                lines.append(f"{category:<16} {money(amount):>12} {percent(amount, whole):>5}")
            lines.append("")
            lines.append(f"{'total':<16} {money(whole):>12}")
            return lines
        '''
    ),
    "tally/cli.py": _text(
        '''
        """The `tally` command."""

        import argparse
        import json
        from datetime import date
        from pathlib import Path

        from tally.ledger import Entry
        from tally.report import monthly_report

        LEDGER = Path.home() / ".tally.json"


        def load():
            if not LEDGER.exists():
                return []
            rows = json.loads(LEDGER.read_text())
            return [Entry(date.fromisoformat(r["day"]), r["amount"], r["category"], r["note"]) for r in rows]


        def save(entries):
            rows = [
                {"day": e.day.isoformat(), "amount": e.amount, "category": e.category, "note": e.note}
                for e in entries
            ]
            LEDGER.write_text(json.dumps(rows, indent=2))


        def main(argv=None):
            parser = argparse.ArgumentParser(prog="tally")
            verbs = parser.add_subparsers(dest="verb", required=True)
            add = verbs.add_parser("add")
            add.add_argument("amount", type=float)
            add.add_argument("category")
            add.add_argument("note", nargs="?", default="")
            report = verbs.add_parser("report")
            report.add_argument("month", help="YYYY-MM")
            args = parser.parse_args(argv)

            entries = load()
            if args.verb == "add":
                entries.append(Entry(date.today(), args.amount, args.category, args.note))
                save(entries)
            else:
                year, month = (int(part) for part in args.month.split("-"))
                print("\\n".join(monthly_report(entries, year, month)))
        '''
    ),
    "tally/legacy.py": _text(
        '''
        """Import from the old spreadsheet export. Unused since 0.2."""

        import csv


        def read_old_export(path):
            with open(path, newline="") as handle:
                return [row for row in csv.reader(handle) if row and not row[0].startswith("#")]
        '''
    ),
    "docs/usage.md": _text(
        """
        # Using tally

        `tally add AMOUNT CATEGORY [NOTE]` records an expense dated today.

        `tally report YYYY-MM` prints the month's spending by category.
        """
    ),
    "tests/test_ledger.py": _text(
        """
        from datetime import date

        from tally.ledger import Entry, by_category, in_month, total

        ENTRIES = [
            Entry(date(2026, 3, 1), 12.5, "groceries"),
            Entry(date(2026, 3, 2), 40.0, "transport"),
            Entry(date(2026, 4, 1), 7.5, "groceries"),
        ]


        def test_total_adds_every_amount():
            assert total(ENTRIES) == 60.0


        def test_by_category_puts_the_largest_first():
            assert list(by_category(ENTRIES)) == ["transport", "groceries"]


        def test_in_month_keeps_that_month_only():
            assert len(in_month(ENTRIES, 2026, 3)) == 2
        """
    ),
    "tests/test_report.py": _text(
        """
        from datetime import date

        from tally.ledger import Entry
        from tally.report import monthly_report


        def test_report_ends_with_the_total():
            lines = monthly_report([Entry(date(2026, 3, 1), 10.0, "books")], 2026, 3)
            assert lines[-1].split() == ["total", "10.00"]
        """
    ),
}

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
    builder = _Builder(repo, clock)
    builder.git("init", "--quiet")
    for message, paths in _MAIN_HISTORY:
        for path in paths:
            builder.write(path, MAIN_FILES[path])
        builder.commit(message, paths)

    agents: dict[str, Path] = {}
    for name, build in (("currency", _currency), ("csv-export", _csv_export), ("cleanup", _cleanup)):
        worktree = folder / f"tally-{name}"
        builder.git("worktree", "add", "--quiet", "-b", f"agent/{name}", str(worktree), "main")
        build(_Builder(worktree, clock, author="Agent"))
        agents[name] = worktree
    return Demo(folder=folder, repository=repo, agents=agents)


class _Builder:
    """Writes files and commits in one worktree, at fixed times, whoever runs it."""

    def __init__(self, root: Path, clock: Iterator[int], author: str = "Dana Reviewer") -> None:
        self.root = root
        self.clock = clock
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

    def write(self, path: str, content: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

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
    agent.write(
        "tally/currency.py",
        _text(
            '''
            """Converting amounts between currencies at fixed rates."""

            # Euros per unit of each currency.
            RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.04}


            def convert(amount, source, target):
                """`amount` in `source` currency, expressed in `target` currency."""
                if source == target:
                    return amount
                return amount * RATES[source] / RATES[target]
            '''
        ),
    )
    agent.commit("Entries carry a currency; totals convert", ["tally/ledger.py", "tally/currency.py"])
    agent.git("mv", "tests/test_ledger.py", "tests/test_entries.py")
    agent.edit(
        "tests/test_entries.py",
        "def test_total_adds_every_amount():\n",
        "def test_total_adds_every_amount_in_euros():\n",
    )
    agent.commit("Name the entry tests after what they test", ["tests/test_entries.py"])
    agent.write(
        "tests/test_currency.py",
        _text(
            """
            from tally.currency import convert


            def test_same_currency_is_unchanged():
                assert convert(10.0, "EUR", "EUR") == 10.0


            def test_dollars_to_euros():
                assert round(convert(100.0, "USD", "EUR"), 2) == 92.0
            """
        ),
    )
    agent.stage("tests/test_currency.py")
    agent.edit(
        "tally/report.py",
        "    lines.append(f\"{'total':<16} {money(whole):>12}\")\n",
        "    lines.append(f\"{'total':<16} {money(whole):>12} EUR\")\n",
    )
    (agent.root / "tally/legacy.py").unlink()
    agent.write("tally/rates.json", '{"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.04}\n')


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
    agent.write(
        "tally/export.py",
        _text(
            '''
            """Exporting the ledger as CSV for spreadsheets."""

            import csv
            import io


            def to_csv(entries):
                """The entries as CSV text with a header row."""
                out = io.StringIO()
                writer = csv.writer(out)
                writer.writerow(["day", "amount", "category", "note"])
                for entry in entries:
                    writer.writerow([entry.day.isoformat(), f"{entry.amount:.2f}", entry.category, entry.note])
                return out.getvalue()
            '''
        ),
    )
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
    agent.write(
        "tests/test_export.py",
        _text(
            """
            from datetime import date

            from tally.export import to_csv
            from tally.ledger import Entry


            def test_csv_has_a_header_and_a_row_per_entry():
                text = to_csv([Entry(date(2026, 3, 1), 3.0, "coffee", "espresso")])
                assert text.splitlines() == ["day,amount,category,note", "2026-03-01,3.00,coffee,espresso"]
            """
        ),
    )


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
    agent.write("tally/py.typed", "")
    agent.write("NOTES.md", "- [x] type hints in report\n- [ ] type hints in cli\n")
