"""The check the service makes of an e-mail address it will keep: its syntax ("invalid email
address", INVALID_EMAIL) and whether its domain can receive mail at all ("could not reach email",
INVALID_FQDN).

The service looks the domain's mail servers up; the simulator never goes to the network, so it
judges only the domains that cannot receive mail anywhere: the special-use and reserved names of
RFC 2606, RFC 6761, RFC 6762 and RFC 7686 (``.test``, ``.example``, ``.invalid``, ``.localhost``,
``.local``, ``.onion``, ``.arpa``), at the top of the domain. ``example.com``, ``.net`` and ``.org``
stay accepted: RFC 6761 asks applications not to treat them specially, and tests everywhere use
them (docs/ledger/errors-catalogue.yaml says why). The syntax is email-validator's, imported when an
address is first checked (start-up does not pay for it).

A bad syntax is always refused. A domain that cannot receive mail is refused only in the strictest
reading (``Config.strict_email``, ``serve --strict-email``, a scenario's ``strictEmail: true``); by
default it is accepted with a warning (simulator/handler_support/request_warnings.py): the catalogue gives
the message, not the trigger, and test data everywhere uses the RFC 2606 and 6761 names
(docs/ledger/email-reachability.yaml).
"""

from __future__ import annotations

from simulator.errors import InvalidArgument
from simulator.handler_support.request_warnings import warn

# email-validator's SPECIAL_USE_DOMAIN_NAMES, plus the RFC 2606 "example" top-level domain
RESERVED_TOP = ("arpa", "example", "invalid", "local", "localhost", "onion", "test")
INVALID_EMAIL = "invalid email address"
UNREACHABLE = "could not reach email"


def checked_email(value: str, *, strict: bool) -> str:
    """``value`` unchanged when it is an address the service keeps; else the refusal it gets.

    Not ``strict``: an address whose domain cannot receive mail is kept, with a warning."""
    refusal = refusal_of(value)
    if refusal is None:
        return value
    if refusal.error_code == "INVALID_FQDN" and not strict:
        warn(
            f"{refusal.message}; accepted, where the service refuses it (400 INVALID_FQDN): {STRICT_SWITCHES} refuse it"
        )
        return value
    raise refusal


def refusal_of(value: str) -> InvalidArgument | None:
    """The service's refusal of ``value`` (INVALID_EMAIL, INVALID_FQDN), or None for an address it keeps."""
    head, _, top = value.rstrip(".").rpartition(".")
    reserved = "@" in head and top.lower() in RESERVED_TOP
    # a reserved name is judged after the rest of the address: its syntax, with an ordinary top label
    syntax_error = email_syntax_error(f"{head}.com" if reserved else value)
    if syntax_error:
        return InvalidArgument(f"{INVALID_EMAIL}: {value!r}: {syntax_error}", error_code="INVALID_EMAIL")
    return unreachable(value)


def unreachable(value: str) -> InvalidArgument | None:
    """The refusal "could not reach email" of an address under a reserved top-level name, judged on that name alone
    (the scenario checks use it: email-validator, 80 ms to import, is left for the first request that keeps one)."""
    head, _, top = value.rstrip(".").rpartition(".")
    if "@" not in head or top.lower() not in RESERVED_TOP:
        return None
    return InvalidArgument(
        f"{UNREACHABLE}: {value!r}: .{top.lower()} is a special-use domain (RFC 2606, 6761, 6762, 7686) that "
        "receives no mail",
        error_code="INVALID_FQDN",
    )


STRICT_SWITCHES = "serve --strict-email, Config(strict_email=True) and a scenario's strictEmail: true"


def email_syntax_error(value: str) -> str | None:
    """email-validator's reason ``value`` is not an address mail could be sent to, or None."""
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(value, check_deliverability=False)
    except EmailNotValidError as error:
        return str(error)
    return None
