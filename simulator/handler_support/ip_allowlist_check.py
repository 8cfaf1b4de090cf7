"""The IP allow-list check every authenticated request passes (the lists are kept by
simulator/activities/ip_allowlist.py and read here).

The service's rules: only top-level organizations have them (requests authenticated in a
sub-organization are never evaluated). The organization's list (no ``publicKey``) applies when
enabled; enabled with no rules it blocks everything. A key's list is consulted only while the
organization's list is enabled: with rules it replaces the organization's for that key, empty
it falls back to it. Auth-proxy requests are exempt (here: requests without a client address).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from simulator.auth import Principal
from simulator.errors import PermissionDenied

CLIENT_IP_HEADER = "X-Simulator-Client-Ip"  # documented: a test pretends the request came from this address
REMOTE_ADDR_HEADER = "X-Simulator-Remote-Addr"  # private: the transport's peer address, set by app.py
ORG_LIST = ""  # the organization's own list, keyed by no public key


def client_address(headers: Mapping[str, str]) -> str | None:
    return headers.get(CLIENT_IP_HEADER) or headers.get(REMOTE_ADDR_HEADER) or None


def check_request(principal: Principal, headers: Mapping[str, str]) -> None:
    """Refuse a request from an address the caller's organization does not allow (after authentication)."""
    org = principal.organization
    org_list = org.ip_allowlists.get(ORG_LIST)
    address = client_address(headers)
    if org.parent_id is not None or org_list is None or not org_list.enabled or address is None:
        return
    key = principal.stamp.handle.lower() if principal.stamp is not None and principal.stamp.webauthn is None else ""
    key_list = org.ip_allowlists.get(key) if key else None
    governing = key_list if key_list is not None and key_list.rules else org_list
    try:
        ip = ipaddress.ip_address(address.strip())
        allowed = any(ip in ipaddress.ip_network(rule["cidr"]) for rule in governing.rules)
    except ValueError:
        allowed = governing.on_evaluation_error == "ALLOW"
    if not allowed:
        scope = f"API key {key}" if governing is key_list else f"organization {org.organization_id}"
        raise PermissionDenied(
            f"request from IP address {address} is not allowed by the IP allow-list of {scope}",
            error_code="FORBIDDEN",
        )
