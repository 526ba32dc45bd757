"""A cache of what was used last, bounded by the size of what it keeps: the parsed hunks of a
diff's files, the rows of a layout. Paging through a huge diff then holds as much as the last few
screens need, not every file ever seen."""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class RecentlyUsed(Generic[K, V]):
    """Values by key, the least recently used dropped once their sizes add up to more than
    `budget`; the last `keep` values used stay whatever their size, so that what one screen and
    the keys after it need is never dropped while it is in use (a large file would otherwise be
    parsed again on every frame)."""

    def __init__(self, budget: int, keep: int, size: Callable[[V], int]) -> None:
        self.budget = budget
        self.keep = keep
        self._size = size
        self._values: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()
        """Held while values are added and dropped, should two threads ever do it at once."""

    def get(self, key: K) -> V | None:
        """The value of `key`, now the most recently used; None when it is not kept."""
        # every row drawn asks: no lock here (a value dropped by another thread meanwhile is
        # still the right value)
        found = self._values.get(key)
        if found is None:
            return None
        with contextlib.suppress(KeyError):
            self._values.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V) -> None:
        """Keep `value` as the most recently used, dropping the least recently used over the
        budget."""
        size = self._size(value)
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._total -= old[1]
            self._values[key] = (value, size)
            self._total += size
            while self._total > self.budget and len(self._values) > self.keep:
                _, (_, dropped) = self._values.popitem(last=False)
                self._total -= dropped

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._total = 0

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    @property
    def total(self) -> int:
        """The sizes of the values kept, added up."""
        return self._total
