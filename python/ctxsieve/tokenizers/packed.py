"""The compressed fields of a profile (known words, character tables, CJK tokens): base64 of a
zlib stream, inflated with a bound so a small field cannot expand into gigabytes (a zip bomb).
Each field checks its own length and says what it expected; this is the one place that reads
the stream.

>>> import base64, zlib
>>> inflate_bounded(base64.b64encode(zlib.compress(b"abc")).decode(), 10, "x", "zlib-base64")
(b'abc', True)
"""

from __future__ import annotations

import base64
import binascii
import zlib


def deflate(raw: bytes) -> str:
    """``raw`` as a profile stores it: zlib at level 9, then base64."""
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def inflate_bounded(data: str, limit: int, what: str, encoding: str) -> tuple[bytes, bool]:
    """At most ``limit + 1`` bytes of the stream in ``data``, and whether the stream ended there
    with nothing after it. ``ValueError`` (``"<what>: not <encoding> data (...)"``) for data that
    is not base64 of a zlib stream."""
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.b64decode(data.encode("ascii"), validate=True), limit + 1)
    except (binascii.Error, zlib.error, UnicodeEncodeError) as exc:
        raise ValueError(f"{what}: not {encoding} data ({exc})") from None
    return raw, inflate.eof and not inflate.unused_data
