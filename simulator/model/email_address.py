"""The check the service makes of an e-mail address it will keep: its syntax ("invalid email
address", INVALID_EMAIL) and whether its domain can receive mail at all ("could not reach email",
INVALID_FQDN).

The service looks the domain's mail servers up; the simulator never goes to the network, so it
refuses only the domains that cannot receive mail anywhere: the special-use and reserved names of
RFC 2606, RFC 6761, RFC 6762 and RFC 7686 (``.test``, ``.example``, ``.invalid``, ``.localhost``,
``.local``, ``.onion``, ``.arpa``), at the top of the domain. ``example.com``, ``.net`` and ``.org``
stay accepted: RFC 6761 asks applications not to treat them specially, and tests everywhere use
them (docs/ledger/errors-catalogue.yaml says why). The syntax is email-validator's, imported when an
address is first checked (start-up does not pay for it).
"""

from __future__ import annotations

from simulator.errors import InvalidArgument

# email-validator's SPECIAL_USE_DOMAIN_NAMES, plus the RFC 2606 "example" top-level domain
RESERVED_TOP = ("arpa", "example", "invalid", "local", "localhost", "onion", "test")
INVALID_EMAIL = "invalid email address"
UNREACHABLE = "could not reach email"


def checked_email(value: str) -> str:
    """``value`` unchanged when it is an address the service keeps; else the refusal it gets."""
    head, _, top = value.rstrip(".").rpartition(".")
    reserved = "@" in head and top.lower() in RESERVED_TOP
    # a reserved name is judged after the rest of the address: its syntax, with an ordinary top label
    syntax_error = email_syntax_error(f"{head}.com" if reserved else value)
    if syntax_error:
        raise InvalidArgument(f"{INVALID_EMAIL}: {value!r}: {syntax_error}", error_code="INVALID_EMAIL")
    if reserved:
        raise InvalidArgument(
            f"{UNREACHABLE}: {value!r}: .{top.lower()} is a special-use domain (RFC 2606, 6761, 6762, "
            "7686) that receives no mail",
            error_code="INVALID_FQDN",
        )
    return value


def email_syntax_error(value: str) -> str | None:
    """email-validator's reason ``value`` is not an address mail could be sent to, or None."""
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(value, check_deliverability=False)
    except EmailNotValidError as error:
        return str(error)
    return None
