"""Status lines with reason phrases in their usual case (``401 Unauthorized``), as the service and
most servers send them: werkzeug spells a status it makes from a bare code in capitals
(``401 UNAUTHORIZED``), which a reader of curl's or a client's output takes for a different answer."""

from __future__ import annotations

from functools import lru_cache
from http import HTTPStatus
from typing import Any


@lru_cache(maxsize=128)
def usual_case(status: str) -> str:
    """``"401 UNAUTHORIZED"`` → ``"401 Unauthorized"``; any other status line as it is."""
    code, _, reason = status.partition(" ")
    try:
        phrase = HTTPStatus(int(code)).phrase
    except ValueError:
        return status
    return f"{code} {phrase}" if reason == reason.upper() and reason.lower() == phrase.lower() else status


def with_usual_reason(start_response: Any) -> Any:
    """``start_response`` that sends the status line's reason phrase in its usual case."""

    def start(status: str, headers: Any, exc_info: Any = None) -> Any:
        return start_response(usual_case(status), headers, exc_info)

    return start
