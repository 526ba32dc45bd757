from datetime import date

from tally.export import to_csv
from tally.ledger import Entry


def test_csv_has_a_header_and_a_row_per_entry():
    text = to_csv([Entry(date(2026, 3, 1), 3.0, "coffee", "espresso")])
    assert text.splitlines() == ["day,amount,category,note", "2026-03-01,3.00,coffee,espresso"]
