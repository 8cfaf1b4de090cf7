"""The simulator's RLP encoder (simulator/chains/eth_rlp.py) gives pyrlp's bytes for every shape a
transaction has and the edge lengths of the format (55/56 bytes, long lists, nested lists, zero)."""

from __future__ import annotations

import random

import rlp  # type: ignore[import-untyped]

from simulator.chains import eth_rlp


def as_bytes(item: object) -> object:
    if isinstance(item, int):
        return item.to_bytes((item.bit_length() + 7) // 8, "big")
    if isinstance(item, bytes):
        return item
    return [as_bytes(part) for part in item]  # type: ignore[attr-defined]


def shapes(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(4 if depth < 3 else 2)
    if kind == 0:
        return rng.choice([0, 1, 0x7F, 0x80, 0xFF, 2**64 - 1, 2**256 - 1, rng.getrandbits(rng.randrange(1, 300))])
    if kind == 1:
        return bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 2, 55, 56, 57, 255, 256, 1025])))
    return [shapes(rng, depth + 1) for _ in range(rng.choice([0, 1, 3, 12, 60]))]


def test_the_encoder_gives_pyrlps_bytes() -> None:
    rng = random.Random(41)
    for single in (b"", b"\x00", b"\x7f", b"\x80", b"a" * 55, b"a" * 56, b"a" * 2**16, [], [[]], [b""] * 56):
        assert eth_rlp.encode(single) == rlp.encode(single)
    for _ in range(400):
        item = shapes(rng)
        assert eth_rlp.encode(item) == rlp.encode(as_bytes(item))  # type: ignore[arg-type]


def test_what_it_encodes_decodes_back() -> None:
    item = [1, 2, 10**18, bytes(20), b"", [], [[b"\x01", 5], [b"\x02"]], 2**255]
    assert eth_rlp.decode(eth_rlp.encode(item)) == as_bytes(item)


def test_extending_an_encoded_list_is_encoding_the_longer_list() -> None:
    rng = random.Random(7)
    for _ in range(200):
        items = [shapes(rng, 1) for _ in range(rng.choice([0, 1, 8, 11, 60]))]
        extra = [rng.getrandbits(8), 2**256 - 1 - rng.getrandbits(200), rng.getrandbits(256)]
        assert eth_rlp.extend_list(eth_rlp.encode(items), extra) == eth_rlp.encode([*items, *extra])
