"""The review file's JSON, to and from the model: schema checks, upgrades of older schemas, and
keys a newer version wrote kept as they were."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from json.encoder import encode_basestring
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints

from review.state.model import SCHEMA, Anchor, Comment, Notice, Reply, Request, Review, Round

Migration = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[str, Migration] = {}
"""Older schema -> a function that upgrades a document one step and sets its new `schema`."""


def dump(review: Review) -> bytes:
    """The review as the file holds it: JSON indented by two spaces, as `json.dumps(indent=2,
    ensure_ascii=False)` writes it.

    Every write rewrites the whole file while holding the lock, so its speed is every other
    writer's wait: the text is built here with json's C string encoder, where `json.dumps` with
    an indent takes its pure-Python encoder (three times slower on a review of a thousand comments).
    """
    out: list[str] = []
    _write(review, "\n", out)
    out.append("\n")
    text = "".join(out)
    # Paths that are not UTF-8 reach us with lone surrogates (surrogateescape); as \u escapes
    # they survive the round trip while the rest of the file stays readable.
    text = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.encode("utf-8")


_MODEL = (Notice, Reply, Anchor, Comment, Round, Request, Review)
_NAMES: dict[type, tuple[str, ...]] = {
    kind: tuple(spec.name for spec in fields(kind) if spec.name != "extra") for kind in _MODEL
}
"""The fields of each model class, in their order, but for the keys it did not know."""


_string = encode_basestring
"""A JSON string as `json.dumps(ensure_ascii=False)` writes it (json's C function)."""


def _write(value: Any, newline: str, out: list[str]) -> None:
    """`value` (the model, or what JSON holds) as indented JSON, its inner lines starting with
    `newline` (a line break and the indent of the line `value` starts on), appended to `out`."""
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, _MODEL):
        names = _NAMES[type(value)]
        pairs = [(name, getattr(value, name)) for name in names]
        # the keys a newer version wrote, after the fields, as they were
        pairs += [(key, unknown) for key, unknown in value.extra.items() if key not in names]
        _write_object(pairs, newline, out)
    elif isinstance(value, dict):
        _write_object(list(value.items()), newline, out)
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        out.append("[")
        for index, item in enumerate(value):
            out.append(inner if not index else "," + inner)
            _write(item, inner, out)
        out.append(newline + "]")
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    else:  # a float, or what json would refuse
        out.append(json.dumps(value))


def _write_object(pairs: list[tuple[Any, Any]], newline: str, out: list[str]) -> None:
    if not pairs:
        out.append("{}")
        return
    inner = newline + "  "
    out.append("{")
    for index, (key, item) in enumerate(pairs):
        if not isinstance(key, str):
            raise TypeError(f"a key of the review file is {key!r}, not a string")
        out.append(inner if not index else "," + inner)
        out.append(_string(key))
        out.append(": ")
        _write(item, inner, out)
    out.append(newline + "}")


class Invalid(Exception):
    """Why a document does not fit the model, saying where in it."""


class Newer(Exception):
    """The document's schema is newer than this version knows; the message is the schema."""


