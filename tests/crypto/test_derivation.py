"""BIP-39, BIP-32 and SLIP-10 against their published test vectors."""

from __future__ import annotations

import pytest

from simulator.crypto import hd

SEED_1 = bytes.fromhex("000102030405060708090a0b0c0d0e0f")


@pytest.mark.parametrize(
    "entropy, words, seed",
    [
        (
            "00" * 16,
            "abandon " * 11 + "about",
            "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
        ),
        (
            "7f" * 16,
            "legal winner thank year wave sausage worth useful legal winner thank yellow",
            "2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607",
        ),
        (
            "ff" * 16,
            "zoo " * 11 + "wrong",
            "ac27495480225222079d7be181583751e86f571027b0497b5b5d11218e0a8a13332572917f0f8e5a589620c6f15b11c61dee327651a14c34e18231052e48c069",
        ),
    ],
)
def test_bip39_trezor_vectors(entropy, words, seed):
    """Entropy to words to seed, with the vectors' passphrase TREZOR."""
    assert hd.generate_mnemonic(bytes.fromhex(entropy)) == words.strip()
    assert hd.mnemonic_to_seed(words.strip(), "TREZOR").hex() == seed


@pytest.mark.parametrize("length", sorted(hd.MNEMONIC_LENGTHS))
def test_every_mnemonic_length_round_trips(length):
    words = hd.generate_mnemonic(bytes(range(hd.MNEMONIC_LENGTHS[length])))
    assert len(words.split()) == length and hd.is_valid_mnemonic(words)


def test_a_bad_checksum_is_refused():
    with pytest.raises(hd.DerivationError, match="invalid mnemonic"):
        hd.mnemonic_to_seed("abandon " * 12)


@pytest.mark.parametrize(
    "path, chain_code, private_key",
    [
        (
            "m",
            "873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508",
            "e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35",
        ),
        (
            "m/0'",
            "47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141",
            "edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea",
        ),
        (
            "m/0'/1",
            "2a7857631386ba23dacac34180dd1983734e444fdbf774041578e9b6adb37c19",
            "3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368",
        ),
        (
            "m/0'/1/2'",
            "04466b9cc8e161e966409ca52986c584f07e9dc81f735db683c3ff6ec7b1503f",
            "cbce0d719ecf7431d88e6a89fa1483e02e35092af60c042b1df2ff59fa424dca",
        ),
        (
            "m/0'/1/2'/2",
            "cfb71883f01676f587d023cc53a35bc7f88f724b1f8c2892ac1275ac822a3edd",
            "0f479245fb19a38a1954c5c7c0ebab2f9bdfd96a17563ef28a6a4b1a2a764ef4",
        ),
        (
            "m/0'/1/2'/2/1000000000",
            "c783e67b921d2beb8f6b389cc646d7263b4145701dadd2161548a8b078e65e9e",
            "471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8",
        ),
    ],
)
def test_bip32_vector_1(path, chain_code, private_key):
    key = hd.derive(SEED_1, "CURVE_SECP256K1", path)
    assert (key.chain_code.hex(), key.private_key.hex()) == (chain_code, private_key)


@pytest.mark.parametrize(
    "path, chain_code, private_key, public_key",
    [
        (
            "m",
            "90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb",
            "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7",
            "a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed",
        ),
        (
            "m/0'",
            "8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69",
            "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3",
            "8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c",
        ),
    ],
)
def test_slip10_ed25519_vector_1(path, chain_code, private_key, public_key):
    key = hd.derive(SEED_1, "CURVE_ED25519", path)
    assert (key.chain_code.hex(), key.private_key.hex(), key.public_key.hex()) == (chain_code, private_key, public_key)


@pytest.mark.parametrize(
    "path, chain_code, private_key",
    [
        (
            "m",
            "beeb672fe4621673f722f38529c07392fecaa61015c80c34f29ce8b41b3cb6ea",
            "612091aaa12e22dd2abef664f8a01a82cae99ad7441b7ef8110424915c268bc2",
        ),
        (
            "m/0'",
            "3460cea53e6a6bb5fb391eeef3237ffd8724bf0a40e94943c98b83825342ee11",
            "6939694369114c67917a182c59ddb8cafc3004e63ca5d3b84403ba8613debc0c",
        ),
    ],
)
def test_slip10_nist256p1_vector_1(path, chain_code, private_key):
    key = hd.derive(SEED_1, "CURVE_P256", path)
    assert (key.chain_code.hex(), key.private_key.hex()) == (chain_code, private_key)


def test_ed25519_treats_every_element_as_hardened():
    seed = hd.mnemonic_to_seed("abandon " * 11 + "about")
    assert hd.derive(seed, "CURVE_ED25519", "m/44'/784'/0'/0/0") == hd.derive(
        seed, "CURVE_ED25519", "m/44'/784'/0'/0'/0'"
    )


@pytest.mark.parametrize("path", ["44'/60'", "m//1", "m/x", "m/2147483648", "m/1''", "m/-1", "n/0"])
def test_malformed_paths_are_refused(path):
    with pytest.raises(hd.InvalidPath, match="invalid path format"):
        hd.parse_path(path)


def test_hardened_markers_are_equivalent():
    assert hd.parse_path("m/44'/60h/0H/0/1") == (0x8000002C, 0x8000003C, 0x80000000, 0, 1)


def test_an_unknown_curve_is_refused():
    with pytest.raises(hd.InvalidCurve, match="invalid curve"):
        hd.derive(SEED_1, "CURVE_X", "m/0")
