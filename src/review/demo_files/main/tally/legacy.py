"""Import from the old spreadsheet export. Unused since 0.2."""

import csv


def read_old_export(path):
    with open(path, newline="") as handle:
        return [row for row in csv.reader(handle) if row and not row[0].startswith("#")]
