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
