"""Formatting amounts for people."""


def money(amount):
    """An amount with two decimals and a thousands separator."""
    return f"{amount:,.2f}"


def percent(part, whole):
    """`part` as a percentage of `whole`, or a dash when there is no whole."""
    if not whole:
        return "-"
    return f"{100 * part / whole:.0f}%"
