"""The enclave's envelopes and the one HPKE, checked with independent libraries: cryptography's own
HPKE (OpenSSL) opens what pyhpke sealed, ecdsa verifies the envelope signatures, bip-utils reads the
mnemonics in every language. The client-side helpers' refusals follow @turnkey/crypto's checks."""

from __future__ import annotations

import json

import pytest
from bip_utils import Bip39Languages, Bip39MnemonicDecoder, Bip39SeedGenerator
from bundle_checks import SIGNER, independent_open, verify_envelope
from cryptography.hazmat.primitives.asymmetric import ec

from simulator.clock import Source
from simulator.crypto import bundles, enduser, hpke, keys, mnemonic_languages
from simulator.crypto.bundles import BundleError

ORG, USER = "org-1", "user-1"
ENGLISH = "abandon " * 11 + "about"


@pytest.mark.parametrize("compressed", [True, False])
def test_export_bundle_opens_with_an_independent_hpke(compressed):
    client = ec.generate_private_key(ec.SECP256R1())
    target = keys.compressed_hex(client) if compressed else keys.uncompressed(client).hex()
    bundle = bundles.export_bundle(b"secret words", target, ORG, keys.new_ec_key(Source(1), "p256"))
    data = verify_envelope(bundle)
    assert data["organizationId"] == ORG and len(data["encappedPublic"]) == 130
    assert independent_open(bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"]), client) == (
        b"secret words"
    )


def test_sealing_is_deterministic_under_the_seeded_source():
    target = keys.uncompressed(keys.new_ec_key(Source(2), "p256")).hex()
    made = [bundles.export_bundle(b"x", target, ORG, keys.new_ec_key(Source(3), "p256")) for _ in range(2)]
    assert json.loads(made[0])["data"] == json.loads(made[1])["data"]


def test_credential_bundles_still_open_independently():
    client = ec.generate_private_key(ec.SECP256R1())
    bundle = hpke.credential_bundle(keys.compressed_hex(client), b"k" * 32, keys.new_ec_key(Source(4), "p256"))
    import base58

    raw = base58.b58decode_check(bundle)
    enc = keys.uncompressed(ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw[:33]))
    assert independent_open(enc, raw[33:], client) == b"k" * 32


def test_target_bundle_round_trip_through_the_client_helpers():
    target = keys.new_ec_key(Source(5), "p256")
    bundle = bundles.target_bundle(target, ORG, USER)
    assert verify_envelope(bundle) == {
        "targetPublic": keys.uncompressed(target).hex(),
        "organizationId": ORG,
        "userId": USER,
    }
    sealed = enduser.encrypt_wallet_to_bundle(ENGLISH, bundle, USER, ORG)
    enc, ciphertext = bundles.parse_sealed(sealed)
    assert independent_open(enc, ciphertext, target) == ENGLISH.encode()


@pytest.mark.parametrize(
    "user, org, signer, phrase",
    [
        ("someone-else", ORG, SIGNER, "user id does not match expected value"),
        (USER, "org-2", SIGNER, "organization id does not match expected value"),
        (USER, ORG, "04" + "ab" * 64, "does not match signer key from bundle"),
    ],
)
def test_client_helpers_refuse_what_turnkey_crypto_refuses(user, org, signer, phrase):
    bundle = bundles.target_bundle(keys.new_ec_key(Source(6), "p256"), ORG, USER)
    with pytest.raises(BundleError, match=phrase):
        enduser.encrypt_wallet_to_bundle(ENGLISH, bundle, user, org, signer_public_key=signer)


def test_a_tampered_envelope_does_not_verify():
    parsed = json.loads(bundles.target_bundle(keys.new_ec_key(Source(7), "p256"), ORG, USER))
    parsed["data"] = (
        json.dumps({"targetPublic": "04" + "00" * 64, "organizationId": ORG, "userId": USER}).encode().hex()
    )
    with pytest.raises(BundleError, match="signature does not verify"):
        enduser.encrypt_wallet_to_bundle(ENGLISH, json.dumps(parsed), USER, ORG)


def test_export_bundles_refuse_the_wrong_key_and_organization():
    client = enduser.ClientKeyPair.generate()
    bundle = bundles.export_bundle(b"m", client.public_key, ORG, keys.new_ec_key(Source(8), "p256"))
    assert enduser.decrypt_export_bundle(bundle, client.private_key, ORG, return_mnemonic=True) == "m"
    with pytest.raises(BundleError, match="organization id does not match"):
        enduser.decrypt_export_bundle(bundle, client.private_key, "org-2")
    with pytest.raises(BundleError, match="sealed to another target key"):
        enduser.decrypt_export_bundle(bundle, enduser.ClientKeyPair.generate().private_key, ORG)


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("nope", "not JSON"),
        ("[]", "JSON object"),
        ('{"ciphertext": "00"}', 'missing "encappedPublic"'),
        ('{"encappedPublic": "zz", "ciphertext": "00"}', "encappedPublic is not hex"),
        ('{"encappedPublic": "04' + "11" * 64 + '", "ciphertext": "' + "00" * 20 + '"}', "not a P-256 public key"),
    ],
)
def test_malformed_sealed_bundles_say_what_is_wrong(text, phrase):
    with pytest.raises(BundleError, match=phrase):
        bundles.parse_sealed(text)


@pytest.mark.parametrize(
    "api_language, bip_language",
    [
        ("MNEMONIC_LANGUAGE_FRENCH", Bip39Languages.FRENCH),
        ("MNEMONIC_LANGUAGE_SPANISH", Bip39Languages.SPANISH),
        ("MNEMONIC_LANGUAGE_CZECH", Bip39Languages.CZECH),
        ("MNEMONIC_LANGUAGE_ITALIAN", Bip39Languages.ITALIAN),
        ("MNEMONIC_LANGUAGE_KOREAN", Bip39Languages.KOREAN),
        ("MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE", Bip39Languages.CHINESE_SIMPLIFIED),
        ("MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE", Bip39Languages.CHINESE_TRADITIONAL),
    ],
)
def test_a_mnemonic_in_another_language_keeps_its_entropy(api_language, bip_language):
    words = mnemonic_languages.in_language(ENGLISH, api_language)
    assert words != ENGLISH
    entropy = bytes(Bip39MnemonicDecoder(bip_language).Decode(words))
    assert entropy == bytes(Bip39MnemonicDecoder(Bip39Languages.ENGLISH).Decode(ENGLISH))
    assert mnemonic_languages.language_of(words) is not None
    assert mnemonic_languages.seed_of(words) == bytes(Bip39SeedGenerator(words, bip_language).Generate())


def test_japanese_and_bad_checksums():
    words = mnemonic_languages.in_language(ENGLISH, "MNEMONIC_LANGUAGE_JAPANESE")
    assert "\u3000" in words and mnemonic_languages.language_of(words) == "japanese"
    assert mnemonic_languages.language_of("abandon " * 12) is None
    assert mnemonic_languages.language_of("abandon about") is None