def parse(data: bytes) -> Review:
    """The review a file holds, upgraded to the current schema.

    Raises:
        Invalid: the data does not fit the model.
        Newer: a newer version wrote it.
    """
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise Invalid(f"not UTF-8 text at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise Invalid(f"line {error.lineno}, column {error.colno}: {error.msg}") from None
    try:
        return cast(Review, _converter(Review)(_upgrade(document)))
    except _Misfit as misfit:
        raise Invalid(str(misfit)) from None


def _upgrade(document: Any) -> Any:
    """The document brought to the current schema through `MIGRATIONS`, one step at a time."""
    for _ in range(len(MIGRATIONS) + 1):
        if not isinstance(document, dict):
            raise Invalid(f"the top level is {_shown(document)}, not an object")
        schema = document.get("schema")
        if schema == SCHEMA:
            return document
        if not isinstance(schema, str):
            raise Invalid(f"schema is {_shown(schema)}, not '{SCHEMA}'")
        if _schema_number(schema) > _schema_number(SCHEMA):
            raise Newer(schema)
        migrate = MIGRATIONS.get(schema)
        if migrate is None:
            raise Invalid(f"unknown schema '{schema}'")
        try:
            document = migrate(document)
        except (KeyError, TypeError, ValueError) as error:
            raise Invalid(f"upgrading from schema '{schema}' failed: {error!r}") from None
    raise Invalid("the schema upgrades go round in a circle")


def _schema_number(schema: str) -> int:
    match = re.fullmatch(r"review/(\d+)", schema)
    return int(match.group(1)) if match else 0


class _Misfit(Exception):
    """A value that does not fit its type: what is wrong with it, and (gathered on the way out)
    where in the document it is."""

    def __init__(self, wrong: str) -> None:
        super().__init__(wrong)
        self.wrong = wrong
        self.path: list[str] = []

    def at(self, part: str) -> _Misfit:
        self.path.append(part)
        return self

    def __str__(self) -> str:
        where = "".join(reversed(self.path)).removeprefix(".")
        return f"{where or 'the top level'} {self.wrong}"


Convert = Callable[[Any], Any]


@cache
def _converter(kind: Any) -> Convert:
    """A function that checks a value against the type `kind` and turns it into one. Made once
    per type, as the file is read again on every write: a thousand comments hold some hundred
    thousand values."""
    origin = get_origin(kind)
    if isinstance(kind, type) and is_dataclass(kind):
        return _object_converter(kind)
    if origin in (Union, types.UnionType):
        (present,) = [option for option in get_args(kind) if option is not type(None)]
        inner = _converter(present)
        if type(None) not in get_args(kind):
            return inner
        return lambda value: None if value is None else inner(value)
    if origin is Literal:
        allowed = get_args(kind)

        def choice(value: Any) -> Any:
            if not isinstance(value, str) or value not in allowed:
                raise _Misfit(f"is {_shown(value)}, not one of {', '.join(allowed)}")
            return value

        return choice
    if origin is list:
        (item,) = get_args(kind)
        return _list_converter(_converter(item))
    if origin is dict:
        _, item = get_args(kind)
        return _dict_converter(_converter(item))
    if kind is int:

        def whole(value: Any) -> Any:
            if not isinstance(value, int) or isinstance(value, bool):
                raise _Misfit(f"is {_shown(value)}, not a whole number")
            return value

        return whole
    if kind is str:

        def text(value: Any) -> Any:
            if not isinstance(value, str):
                raise _Misfit(f"is {_shown(value)}, not a string")
            return value

        return text
    return lambda value: value


def _list_converter(item: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            raise _Misfit(f"is {_shown(value)}, not a list")
        try:
            return [item(each) for each in value]
        except _Misfit:
            for index, each in enumerate(value):  # where it failed: only on the way to an error
                try:
                    item(each)
                except _Misfit as misfit:
                    raise misfit.at(f"[{index}]") from None
            raise

    return convert


def _dict_converter(item: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Misfit(f"is {_shown(value)}, not an object")
        converted = {}
        for key, each in value.items():
            try:
                converted[key] = item(each)
            except _Misfit as misfit:
                raise misfit.at(f".{key}") from None
        return converted

    return convert


def _object_converter(kind: Any) -> Convert:
    hints = get_type_hints(kind)
    specs = [
        (spec.name, _converter(hints[spec.name]), spec.default is MISSING and spec.default_factory is MISSING)
        for spec in fields(kind)
        if spec.name != "extra"
    ]
    names = frozenset(name for name, _, _ in specs)

    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Misfit(f"is {_shown(value)}, not an object")
        known: dict[str, Any] = {}
        for name, field_of, required in specs:
            if name in value:
                try:
                    known[name] = field_of(value[name])
                except _Misfit as misfit:
                    raise misfit.at(f".{name}") from None
            elif required:
                raise _Misfit("is missing").at(f".{name}")
        # keys a newer version wrote, kept to be written back
        extra = {key: each for key, each in value.items() if key not in names} if len(value) > len(known) else {}
        return kind(**known, extra=extra)

    return convert


def _shown(value: Any) -> str:
    """A JSON value as an error message quotes it: short, and on one line."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
