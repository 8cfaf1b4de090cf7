"""Which values an encoding took as they were, that orjson might not write exactly as json does.

serve --data-dir writes a change record with orjson, without reading it back, when none of its values was so
(``inexact`` counts them per thread; the tracker notes what it wrote without encoding it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

_CHECKS = threading.local()  # per thread: the values its encodings took that orjson may not write exactly


def inexact() -> int:
    """How many values this thread's encodings have taken as they were that orjson might not write as json does:
    a NaN or an infinity (orjson: null), a value of a type encode() does not know (a UUID, an Enum, ...), a loaded
    document never decoded; and what serve --data-dir's tracker wrote without encoding it (``note_inexact``).
    A change record none of whose values was so is written by orjson without reading it back (serve --data-dir):
    every other value is a str, an int within 64 bits, a bool, None, a finite float or lists and str-keyed dicts
    of them, which orjson writes exactly; its refusals (a lone surrogate, an integer beyond 64 bits) still go to
    json."""
    return getattr(_CHECKS, "count", 0)


def note_inexact() -> None:
    _CHECKS.count = getattr(_CHECKS, "count", 0) + 1


def note_inexact_numbers(values: Iterable[Any]) -> None:
    """Noted if any of ``values`` (numbers written as they are) is not an int, a finite float or None."""
    for value in values:
        if type(value) is not int and value is not None and not (type(value) is float and value - value == 0):
            note_inexact()
            return
