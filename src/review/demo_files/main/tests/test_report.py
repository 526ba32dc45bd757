from datetime import date

from tally.ledger import Entry
from tally.report import monthly_report


def test_report_ends_with_the_total():
    lines = monthly_report([Entry(date(2026, 3, 1), 10.0, "books")], 2026, 3)
    assert lines[-1].split() == ["total", "10.00"]
