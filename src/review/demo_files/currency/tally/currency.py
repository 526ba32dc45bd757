"""Converting amounts between currencies at fixed rates."""

# Euros per unit of each currency.
RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.04}


def convert(amount, source, target):
    """`amount` in `source` currency, expressed in `target` currency."""
    if source == target:
        return amount
    return amount * RATES[source] / RATES[target]
