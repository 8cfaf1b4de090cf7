"""Bech32 (BIP-173) and bech32m (BIP-350) encoding, for segwit and Cosmos addresses."""

from __future__ import annotations

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BECH32, BECH32M = 1, 0x2BC830A3


def _polymod(values: list[int]) -> int:
    generator = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            checksum ^= generator[i] if (top >> i) & 1 else 0
    return checksum


def _expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _to_5_bits(data: bytes) -> list[int]:
    accumulator, bits, out = 0, 0, []
    for byte in data:
        accumulator = (accumulator << 8) | byte
        bits += 8
        while bits >= 5:
            bits -= 5
            out.append((accumulator >> bits) & 31)
    if bits:
        out.append((accumulator << (5 - bits)) & 31)
    return out


def bech32_encode(hrp: str, witness_version: int | None, program: bytes) -> str:
    """A segwit address (bech32 for v0, bech32m for v1+), or plain bech32 data when no version."""
    data = _to_5_bits(program) if witness_version is None else [witness_version, *_to_5_bits(program)]
    constant = BECH32M if witness_version not in (None, 0) else BECH32
    polymod = _polymod(_expand(hrp) + data + [0] * 6) ^ constant
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(CHARSET[d] for d in data + checksum)


def bech32m_data(hrp: str, data: bytes) -> str:
    """Bech32m over plain bytes with no witness version and no length limit (Spark addresses)."""
    words = _to_5_bits(data)
    polymod = _polymod(_expand(hrp) + words + [0] * 6) ^ BECH32M
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(CHARSET[d] for d in words + checksum)
