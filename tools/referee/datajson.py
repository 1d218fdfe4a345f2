"""Frozen dataclasses to JSON and back, from their fields: one writer and one reader for all.

A field is written under its name and read back by its type hint: a dataclass is an object,
an enum its value, a tuple a list, a mapping an object, ``X | None`` null or ``X``. A field's
metadata (:func:`json_field`) may rename it, write it only when it applies, leave out a None,
flatten a nested dataclass into its owner, or give the value a text form of its own (a
:class:`Codec`). The reader checks every type, so a hand-edited file is a :class:`ShapeError`
naming the key, never a TypeError; the values themselves are checked by the dataclasses
(``__post_init__``), as when they are built from a command line.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from zengine.engine.text import json_quoted

T = TypeVar("T")

#: The metadata key of this module's settings in a field's metadata.
_META = "json"


class ShapeError(ValueError):
    """A JSON value that does not have the shape of the dataclass it is read into."""


class Codec(NamedTuple):
    """A value stored in a text form of its own: ``write`` gives the JSON value (of type
    ``stored``), ``read`` takes it back (raising the caller's error for a bad value)."""

    write: Callable[[Any], Any]
    read: Callable[[Any], Any]
    stored: Any


class _Meta(NamedTuple):
    key: str | None
    when: Callable[[Mapping[str, Any]], bool] | None
    omit_none: bool
    flatten: bool
    codec: Codec | None
    required: bool


def json_field(
    key: str | None = None,
    *,
    when: Callable[[Mapping[str, Any]], bool] | None = None,
    omit_none: bool = False,
    flatten: bool = False,
    codec: Codec | None = None,
    required: bool = False,
    **tags: Any,
) -> dict[str, Any]:
    """Field metadata: the JSON ``key`` (default the field's name); ``when`` the field applies,
    given the values of the fields before it (otherwise it is neither written nor read, and
    takes its default, which it must have); None left out (``omit_none``); a nested
    dataclass's fields written into its owner (``flatten``); a ``codec``; ``required`` even
    though the field has a default. ``tags`` are kept for the owner's use (:func:`tag`)."""
    return {_META: _Meta(key, when, omit_none, flatten, codec, required), **tags}


def tag(f: dataclasses.Field[Any], name: str) -> Any:
    """A tag given to :func:`json_field` (None if not given)."""
    return f.metadata.get(name)


def _meta(f: dataclasses.Field[Any]) -> _Meta:
    return f.metadata.get(_META) or _Meta(None, None, False, False, None, False)


def _key(f: dataclasses.Field[Any]) -> str:
    return _meta(f).key or f.name


def to_json(value: Any, keep: Callable[[dataclasses.Field[Any]], bool] | None = None) -> Any:
    """``value`` as JSON data; with ``keep``, only the dataclass fields it accepts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        values = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        for f in dataclasses.fields(value):
            meta, item = _meta(f), values[f.name]
            if (keep is not None and not keep(f)) or (meta.when and not meta.when(values)):
                continue
            if item is None and meta.omit_none:
                continue
            if meta.flatten:
                out.update(to_json(item, keep))
            elif meta.codec is not None and item is not None:
                out[_key(f)] = meta.codec.write(item)
            else:
                out[_key(f)] = to_json(item, keep)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [to_json(v, keep) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v, keep) for k, v in value.items()}
    return value


def from_json(kind: type[T], data: Any, what: str) -> T:
    """The dataclass ``kind`` read from JSON ``data``; ShapeError (a message starting with
    ``what``, e.g. ``configuration``) for a wrong type, a missing or an unknown key."""
    if not isinstance(data, Mapping):
        raise ShapeError(f"the {what} is not a JSON object")
    result: T = _object(kind, data, what, "", "")
    return result


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _keys(kind: type) -> list[str]:
    """The keys an object of ``kind`` may hold (those of flattened fields included)."""
    out: list[str] = []
    for f in dataclasses.fields(kind):
        nested = _hints(kind)[f.name]
        out.extend(_keys(nested) if _meta(f).flatten else [_key(f)])
    return list(dict.fromkeys(out))


def _object(
    kind: type, data: Mapping[str, Any], what: str, key: str, label: str, owned: bool = False
) -> Any:
    """An object of ``kind``; ``owned``: its fields are flattened into an owner's object
    (which checks for unknown keys)."""
    known = _keys(kind)
    unknown = [k for k in data if k not in known]
    if unknown and not owned:
        if not key:
            raise ShapeError(f"the {what} has an unknown key {json_quoted(unknown[0])}")
        raise ShapeError(f"{what}: '{key}' is not an object of {', '.join(known)}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(kind):
        meta, hint, name = _meta(f), _hints(kind)[f.name], _key(f)
        applies = meta.when is None or meta.when(values)
        if meta.flatten:
            values[f.name] = _object(hint, data, what, key, label, owned=True)
        elif not applies or (name not in data and not meta.required and _has_default(f)):
            # The default (seen by the ``when`` of the fields after it).
            if f.default is not dataclasses.MISSING:
                values[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                values[f.name] = f.default_factory()
        elif meta.codec is not None and data.get(name) is not None:
            stored = _value(meta.codec.stored, data[name], what, name, name)
            values[f.name] = meta.codec.read(stored)
        else:
            values[f.name] = _value(hint, data.get(name), what, name, f"{label} {name}".strip())
    return kind(**values)


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _value(hint: Any, raw: Any, what: str, key: str, label: str) -> Any:
    """``raw`` read as the type ``hint`` (``key`` names it in a message; ``label`` is the
    key with its owner's, for an enum: ``openings kind``)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if raw is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _value(inner, raw, what, key, label)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(raw, Mapping):
            raise ShapeError(f"{what}: '{key}' is not an object")
        return _object(hint, raw, what, key, label)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(raw)
        except ValueError:
            known = ", ".join(str(m.value) for m in hint)
            if not isinstance(raw, str):
                raise ShapeError(f"{what}: '{key}' is not one of {known}") from None
            raise ShapeError(f"unknown {label} {json_quoted(raw)} (one of: {known})") from None
    if origin is tuple:
        if not isinstance(raw, list):
            raise ShapeError(f"{what}: '{key}' is not a list of {_plural(args[0])}")
        return tuple(_item(args[0], v, what, key, "list") for v in raw)
    if origin in (Mapping, dict):
        if not isinstance(raw, Mapping):
            raise ShapeError(f"{what}: '{key}' is not an object of {_plural(args[1])}")
        return {str(k): _item(args[1], v, what, key, "object") for k, v in raw.items()}
    return _scalar(hint, raw, what, key)


def _item(hint: Any, raw: Any, what: str, key: str, container: str) -> Any:
    """An element of a list or an object: a wrong one names the whole."""
    try:
        return _value(hint, raw, what, key, "")
    except ShapeError:
        if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(raw, Mapping):
            raise  # the element's own key says more
        article = "an" if container[0] in "aeiou" else "a"
        raise ShapeError(
            f"{what}: '{key}' is not {article} {container} of {_plural(hint)}"
        ) from None


def _scalar(hint: Any, raw: Any, what: str, key: str) -> Any:
    if hint is bool:
        if isinstance(raw, bool):
            return raw
        raise ShapeError(f"{what}: '{key}' is not true or false")
    if hint is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise ShapeError(f"{what}: '{key}' is not a whole number")
    if hint is float:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return float(raw)
        raise ShapeError(f"{what}: '{key}' is not a number")
    if hint is str:
        if isinstance(raw, str):
            return raw
        raise ShapeError(f"{what}: '{key}' is not a string")
    raise TypeError(f"no JSON form for {hint!r}")  # a field of a type this module does not read


def _plural(hint: Any) -> str:
    names = {str: "strings", int: "whole numbers", float: "numbers", bool: "true or false"}
    return names.get(hint, "objects")
