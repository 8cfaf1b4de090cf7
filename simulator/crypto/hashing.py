"""Hash functions the chains use that hashlib lacks."""

from __future__ import annotations


def keccak256(data: bytes) -> bytes:
    """Ethereum's Keccak-256 (the pre-standard SHA-3 padding), from pycryptodome."""
    from Crypto.Hash import keccak

    return keccak.new(digest_bits=256, data=data).digest()
