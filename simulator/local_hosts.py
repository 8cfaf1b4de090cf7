"""Which names and origins are this machine: the one rule the Host check and the CORS defaults share.

A browser decides what a page may do by the page's *name*, and a name can be pointed at 127.0.0.1 by whoever
owns it (DNS rebinding): a page at ``http://attacker.example:8080`` whose name now resolves to loopback is,
to the browser, same-origin with the simulator. The simulator therefore trusts names that cannot be rebound:
``localhost`` and ``*.localhost`` (browsers resolve them to loopback themselves, RFC 6761), and IP addresses
(an address names one machine; there is nothing to rebind). Anything else must be named by the person who
started the simulator (``--allowed-host``), as Vite's ``server.allowedHosts`` and webpack-dev-server's
``allowedHosts`` do.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

LOCALHOST = "localhost"


def host_name(header: str) -> str | None:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), lower-cased and
    without a trailing dot; None when the header cannot be a host."""
    text = header.strip().lower()
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return inside if is_ip(inside) else None
    name, colon, port = text.partition(":")
    if colon and not port.isdigit():
        return None  # a bare IPv6 address, or garbage: browsers always bracket v6 in Host
    name = name.rstrip(".")
    if not name or any(c in name for c in "/\\@ \t?#"):
        return None
    return name


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback_name(name: str) -> bool:
    """``localhost``, ``*.localhost``, 127.0.0.0/8 or ::1."""
    if name == LOCALHOST or name.endswith("." + LOCALHOST):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


@lru_cache(maxsize=512)  # every request asks, with a handful of distinct Hosts; bounded against a flood of others
def host_allowed(header: str | None, bind_host: str, allowed: tuple[str, ...]) -> bool:
    """Whether a request whose ``Host`` is ``header`` is for this simulator: a loopback name, an IP address,
    the address it listens on, or a name in ``allowed`` (``.example.com`` allows every name under example.com,
    ``*`` every name, as Vite's allowedHosts)."""
    if not header:
        return False  # HTTP/1.1 requires Host; a browser always sends one
    name = host_name(header)
    if name is None:
        return False
    if is_loopback_name(name) or is_ip(name) or name == bind_host.strip("[]").lower().rstrip("."):
        return True
    for entry in allowed:
        wanted = entry.strip().lower().rstrip(".")
        if (
            wanted == "*"
            or wanted == name
            or (wanted.startswith(".") and (name.endswith(wanted) or name == wanted[1:]))
        ):
            return True
    return False


def is_loopback_origin(origin: str | None) -> bool:
    """``http(s)://`` with a loopback name (``localhost``, ``*.localhost``, 127.0.0.0/8, ``[::1]``), any port."""
    if not origin:
        return False
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme.lower() not in ("http", "https") or "/" in rest:
        return False
    name = host_name(rest)
    return name is not None and is_loopback_name(name)
