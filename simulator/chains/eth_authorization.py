"""EIP-7702 authorizations (``PAYLOAD_ENCODING_EIP7702_AUTHORIZATION``): digest and ``eth.eip_7702_authorization``.

@turnkey/viem's ``signAuthorization`` sends ``JSON.stringify({address, chainId, nonce})`` (the
delegate contract's address; chainId and nonce as JSON numbers) with ``HASH_FUNCTION_NO_OP``;
the signer signs ``keccak256(0x05 ‖ rlp([chain_id, address, nonce]))`` and the result's ``v``
is the y-parity. Numbers are also accepted as decimal or ``0x`` hex strings; other keys are
refused, since Turnkey documents none. Chain id 0 (valid on every chain) is allowed, as EIP-7702
allows it; the nonce is 64-bit, as in the transaction's authorization list.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from simulator.chains import eth_rlp
from simulator.chains.eip712 import read_integer
from simulator.crypto.hashing import keccak256
from simulator.errors import InvalidArgument

MAGIC = b"\x05"
KEYS = ("address", "chainId", "nonce")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


@dataclass(frozen=True)
class Authorization:
    """One EIP-7702 authorization tuple, before it is signed."""

    chain_id: int
    address: str
    nonce: int

    @property
    def digest(self) -> bytes:
        body = eth_rlp.encode([self.chain_id, bytes.fromhex(self.address[2:]), self.nonce])
        return keccak256(MAGIC + body)

    @property
    def view(self) -> dict[str, Any]:
        """``eth.eip_7702_authorization``: the address lowercased, chain id and nonce as ints."""
        return {"address": self.address, "chain_id": self.chain_id, "nonce": self.nonce}


def authorization_digest(payload: str) -> bytes:
    """The 32-byte digest the authority signs."""
    return parse_authorization(payload).digest


def authorization_view(payload: str) -> dict[str, Any]:
    return parse_authorization(payload).view


def parse_authorization(payload: str) -> Authorization:
    try:
        document = json.loads(payload)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        raise bad('the payload must be JSON {"address", "chainId", "nonce"}') from None
    if not isinstance(document, dict):
        raise bad('the payload must be a JSON object {"address", "chainId", "nonce"}')
    unknown = sorted(set(document) - set(KEYS))
    missing = [key for key in KEYS if key not in document]
    if unknown or missing:
        raise bad(f"the payload must have exactly address, chainId and nonce (missing {missing}, unknown {unknown})")
    address = document["address"]
    if not isinstance(address, str) or not ADDRESS.match(address):
        raise bad(f"address must be 0x and 40 hex digits, got {json.dumps(address)[:60]}")
    return Authorization(
        chain_id=_number(document["chainId"], "chainId", 256),
        address=address.lower(),
        nonce=_number(document["nonce"], "nonce", 64),
    )


def _number(value: Any, name: str, bits: int) -> int:
    number = read_integer(value)
    if number is None:
        raise bad(f"{name} must be a non-negative integer (a number, decimal or 0x hex string), got {value!r}")
    if not 0 <= number < 2**bits:
        raise bad(f"{name} = {number} is out of range (0 to 2^{bits} - 1)")
    return number


def bad(reason: str) -> InvalidArgument:
    return InvalidArgument(f"invalid payload encoding: EIP-7702 authorization: {reason}")
