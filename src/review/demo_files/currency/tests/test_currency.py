from tally.currency import convert


def test_same_currency_is_unchanged():
    assert convert(10.0, "EUR", "EUR") == 10.0


def test_dollars_to_euros():
    assert round(convert(100.0, "USD", "EUR"), 2) == 92.0
