"""The review file's JSON, to and from the model: schema checks, upgrades of older schemas, and
keys a newer version wrote kept as they were."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints

from review.state.model import SCHEMA, Anchor, Comment, Notice, Reply, Request, Review, Round

Migration = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[str, Migration] = {}
"""Older schema -> a function that upgrades a document one step and sets its new `schema`."""


def dump(review: Review) -> bytes:
    """The review as the file holds it."""
    text = json.dumps(_to_json(review), indent=2, ensure_ascii=False) + "\n"
    # Paths that are not UTF-8 reach us with lone surrogates (surrogateescape); as \u escapes
    # they survive the round trip while the rest of the file stays readable.
    text = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.encode("utf-8")


def _to_json(value: Any) -> Any:
    if isinstance(value, Notice | Reply | Anchor | Comment | Round | Request | Review):
        out = {spec.name: _to_json(getattr(value, spec.name)) for spec in fields(value) if spec.name != "extra"}
        for key, unknown in value.extra.items():
            out.setdefault(key, unknown)
        return out
    if isinstance(value, list):
        return [_to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_json(item) for key, item in value.items()}
    return value


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
    return cast(Review, _from_json(Review, _upgrade(document), ""))


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


@cache
def _hints(kind: type) -> dict[str, Any]:
    return get_type_hints(kind)


def _from_json(kind: Any, value: Any, where: str) -> Any:
    """`value` checked against the type `kind` and turned into it; `where` names it in errors."""
    origin = get_origin(kind)
    if isinstance(kind, type) and is_dataclass(kind):
        return _object_from_json(kind, value, where)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(kind):
            return None
        (present,) = [option for option in get_args(kind) if option is not type(None)]
        return _from_json(present, value, where)
    if origin is Literal:
        allowed = get_args(kind)
        if not isinstance(value, str) or value not in allowed:
            raise Invalid(f"{where} is {_shown(value)}, not one of {', '.join(allowed)}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise Invalid(f"{where} is {_shown(value)}, not a list")
        (item,) = get_args(kind)
        return [_from_json(item, each, f"{where}[{index}]") for index, each in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise Invalid(f"{where} is {_shown(value)}, not an object")
        _, item = get_args(kind)
        return {key: _from_json(item, each, f"{where}.{key}") for key, each in value.items()}
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise Invalid(f"{where} is {_shown(value)}, not a whole number")
    if kind is str and not isinstance(value, str):
        raise Invalid(f"{where} is {_shown(value)}, not a string")
    return value


def _object_from_json(kind: Any, value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        raise Invalid(f"{where or 'the top level'} is {_shown(value)}, not an object")
    hints = _hints(kind)
    names = {spec.name for spec in fields(kind)} - {"extra"}
    known: dict[str, Any] = {}
    for spec in fields(kind):
        if spec.name not in names:
            continue
        inner = f"{where}.{spec.name}" if where else spec.name
        if spec.name in value:
            known[spec.name] = _from_json(hints[spec.name], value[spec.name], inner)
        elif spec.default is MISSING and spec.default_factory is MISSING:
            raise Invalid(f"{inner} is missing")
    unknown = {key: each for key, each in value.items() if key not in names}
    return kind(**known, extra=unknown)


def _shown(value: Any) -> str:
    """A JSON value as an error message quotes it: short, and on one line."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
