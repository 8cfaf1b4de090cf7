"""Reading a request body, and the bounds it is held to before any recursive work touches it.

Real request bodies are shallow (the deepest public schema nests about a dozen levels) and
their int64 fields are decimal strings of at most 20 digits; anything beyond is refused with a
400 that names the bound, instead of reaching Python's recursion or integer-conversion limits.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from simulator.errors import InvalidArgument
from simulator.wire import Json, JsonFloat, decimal_digits

MAX_DEPTH = 64
MAX_INT64_DIGITS = 20


JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def refuse_deep_nesting(raw: bytes, what: str = "bad request body") -> None:
    """Refuse (400) a body nested deeper than MAX_DEPTH, before ``json.loads`` reads it (see ``too_deep``)."""
    if too_deep(raw):
        raise InvalidArgument(f"{what}: nested more than {MAX_DEPTH} levels deep")


def too_deep(raw: bytes | str) -> bool:
    """Whether JSON text nests deeper than MAX_DEPTH; call it before ``json.loads`` on what a client sent.

    json's C reader recurses once per level and stops only at the interpreter's recursion limit,
    which libraries raise process-wide (py_ecc, which eth-account loads, sets 100,000: far past
    the C stack), so in such a process a body of 100,000 ``[`` would crash it instead of being
    refused. Text with fewer brackets than the bound costs two counts; the rest is measured with
    its strings taken out, at C speed but for one pass over its brackets."""
    data = raw.encode("utf-8", "replace") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return False
    brackets = JSON_STRING.sub(b"", data).translate(None, NOT_BRACKETS)
    return max(accumulate(1 if c in b"[{" else -1 for c in brackets), default=0) > MAX_DEPTH


def json_or_none(raw: bytes | str) -> Any:
    """What a client sent, as JSON, or None where it is not JSON (or nested too deeply to read safely):
    for the readers that keep or look at a body without refusing it (the journal, the inspector)."""
    if too_deep(raw):
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def check_body_shape(body: Any) -> None:
    """Refuse a body nested deeper than MAX_DEPTH (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidArgument(f"bad request body: nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def check_timestamp_ms(text: str) -> int:
    """``timestampMs`` as milliseconds: a decimal string of at most 20 digits."""
    digits = text.lstrip("-")
    if not decimal_digits(digits, MAX_INT64_DIGITS):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise InvalidArgument(
            f"timestampMs must be milliseconds since the epoch as a decimal string of at most "
            f"{MAX_INT64_DIGITS} digits, got {shown!r}"
        )
    return int(text)


def parse_body(raw: bytes, content_type: str | None) -> Json:
    """The body as a JSON object, whatever its Content-Type says (clients that send none are common)."""
    refuse_deep_nesting(raw)
    try:
        body = _BODY_DECODER.decode(raw.decode("utf-8"))
    except NotJson as exc:
        raise InvalidArgument(f"bad request body: {exc.args[0]} is not a JSON value") from None
    except UnicodeDecodeError:
        raise InvalidArgument("bad request body: the body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        said = f" (Content-Type {content_type!r})" if content_type else ""
        raise InvalidArgument(
            f"bad request body{said}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise InvalidArgument("bad request body: JSON nested too deeply") from None
    except ValueError:  # json's int() refused a number of more than 4,300 digits
        raise InvalidArgument(
            f"bad request body: a number too long to read; the API's numbers have at most {MAX_INT64_DIGITS} digits"
        ) from None
    if raw.count(b"[") + raw.count(b"{") >= MAX_DEPTH:  # fewer brackets cannot put a value deeper than MAX_DEPTH
        check_body_shape(body)
    if not isinstance(body, dict):
        raise InvalidArgument(f"bad request body: expected a JSON object, got {type(body).__name__}")
    return body


class NotJson(ValueError):
    pass


def _not_json(constant: str) -> Any:
    """Python's reader takes NaN and Infinity; JSON (and the service's reader) does not."""
    raise NotJson(constant)


# made once: json.loads with hooks builds a decoder and its scanner on every call (3 µs a request)
_BODY_DECODER = json.JSONDecoder(parse_float=JsonFloat, parse_constant=_not_json)
