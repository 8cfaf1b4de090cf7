"""Reading a request body, and the bounds it is held to before any recursive work touches it.

Real request bodies are shallow (the deepest public schema nests about a dozen levels) and
their int64 fields are decimal strings of at most 20 digits; anything beyond is refused with a
400 that names the bound, instead of reaching Python's recursion or integer-conversion limits.
"""

from __future__ import annotations

import json
from typing import Any

from simulator.errors import InvalidArgument
from simulator.wire import Json, JsonFloat

MAX_DEPTH = 64
MAX_INT64_DIGITS = 20


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
    if not digits.isdigit() or len(digits) > MAX_INT64_DIGITS:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise InvalidArgument(
            f"timestampMs must be milliseconds since the epoch as a decimal string of at most "
            f"{MAX_INT64_DIGITS} digits, got {shown!r}"
        )
    return int(text)


def parse_body(raw: bytes, content_type: str | None) -> Json:
    """The body as a JSON object, whatever its Content-Type says (clients that send none are common)."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_float=JsonFloat, parse_constant=_not_json)
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
    check_body_shape(body)
    if not isinstance(body, dict):
        raise InvalidArgument(f"bad request body: expected a JSON object, got {type(body).__name__}")
    return body


class NotJson(ValueError):
    pass


def _not_json(constant: str) -> Any:
    """Python's reader takes NaN and Infinity; JSON (and the service's reader) does not."""
    raise NotJson(constant)
