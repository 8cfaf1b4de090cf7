"""TON wallet addresses: the hash of the wallet contract's StateInit, user-friendly encoded.

As reference wallets (Tonkeeper) show them: workchain 0, the standard subwallet id
(698983191 for v3r2/v4r2; v5r1's id for mainnet, subwallet 0), and the non-bounceable
mainnet form (``UQ...``). The contract code enters only through its cell hash and depth.
"""

from __future__ import annotations

import base64
import hashlib

from simulator.crypto.chain_formats import crc16_xmodem, ed25519_key

CODE = {  # version: (code cell representation hash, code cell depth)
    "V3R2": (bytes.fromhex("84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599"), 0),
    "V4R2": (bytes.fromhex("feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0"), 7),
    "V5R1": (bytes.fromhex("20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f"), 6),
}
SUBWALLET = 698983191
V5R1_WALLET_ID = 2147483409  # mainnet global id -239 XOR the context of workchain 0, subwallet 0


class Cell:
    """Just enough of a TON cell to hash it: bits as a string of 0/1, and its children's
    (representation hash, depth) pairs."""

    def __init__(self, bits: str, children: tuple[tuple[bytes, int], ...] = ()) -> None:
        self.bits = bits
        self.children = children

    def depth(self) -> int:
        return 1 + max(d for _, d in self.children) if self.children else 0

    def hash(self) -> bytes:
        bits, count = self.bits, len(self.bits)
        if count % 8:
            bits += "1" + "0" * (7 - count % 8)
        data = int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""
        descriptors = bytes([len(self.children), count // 8 + (count + 7) // 8])
        depths = b"".join(d.to_bytes(2, "big") for _, d in self.children)
        return hashlib.sha256(descriptors + data + depths + b"".join(h for h, _ in self.children)).digest()


def uint(value: int, width: int) -> str:
    return format(value, f"0{width}b")


def data_cell(version: str, key: bytes) -> Cell:
    key_bits = "".join(format(b, "08b") for b in key)
    if version == "V3R2":
        return Cell(uint(0, 32) + uint(SUBWALLET, 32) + key_bits)
    if version == "V4R2":
        return Cell(uint(0, 32) + uint(SUBWALLET, 32) + key_bits + "0")  # empty plugins dictionary
    return Cell("1" + uint(0, 32) + uint(V5R1_WALLET_ID, 32) + key_bits + "0")  # signatures allowed, no extensions


def address(version: str, key: bytes) -> str:
    data = data_cell(version, ed25519_key(key))
    state_init = Cell("00110", (CODE[version], (data.hash(), data.depth())))  # code and data present
    body = bytes([0x51, 0x00]) + state_init.hash()  # non-bounceable, mainnet, workchain 0
    return base64.urlsafe_b64encode(body + crc16_xmodem(body).to_bytes(2, "big")).decode()


FORMATS = {f"ADDRESS_FORMAT_TON_{v}": (("CURVE_ED25519",), lambda curve, key, v=v: address(v, key)) for v in CODE}
