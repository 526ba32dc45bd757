"""tally: a small ledger of expenses."""

__version__ = "0.3.0"
