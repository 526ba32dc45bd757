"""Textual's CSS as an earlier start parsed it, so that the next start need not parse it again.

Textual parses the CSS of the app and of each widget it shows at every start: 14 ms of the
330 ms that a review takes to its first screen, where a bare Textual app parses 6. The rules it
made are kept in the user's cache folder and given to the next start's stylesheet before it
parses, as its own cache of CSS parsed would hold them. They are kept as Textual's own objects,
pickled: written by review to the user's own cache folder and read from there only, as Python
keeps its bytecode. The file is named by all that parsing depends on (Textual's parser and its
objects, Python's version and the theme's variables): any change to them parses again. They
are kept once the first frame is drawn, and again on the way out, if more was parsed since.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from contextlib import suppress
from pathlib import Path

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

from review.state.files import user_cache_folder, write_cache

_PARSER = ("__init__.py", "css/parse.py", "css/tokenize.py", "css/model.py", "css/styles.py", "css/_styles_builder.py")
"""Textual's files that make and define the rules: another version of Textual replaces them."""

_Parsed = dict[tuple[object, ...], list[RuleSet]]
"""Sources of CSS (as the stylesheet keys them: the CSS and where it was read from) and their
rules."""


def _file(stylesheet: Stylesheet) -> Path | None:
    """The file of the CSS parsed for `stylesheet`'s variables; None when Textual's files
    cannot be found."""
    made_by = hashlib.sha256(sys.version.encode())
    folder = os.path.dirname(textual.__file__)
    try:
        for name in _PARSER:
            found = os.stat(os.path.join(folder, name))
            made_by.update(b"%d %d %d\0" % (found.st_size, found.st_mtime_ns, found.st_ino))
    except OSError:
        return None
    made_by.update(repr(sorted(stylesheet._variables.items())).encode())  # (private: textual is pinned)
    return user_cache_folder() / "css" / f"{made_by.hexdigest()[:24]}.pickle"


def recall(stylesheet: Stylesheet) -> frozenset[tuple[object, ...]]:
    """Give `stylesheet` the CSS an earlier start parsed with the same variables; returns the
    sources given."""
    path = _file(stylesheet)
    if path is None:
        return frozenset()
    try:
        parsed = pickle.loads(path.read_bytes())
    except Exception:  # (none yet, or not one this can read: parsed again, and kept anew)
        return frozenset()
    if not isinstance(parsed, dict) or not all(
        isinstance(rules, list) and all(isinstance(rule, RuleSet) for rule in rules) for rules in parsed.values()
    ):
        return frozenset()
    cache = stylesheet._parse_cache  # (private: textual is pinned)
    for source, rules in parsed.items():
        cache[source] = rules
    return frozenset(parsed)


def keep(stylesheet: Stylesheet, kept: frozenset[tuple[object, ...]]) -> frozenset[tuple[object, ...]]:
    """Keep the CSS `stylesheet` has parsed for the next start, unless all of it is `kept`
    already (recalled, or kept before); returns what is kept now. The CSS of a widget changed
    since it was kept is left behind."""
    cache = stylesheet._parse_cache  # (private: textual is pinned)
    css_now = {read_from: source.content for read_from, source in stylesheet.source.items()}
    # (a source keyed as `Stylesheet._parse_rules` keys it: its CSS, where it was read from, and
    # how it ranks, which Textual may parse it with twice)
    parsed: _Parsed = {
        source: rules
        for source in list(cache.keys())
        if css_now.get(source[1]) == source[0] and (rules := cache.get(source)) is not None
    }
    if parsed.keys() <= kept:
        return kept
    path = _file(stylesheet)
    if path is None:
        return kept
    with suppress(pickle.PicklingError, TypeError, AttributeError):
        write_cache(path, pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
    return frozenset(parsed)
