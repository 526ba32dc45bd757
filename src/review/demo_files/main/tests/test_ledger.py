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
