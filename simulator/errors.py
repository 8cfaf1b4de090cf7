"""The one error shape every failure of the simulator takes.

    ApiError                    500 / gRPC 13  INTERNAL
    ├── InvalidArgument         400 / 3        REQUEST_INVALID
    │   └── ValidationFailed    400 / 3        REQUEST_INVALID (carries every schema violation)
    ├── Unauthenticated         401 / 16       UNAUTHENTICATED
    ├── PermissionDenied        403 / 7        REQUEST_NOT_AUTHORIZED
    ├── NotFound                404 / 5        (per case)
    ├── MethodNotAllowed        405 / 12       (wrong HTTP method)
    ├── PayloadTooLarge         413 / 8        (over the body cap)
    ├── ResourceExhausted       429 / 8        RATE_LIMIT_EXCEEDED
    └── Unimplemented           501 / 12       (a public operation the simulator does not serve yet)

The wire body is ``{code, message, details, turnkeyErrorCode}`` as the real service sends it:
``details[0]`` is the ``errors.v1.TurnkeyErrorDetail`` naming ``turnkeyErrorCode``, further
details describe the problem (field violations, suggestions).
"""

from __future__ import annotations

from typing import Any

TURNKEY_DETAIL = "type.googleapis.com/errors.v1.TurnkeyErrorDetail"
BAD_REQUEST_DETAIL = "type.googleapis.com/google.rpc.BadRequest"


class ApiError(Exception):
    """Base of every error the simulator answers with."""

    status = 500
    grpc_code = 13
    error_code = "INTERNAL"

    def __init__(
        self,
        message: str,
        *,
        details: list[dict[str, Any]] | None = None,
        error_code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []
        if error_code:
            self.error_code = error_code

    def to_body(self) -> dict[str, Any]:
        """The JSON body sent to the client."""
        head = {"@type": TURNKEY_DETAIL, "turnkeyErrorCode": self.error_code}
        return {
            "code": self.grpc_code,
            "message": self.message,
            "details": [head, *self.details],
            "turnkeyErrorCode": self.error_code,
        }


class InvalidArgument(ApiError):
    status, grpc_code, error_code = 400, 3, "REQUEST_INVALID"


class ValidationFailed(InvalidArgument):
    """A body that breaks its schema; ``violations`` lists every problem at once. ``head`` is the
    error catalogue's message for the problem, when it has one (``missing wallet params``)."""

    def __init__(self, schema_id: str, violations: list[dict[str, Any]], head: str | None = None) -> None:
        count = len(violations)
        summary = "; ".join(f"{v['field']}: {v['description']}" for v in violations[:5])
        more = f"; and {count - 5} more" if count > 5 else ""
        noun = "problem" if count == 1 else "problems"
        message = f"invalid request body ({count} {noun}, schema {schema_id}): {summary}{more}"
        super().__init__(
            documented(head, message) if head else message,
            details=[{"@type": BAD_REQUEST_DETAIL, "schema": schema_id, "fieldViolations": violations}],
        )
        self.violations = violations


class Unauthenticated(ApiError):
    status, grpc_code, error_code = 401, 16, "UNAUTHENTICATED"


class PermissionDenied(ApiError):
    status, grpc_code, error_code = 403, 7, "REQUEST_NOT_AUTHORIZED"


class NotFound(ApiError):
    status, grpc_code, error_code = 404, 5, "REQUEST_INVALID"


class MethodNotAllowed(ApiError):
    status, grpc_code, error_code = 405, 12, "REQUEST_INVALID"


class PayloadTooLarge(ApiError):
    status, grpc_code, error_code = 413, 8, "REQUEST_INVALID"


class ResourceExhausted(ApiError):
    status, grpc_code, error_code = 429, 8, "RATE_LIMIT_EXCEEDED"


class Unimplemented(ApiError):
    status, grpc_code, error_code = 501, 12, "UNSPECIFIED"


# The error catalogue's own wording (docs.turnkey.com/api-reference/overview/errors), for the
# refusals whose message the simulator builds in more than one place.
QUOTA = (
    "this organization cannot execute activities because it is over its allotted quota. "
    "Please reach out to the Turnkey team (help@turnkey.com) for more information."
)
QUOTA_PARENT = (
    "this sub-organization cannot execute activities because its parent is over its allotted quota. "
    "Please reach out to the Turnkey team (help@turnkey.com) for more information."
)
RATE_LIMITED = (
    "this organization cannot execute activities because it has been rate limited. "
    "Please reach out to the Turnkey team (help@turnkey.com) for more information."
)
RATE_LIMITED_PARENT = (
    "this sub-organization cannot execute activities because its parent has been rate limited. "
    "Please reach out to the Turnkey team (help@turnkey.com) for more information."
)


def documented(head: str, detail: str) -> str:
    """The catalogue's message first, so code matching it works, then the simulator's detail, so a
    person still sees why: ``missing wallet params: 'walletName' is a required property``."""
    return f"{head} {detail}" if head.endswith(".") else f"{head}: {detail}"
