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
