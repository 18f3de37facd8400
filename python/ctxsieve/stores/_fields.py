"""The checks every backend runs on what it is asked to store, so that all three take the same
input and refuse the rest with the same exception, naming the record and the field (instead of
one driver's OverflowError, another's NOT NULL violation and a third storing it).

Identities (a record's ``scope`` and ``audience``, a snapshot's turn id) and a record's opaque
``payload`` (which may carry identities of its own, such as a history unit's audience labels)
are kept exactly as given: they go through ``_text.escape`` on the way in and ``unescape`` on
the way out. Searched text (``text``, ``tags``) is ``clean``-ed: a lone surrogate, which has no
UTF-8 form, becomes U+FFFD.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

from ctxsieve.stores._text import MAX_IDENTITY_BYTES, clean, escape
from ctxsieve.stores.protocols import Record, check_id

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MAX_CALL_INDEX = (1 << 31) - 1  # PostgreSQL keeps it in an integer column


def _type_name(value: object) -> str:
    return type(value).__name__


def check_identity(field: str, value: object, where: str = "") -> str:
    """``value`` when it is a str whose stored form fits ``MAX_IDENTITY_BYTES``; else TypeError
    or ValueError saying ``where`` and ``field``.

    >>> check_identity("scope", "chat-42")
    'chat-42'
    >>> check_identity("scope", None, "record 'r1': ")
    Traceback (most recent call last):
    ...
    TypeError: record 'r1': scope: expected a str, got NoneType
    """
    if not isinstance(value, str):
        raise TypeError(f"{where}{field}: expected a str, got {_type_name(value)}")
    size = len(escape(value).encode("utf-8"))
    if size > MAX_IDENTITY_BYTES:
        raise ValueError(
            f"{where}{field}: {size} bytes in UTF-8 as stored, over the limit of {MAX_IDENTITY_BYTES} for an identity"
        )
    return value


def _text(field: str, value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}{field}: expected a str, got {_type_name(value)}")
    return clean(value)


def _exact(field: str, value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}{field}: expected a str, got {_type_name(value)}")
    return value


def _int(field: str, value: object, low: int, high: int, where: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}{field}: expected an int, got {_type_name(value)}")
    if not low <= value <= high:
        raise ValueError(f"{where}{field}: {value} is out of range: expected an int from {low} to {high}")
    return value


def _tags(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{where}tags: expected a tuple of str, got {_type_name(value)}")
    return tuple(_text("tags", t, where) for t in value)


def stored_record(record: object) -> Record:
    """``record`` checked field by field and ready to store: content cleaned, identities as
    given (and the payload), ``created`` a finite float (0 becomes the time of the write). Raises TypeError or
    ValueError naming the record and the field.

    >>> r = stored_record(Record("r1", "a\\ud800", scope="s\\ud800"))
    >>> r.text, r.scope
    ('a\\ufffd', 's\\ud800')
    >>> stored_record(Record("r1", "x", position=-2**64))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: record 'r1': position: -18446744073709551616 is out of range: expected an int from ...
    """
    if not isinstance(record, Record):
        raise TypeError(f"expected a Record, got {_type_name(record)}")
    check_id("record id", record.id)
    where = f"record {record.id!r}: "
    created = record.created
    if isinstance(created, bool) or not isinstance(created, (int, float)):
        raise TypeError(f"{where}created: expected a float (seconds since the epoch), got {_type_name(created)}")
    if not math.isfinite(created):
        raise ValueError(f"{where}created: expected a finite number of seconds, got {created!r}")
    return Record(
        record.id,
        _text("text", record.text, where),
        check_identity("scope", record.scope, where),
        _int("position", record.position, INT64_MIN, INT64_MAX, where),
        _tags(record.tags, where),
        check_identity("audience", record.audience, where),
        _exact("payload", record.payload, where),
        float(created) if created else time.time(),
    )


def stored_records(records: Iterable[object]) -> list[Record]:
    """Every record of a batch checked before any is written (a batch is all or nothing)."""
    return [stored_record(r) for r in records]


def check_call_index(call_index: object) -> int:
    return _int("call_index", call_index, 0, MAX_CALL_INDEX)


def check_turn_id(turn_id: object) -> str:
    """A snapshot's turn id: any str (an identity, stored exactly), or a value made one with
    ``str`` as before."""
    return check_identity("turn_id", turn_id if isinstance(turn_id, str) else str(turn_id))


def is_snapshot_id(value: object) -> bool:
    """Whether ``value`` can name a snapshot (anything else finds none, on every backend)."""
    try:
        check_id("snapshot id", value)
    except ValueError:
        return False
    return True
