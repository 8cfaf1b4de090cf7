"""The key lifecycle through the official Python client (turnkey-http 0.2.0, unmodified), with the
simulator.testing helpers on the client's side. turnkey-http exposes every method used here:
export_wallet, export_wallet_account, export_private_key, init_import_wallet,
init_import_private_key, import_wallet, import_private_key, delete_wallets,
delete_wallet_accounts, delete_private_keys and delete_sub_organization."""

from __future__ import annotations

import os

import pytest

T = pytest.importorskip("turnkey_sdk_types")
from bip_utils import Bip39MnemonicGenerator, Bip39WordsNum  # noqa: E402
from conftest import DEFAULTS  # noqa: E402
from eth_hash.auto import keccak  # noqa: E402
from eth_keys import keys as eth  # noqa: E402
from support import eth_address_of  # noqa: E402

from simulator import testing  # noqa: E402

ORG, ROOT = DEFAULTS["organizationId"], DEFAULTS["userId"]
ETH = T.v1WalletAccountParams(
    curve="CURVE_SECP256K1",
    pathFormat="PATH_FORMAT_BIP32",
    path="m/44'/60'/0'/0/0",
    addressFormat="ADDRESS_FORMAT_ETHEREUM",
)


def test_create_export_decrypt_rederive(turnkey_client):
    wallet = turnkey_client.create_wallet(T.CreateWalletBody(walletName="py", accounts=[ETH]))
    target = testing.ClientKeyPair.generate()
    exported = turnkey_client.export_wallet(
        T.ExportWalletBody(walletId=wallet.walletId, targetPublicKey=target.public_key_uncompressed)
    )
    mnemonic = testing.decrypt_export_bundle(exported.exportBundle, target.private_key, ORG, return_mnemonic=True)
    assert eth_address_of(mnemonic) == wallet.addresses[0]
    assert turnkey_client.get_wallet(T.GetWalletBody(walletId=wallet.walletId)).wallet.exported is True
    account = turnkey_client.export_wallet_account(
        T.ExportWalletAccountBody(address=wallet.addresses[0], targetPublicKey=target.public_key)
    )
    raw = testing.decrypt_export_bundle(account.exportBundle, target.private_key, ORG)
    assert eth.PrivateKey(bytes.fromhex(raw)).public_key.to_checksum_address() == wallet.addresses[0]


def test_import_wallet_and_private_key_then_sign(turnkey_client):
    mnemonic = str(Bip39MnemonicGenerator().FromWordsNumber(Bip39WordsNum.WORDS_NUM_12))
    init = turnkey_client.init_import_wallet(T.InitImportWalletBody(userId=ROOT))
    sealed = testing.encrypt_wallet_to_bundle(mnemonic, init.importBundle, ROOT, ORG)
    wallet = turnkey_client.import_wallet(
        T.ImportWalletBody(userId=ROOT, walletName="imported", encryptedBundle=sealed, accounts=[ETH])
    )
    assert wallet.addresses == [eth_address_of(mnemonic)]
    local = eth.PrivateKey(os.urandom(32))
    init = turnkey_client.init_import_private_key(T.InitImportPrivateKeyBody(userId=ROOT))
    sealed = testing.encrypt_private_key_to_bundle(local.to_bytes().hex(), init.importBundle, ROOT, ORG)
    key = turnkey_client.import_private_key(
        T.ImportPrivateKeyBody(
            userId=ROOT,
            privateKeyName="imported key",
            encryptedBundle=sealed,
            curve="CURVE_SECP256K1",
            addressFormats=["ADDRESS_FORMAT_ETHEREUM"],
        )
    )
    assert key.addresses[0].address == local.public_key.to_checksum_address()
    payload = os.urandom(32).hex()
    signed = turnkey_client.sign_raw_payload(
        T.SignRawPayloadBody(
            signWith=key.privateKeyId,
            payload=payload,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hashFunction="HASH_FUNCTION_KECCAK256",
        )
    )
    signature = eth.Signature(vrs=(int(signed.v, 16), int(signed.r, 16), int(signed.s, 16)))
    assert signature.recover_public_key_from_msg_hash(keccak(bytes.fromhex(payload))) == local.public_key


def test_delete_refused_then_exported_then_accepted(turnkey_client):
    from turnkey_sdk_types.errors import TurnkeyNetworkError

    wallet = turnkey_client.create_wallet(T.CreateWalletBody(walletName="to delete", accounts=[ETH]))
    with pytest.raises(TurnkeyNetworkError) as caught:
        turnkey_client.delete_wallets(T.DeleteWalletsBody(walletIds=[wallet.walletId]))
    assert caught.value.status_code == 400 and "has not been exported" in str(caught.value)
    target = testing.ClientKeyPair.generate()
    turnkey_client.export_wallet(T.ExportWalletBody(walletId=wallet.walletId, targetPublicKey=target.public_key))
    deleted = turnkey_client.delete_wallets(T.DeleteWalletsBody(walletIds=[wallet.walletId]))
    assert deleted.walletIds == [wallet.walletId]
