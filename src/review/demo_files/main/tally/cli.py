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
        print("\n".join(monthly_report(entries, year, month)))
