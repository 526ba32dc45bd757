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
