"""The wallet, network and transaction-management pages of Turnkey's docs (issue 53's sweep, area
``chains``: docs/conformance/chains.yaml), each statement shown through the HTTP surface.

Addresses are re-derived from the exported mnemonic with bip-utils and the BIP-173 ``bech32`` package,
signatures verified with coincurve and PyNaCl, signed transactions decoded with eth-account: never by the
simulator's own code.
"""

from __future__ import annotations

import hashlib
from typing import Any

import bech32 as bech32_reference
import bip_utils as bu
import coincurve
import pytest
from bip_utils.ton.addr import TonAddrVersions
from bundle_checks import independent_open, verify_envelope
from conftest import ETH_ACCOUNT, ok, result_of
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from nacl.signing import VerifyKey
from solders.hash import Hash
from solders.instruction import Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import CreateAccountParams, TransferParams, create_account, transfer
from solders.transaction import VersionedTransaction
from support import SOL_ACCOUNT, assert_error, create_policy, new_wallet, sub_org_with_key, submit

from simulator import testing
from simulator.crypto import keys
from simulator.standins import longtail

BLOCKHASH = Hash.from_string("4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM")


def account(fmt: str, curve: str, path: str) -> dict[str, str]:
    return {"curve": curve, "pathFormat": "PATH_FORMAT_BIP32", "path": path, "addressFormat": fmt}


def exported_mnemonic(client: Any, wallet_id: str) -> str:
    target = testing.ClientKeyPair.generate()
    params = {"walletId": wallet_id, "targetPublicKey": target.public_key}
    data = verify_envelope(submit(client, "export_wallet", params, "exportWalletResult")["exportBundle"])
    receiver = keys.ec_key_from_hex("p256", target.private_key)
    return independent_open(bytes.fromhex(data["encappedPublic"]), bytes.fromhex(data["ciphertext"]), receiver).decode()


# --- features/wallets.mdx -----------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [None, 12, 15, 18, 21, 24])
def test_a_wallet_seed_has_the_mnemonic_length_asked_for_and_12_words_by_default(client, length):
    params: dict[str, Any] = {"walletName": f"w{length}", "accounts": [ETH_ACCOUNT]}
    if length is not None:
        params["mnemonicLength"] = length
    wallet = submit(client, "create_wallet", params, "createWalletResult")
    mnemonic = exported_mnemonic(client, wallet["walletId"])
    assert len(mnemonic.split()) == (length or 12)
    assert bu.Bip39MnemonicValidator().IsValid(mnemonic)


def test_a_wallet_account_names_its_derivation(client):
    wallet = new_wallet(client, "fields", [ETH_ACCOUNT])
    found = ok(client.query("get_wallet_account", walletId=wallet["walletId"], address=wallet["addresses"][0]))
    got = found["account"]
    assert {k: got[k] for k in ("address", "addressFormat", "curve", "path", "pathFormat", "walletId")} == {
        "address": wallet["addresses"][0],
        "walletId": wallet["walletId"],
        **ETH_ACCOUNT,
    }


def hardened(path: str) -> str:
    """SLIP-10 Ed25519 derives hardened children only: every element of the path, as Turnkey reads it."""
    return "m/" + "/".join(p if p.endswith("'") else p + "'" for p in path[2:].split("/"))


def p2wsh(public: bytes, hrp: str) -> str:
    return str(bech32_reference.encode(hrp, 0, hashlib.sha256(b"\x21" + public + b"\xac").digest()))


BTC = {"MAINNET": (b"\x00", b"\x05", "bc"), "TESTNET": (b"\x6f", b"\xc4", "tb")}
BTC |= {"SIGNET": BTC["TESTNET"], "REGTEST": (b"\x6f", b"\xc4", "bcrt")}
ENCODERS = {
    "ADDRESS_FORMAT_COMPRESSED": lambda k: k.hex(),
    "ADDRESS_FORMAT_UNCOMPRESSED": lambda k: coincurve.PublicKey(k).format(compressed=False).hex(),
    "ADDRESS_FORMAT_ETHEREUM": bu.EthAddrEncoder.EncodeKey,
    "ADDRESS_FORMAT_COSMOS": lambda k: bu.AtomAddrEncoder.EncodeKey(k, hrp="cosmos"),
    "ADDRESS_FORMAT_SEI": lambda k: bu.AtomAddrEncoder.EncodeKey(k, hrp="sei"),
    "ADDRESS_FORMAT_SOLANA": bu.SolAddrEncoder.EncodeKey,
    "ADDRESS_FORMAT_TRON": bu.TrxAddrEncoder.EncodeKey,
    "ADDRESS_FORMAT_SUI": lambda k: bu.SuiAddrEncoder.EncodeKey(b"\x00" + k),
    "ADDRESS_FORMAT_APTOS": lambda k: bu.AptosAddrEncoder.EncodeKey(b"\x00" + k),
    "ADDRESS_FORMAT_XLM": lambda k: bu.XlmAddrEncoder.EncodeKey(b"\x00" + k, addr_type=bu.XlmAddrTypes.PUB_KEY),
    "ADDRESS_FORMAT_XRP": bu.XrpAddrEncoder.EncodeKey,
    "ADDRESS_FORMAT_DOGE_MAINNET": lambda k: bu.P2PKHAddrEncoder.EncodeKey(k, net_ver=b"\x1e"),
    "ADDRESS_FORMAT_DOGE_TESTNET": lambda k: bu.P2PKHAddrEncoder.EncodeKey(k, net_ver=b"\x71"),
    "ADDRESS_FORMAT_TON_V3R2": lambda k: bu.TonAddrEncoder.EncodeKey(
        k, version=TonAddrVersions.V3R2, is_bounceable=False
    ),
    "ADDRESS_FORMAT_TON_V4R2": lambda k: bu.TonAddrEncoder.EncodeKey(
        k, version=TonAddrVersions.V4, is_bounceable=False
    ),
}
for _net, (_pkh, _sh, _hrp) in BTC.items():
    ENCODERS |= {
        f"ADDRESS_FORMAT_BITCOIN_{_net}_P2PKH": lambda k, v=_pkh: bu.P2PKHAddrEncoder.EncodeKey(k, net_ver=v),
        f"ADDRESS_FORMAT_BITCOIN_{_net}_P2SH": lambda k, v=_sh: bu.P2SHAddrEncoder.EncodeKey(k, net_ver=v),
        f"ADDRESS_FORMAT_BITCOIN_{_net}_P2WPKH": lambda k, h=_hrp: bu.P2WPKHAddrEncoder.EncodeKey(k, hrp=h),
        f"ADDRESS_FORMAT_BITCOIN_{_net}_P2WSH": lambda k, h=_hrp: p2wsh(k, h),
        f"ADDRESS_FORMAT_BITCOIN_{_net}_P2TR": lambda k, h=_hrp: bu.P2TRAddrEncoder.EncodeKey(k, hrp=h),
    }

# The table "Address formats and curves" of features/wallets.mdx, row by row (Sei with the curve its own
# page names, features/networks/sei.mdx; Spark has a page and a sweep of its own).
S, E = "CURVE_SECP256K1", "CURVE_ED25519"
TABLE = [
    ("ADDRESS_FORMAT_COMPRESSED", S, "m/0'/0"),
    ("ADDRESS_FORMAT_COMPRESSED", E, "m/0'/0"),
    ("ADDRESS_FORMAT_UNCOMPRESSED", S, "m/0'/0"),
    ("ADDRESS_FORMAT_ETHEREUM", S, "m/44'/60'/0'/0/0"),
    ("ADDRESS_FORMAT_COSMOS", S, "m/44'/118'/0'/0/0"),
    ("ADDRESS_FORMAT_SOLANA", E, "m/44'/501'/0'/0"),
    ("ADDRESS_FORMAT_TRON", S, "m/44'/195'/0'/0/0"),
    ("ADDRESS_FORMAT_SUI", E, "m/44'/784'/0'/0/0"),
    ("ADDRESS_FORMAT_APTOS", E, "m/44'/637'/0'/0'/0"),
    ("ADDRESS_FORMAT_COMPRESSED", E, "m/44'/0'/0'/0/0"),  # Canton
    *[
        (f"ADDRESS_FORMAT_BITCOIN_{net}_{kind}", S, f"m/{purpose}/{coin}'/0'/{rest}")
        for net, coin in (("MAINNET", 0), ("TESTNET", 1), ("SIGNET", 1), ("REGTEST", 1))
        for kind, purpose, rest in (
            ("P2PKH", "44'", "0/0"),
            ("P2SH", "49'", "0/0"),
            ("P2WPKH", "84'", "0/0"),
            ("P2WSH", "48'", "2'/0/0"),
            ("P2TR", "86'", "0/0"),
        )
    ],
    ("ADDRESS_FORMAT_SEI", S, "m/44'/118'/0'/0/0"),
    ("ADDRESS_FORMAT_XLM", E, "m/44'/148'/0'/0'/0"),
    ("ADDRESS_FORMAT_DOGE_MAINNET", S, "m/44'/3'/0'/0/0"),
    ("ADDRESS_FORMAT_DOGE_TESTNET", S, "m/44'/1'/0'/0/0"),
    ("ADDRESS_FORMAT_TON_V3R2", E, "m/44'/607'/0'/0/0"),
    ("ADDRESS_FORMAT_TON_V4R2", E, "m/44'/607'/0'/0/0"),
    ("ADDRESS_FORMAT_XRP", S, "m/44'/144'/0'/0/0"),
    ("ADDRESS_FORMAT_ETHEREUM", S, "m/44'/60'/0'/0/0"),  # Flare
]


def independent_address(seed: bytes, fmt: str, curve: str, path: str) -> str:
    if curve == E:
        public = bu.Bip32Slip10Ed25519.FromSeed(seed).DerivePath(hardened(path)).PublicKey().RawCompressed().ToBytes()
        public = public[1:]  # bip-utils prefixes Ed25519 keys with 0x00
    else:
        public = bu.Bip32Slip10Secp256k1.FromSeed(seed).DerivePath(path).PublicKey().RawCompressed().ToBytes()
    return str(ENCODERS[fmt](public))


def test_every_documented_address_format_derives_at_its_default_path(client):
    # a wallet uses each path once, so the rows sharing a default path go to wallets of their own
    groups: list[list[tuple[str, str, str]]] = []
    for row in TABLE:
        free = next((g for g in groups if all(r[2] != row[2] for r in g)), None)
        free.append(row) if free is not None else groups.append([row])
    wrong = []
    for number, rows in enumerate(groups):
        wallet = new_wallet(client, f"table {number}", [account(*row) for row in rows])
        seed = bu.Bip39SeedGenerator(exported_mnemonic(client, wallet["walletId"])).Generate()
        wrong += [
            (row, got, want)
            for row, got in zip(rows, wallet["addresses"], strict=True)
            if got != (want := independent_address(seed, *row))
        ]
    assert wrong == []


def test_the_two_spellings_of_the_solana_default_path_are_one_address(client):
    wallet = new_wallet(
        client,
        "solana paths",
        [SOL_ACCOUNT, account("ADDRESS_FORMAT_SOLANA", E, "m/44'/501'/0'/0")],
    )
    first, second = wallet["addresses"]
    assert first == second


def test_sei_derives_on_secp256k1_as_its_page_says_not_on_ed25519(client):
    made = new_wallet(client, "sei", [account("ADDRESS_FORMAT_SEI", S, "m/44'/118'/0'/0/0")])
    assert made["addresses"][0].startswith("sei1")
    params = {"walletName": "sei ed", "accounts": [account("ADDRESS_FORMAT_SEI", E, "m/44'/118'/0'/0/0")]}
    assert_error(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params), 400, 3, "curve")


def test_a_compressed_ed25519_account_signs_raw_payloads(client):
    address = new_wallet(client, "raw", [account("ADDRESS_FORMAT_COMPRESSED", E, "m/0'/0")])["addresses"][0]
    params = {
        "signWith": address,
        "payload": "68656c6c6f",
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NOT_APPLICABLE",
    }
    signed = submit(client, "sign_raw_payload", params, "signRawPayloadResult", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")
    VerifyKey(bytes.fromhex(address)).verify(b"hello", bytes.fromhex(signed["r"] + signed["s"]))


# --- features/networks/bitcoin.mdx: "Schnorr signatures and tweaks" ------------------------------------------

DIGEST = hashlib.sha256(b"a taproot sighash").hexdigest()


def raw(client: Any, sign_with: str, payload: str = DIGEST) -> dict[str, str]:
    params = {
        "signWith": sign_with,
        "payload": payload,
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    return submit(client, "sign_raw_payload", params, "signRawPayloadResult", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")


@pytest.mark.parametrize("network, hrp", [("MAINNET", "bc"), ("TESTNET", "tb"), ("REGTEST", "bcrt")])
def test_a_taproot_address_signs_bip340_schnorr_with_the_tweaked_key(client, network, hrp):
    fmt = f"ADDRESS_FORMAT_BITCOIN_{network}_P2TR"
    taproot = new_wallet(client, "tr", [account(fmt, S, "m/86'/0'/0'/0/0")])["addresses"][0]
    # the tweaked key the address commits to (witness version 1, bech32m)
    output_key = coincurve.PublicKeyXOnly(bu.P2TRAddrDecoder.DecodeAddr(taproot, hrp=hrp))
    signed = raw(client, taproot)
    assert signed["v"] == "00"
    assert output_key.verify(bytes.fromhex(signed["r"] + signed["s"]), bytes.fromhex(DIGEST))
    batch = {
        "signWith": taproot,
        "payloads": [DIGEST, hashlib.sha256(b"another").hexdigest()],
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
    }
    both = submit(client, "sign_raw_payloads", batch, "signRawPayloadsResult")["signatures"]
    for payload, signature in zip(batch["payloads"], both, strict=True):
        assert output_key.verify(bytes.fromhex(signature["r"] + signature["s"]), bytes.fromhex(payload))


def test_a_segwit_address_still_signs_ecdsa_and_taproot_needs_a_digest(client):
    segwit, taproot = new_wallet(
        client,
        "btc",
        [
            account("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", S, "m/84'/0'/0'/0/0"),
            account("ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", S, "m/86'/0'/0'/0/0"),
        ],
    )["addresses"]
    signed = raw(client, segwit)
    recovered = coincurve.PublicKey.from_signature_and_message(
        bytes.fromhex(signed["r"] + signed["s"] + signed["v"]), bytes.fromhex(DIGEST), hasher=None
    )
    _, program = bech32_reference.decode("bc", segwit)
    assert bu.Hash160.QuickDigest(recovered.format()) == bytes(program)
    assert_error(
        client.submit(
            "sign_raw_payload",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            {
                "signWith": taproot,
                "payload": "abcd",
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            },
        ),
        400,
        3,
        "32-byte digest",
    )


# --- features/networks/ethereum.mdx and solana.mdx: sends and sponsorship --------------------------------------

RECIPIENT = "0x" + "ab" * 20


def eth_send(client: Any, params: dict[str, Any]) -> str:
    return result_of(
        client.submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", params),
        "ethSendTransactionResultV2",
    )["sendTransactionStatusId"]


def test_unsponsored_sends_get_their_nonce_gas_and_tip_filled_in(client, simulator):
    sender = new_wallet(client, "filler", [ETH_ACCOUNT])["addresses"][0]
    decoded = []
    for value in ("1", "2"):
        status_id = eth_send(
            client, {"from": sender, "caip2": "eip155:1", "calls": [{"to": RECIPIENT, "value": value}]}
        )
        signed = simulator.simulator.store.sent_transactions[status_id].signed
        decoded.append(TypedTransaction.from_bytes(HexBytes(bytes.fromhex(signed))).as_dict())
    assert [d["nonce"] for d in decoded] == [0, 1]
    for d in decoded:
        assert d["gas"] >= 21_000 and d["maxPriorityFeePerGas"] > 0 and d["maxFeePerGas"] >= d["maxPriorityFeePerGas"]


@pytest.mark.parametrize("caip2", ["eip155:8453", "eip155:10", "eip155:143", "eip155:11155420", "eip155:10143"])
def test_a_sponsored_send_is_relayed_on_every_chain_the_overview_lists(client, simulator, caip2):
    sender = new_wallet(client, "sponsored", [ETH_ACCOUNT])["addresses"][0]
    status_id = eth_send(
        client, {"from": sender, "caip2": caip2, "sponsor": True, "calls": [{"to": RECIPIENT, "value": "1"}]}
    )
    simulator.clock.advance(5)
    assert ok(client.query("get_send_transaction_status", sendTransactionStatusId=status_id))["txStatus"] == "INCLUDED"
    assert simulator.simulator.store.sent_transactions[status_id].sponsored


@pytest.mark.simulator_scenario("transfer_policies")
def test_a_policy_reads_zero_fees_on_a_sponsored_send(simulator_user, simulator):
    root, trader = simulator_user("Root User"), simulator_user("Trader")
    condition = "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2' && eth.tx.max_fee_per_gas == 0 " + (
        "&& eth.tx.max_priority_fee_per_gas == 0"
    )
    result_of(create_policy(root, "sponsored sends only", condition), "createPolicyResult")
    stranger = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"  # on no allow-list of the scenario

    def send(sponsor: bool) -> Any:
        params = {
            "from": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
            "caip2": "eip155:1",
            "sponsor": sponsor,
            "calls": [{"to": stranger, "value": "1"}],
        }
        return trader.submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", params)

    assert ok(send(True))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert_error(send(False), 403, 7)


def solana_wire(message: Message) -> str:
    count = message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, [Signature.default()] * count)).hex()


def sol_send(client: Any, wire: str, signers: list[str], sponsor: bool = True) -> str:
    params = {
        "unsignedTransaction": wire,
        "signWiths": signers,
        "caip2": "solana:mainnet",
        "sponsor": sponsor,
    }
    return result_of(
        client.submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", params),
        "solSendTransactionResultV2",
    )["sendTransactionStatusId"]


def test_sponsored_solana_sends_outside_the_documented_constraints_pass_with_warnings(client, simulator):
    payer, other = new_wallet(client, "sol", [SOL_ACCOUNT, {**SOL_ACCOUNT, "path": "m/44'/501'/1'/0'"}])["addresses"]
    a, b = Pubkey.from_string(payer), Pubkey.from_string(other)
    plain = Message.new_with_blockhash(
        [transfer(TransferParams(from_pubkey=a, to_pubkey=Pubkey.from_string(RECIPIENT_SOL), lamports=5))], a, BLOCKHASH
    )
    sol_send(client, solana_wire(plain), [payer])
    creating = create_account(
        CreateAccountParams(from_pubkey=a, to_pubkey=b, lamports=890_880, space=0, owner=Pubkey.default())
    )
    two_signers = Message.new_with_blockhash([creating], a, BLOCKHASH)
    sol_send(client, solana_wire(two_signers), [payer, other])
    memo = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
    no_system = Message.new_with_blockhash([Instruction(memo, b"hi", [])], a, BLOCKHASH)
    sol_send(client, solana_wire(no_system), [payer])
    sol_send(client, solana_wire(two_signers), [payer, other], sponsor=False)  # unsponsored: no limits to warn of
    fine, created, bare, unsponsored = simulator.simulator.journal.entries("sol_send_transaction")
    assert "warnings" not in fine and "warnings" not in unsponsored
    assert [w.split(":")[0] for w in created["warnings"]] == [
        "sponsored Solana send with 2 signWiths",
        "sponsored Solana send with a top-level System Program createAccount (instruction 0)",
    ]
    assert bare["warnings"] == [
        "sponsored Solana send without the System Program among its static account keys: the service requires it"
    ]


RECIPIENT_SOL = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"


# --- features/transaction-management/swap*.mdx ----------------------------------------------------------------

BASE_USDC = longtail.BASE_USDC
BASE_WETH = "eip155:8453/erc20:0x4200000000000000000000000000000000000006"
MAINNET_USDC = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
SOL = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"


def upsert_swap_config(client: Any, **params: Any) -> Any:
    return client.submit("upsert_swap_config", "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG", params)


def swap_quote(client: Any, sign_with: str, output: str = BASE_WETH) -> dict[str, Any]:
    params = {"signWith": sign_with, "inputToken": BASE_USDC, "outputToken": output, "inputAmount": "1000000"}
    return result_of(
        client.submit("create_swap_quote", "ACTIVITY_TYPE_CREATE_SWAP_QUOTE", params), "createSwapQuoteResult"
    )["quotes"][0]


def execute(client: Any, quote: dict[str, Any], output: str = BASE_WETH) -> Any:
    params = {
        "quoteId": quote["quoteId"],
        "inputToken": BASE_USDC,
        "inputAmount": "1000000",
        "outputToken": output,
        "quotedOutputAmount": quote["outputAmount"],
        "minOutputAmount": quote["minOutputAmount"],
        "sponsor": False,
    }
    return client.submit("execute_swap", "ACTIVITY_TYPE_EXECUTE_SWAP_V2", params)


def test_the_fee_receiver_must_be_a_parent_evm_account_and_is_made_when_omitted(client):
    solana = new_wallet(client, "sol", [SOL_ACCOUNT])["addresses"][0]
    assert_error(upsert_swap_config(client, feeBps="10", feeReceiverWalletAddress="0x" + "12" * 20), 400, 3)
    assert_error(upsert_swap_config(client, feeBps="10", feeReceiverWalletAddress=solana), 400, 3)
    before = {w["walletId"] for w in ok(client.query("list_wallets"))["wallets"]}
    made = result_of(upsert_swap_config(client, feeBps="10"), "upsertSwapConfigResult")
    new = [w for w in ok(client.query("list_wallets"))["wallets"] if w["walletId"] not in before]
    [wallet] = new
    accounts = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"]))["accounts"]
    assert [a["address"] for a in accounts] == [made["feeReceiverWalletAddress"]]
    assert accounts[0]["addressFormat"] == "ADDRESS_FORMAT_ETHEREUM"


def test_sub_organizations_cannot_configure_swaps_and_quote_with_the_parents_fee(client):
    result_of(upsert_swap_config(client, feeBps="40"), "upsertSwapConfigResult")
    _, address, sub = sub_org_with_key(client, "swapper")
    assert_error(upsert_swap_config(sub, feeBps="5"), 400, 3, "parent organization")
    assert swap_quote(sub, address)["clientFeeBps"] == "40"


def test_a_new_config_prices_new_quotes_and_an_earlier_quote_keeps_its_economics(client, simulator):
    address = new_wallet(client, "swapper", [ETH_ACCOUNT])["addresses"][0]
    upsert_swap_config(client, feeBps="100")
    early = swap_quote(client, address)
    config = result_of(upsert_swap_config(client, feeBps="300"), "upsertSwapConfigResult")
    assert config["feeBps"] == "300"  # the second upsert replaces the first
    late = swap_quote(client, address)
    assert (early["clientFeeBps"], late["clientFeeBps"]) == ("100", "300")
    assert int(late["outputAmount"]) < int(early["outputAmount"])
    swap = result_of(execute(client, early), "executeSwapResult")
    simulator.clock.advance(5)
    status = ok(client.query("get_swap_status", swapRequestId=swap["swapRequestId"]))
    assert status["status"] == "COMPLETED" and status["outputAmount"] == early["outputAmount"]


def test_a_quote_echoes_its_slippage_and_expires(client):
    address = new_wallet(client, "swapper", [ETH_ACCOUNT])["addresses"][0]
    params = {
        "signWith": address,
        "inputToken": BASE_USDC,
        "outputToken": BASE_WETH,
        "inputAmount": "1000000",
        "slippageBps": "250",
    }
    [quote] = result_of(
        client.submit("create_swap_quote", "ACTIVITY_TYPE_CREATE_SWAP_QUOTE", params), "createSwapQuoteResult"
    )["quotes"]
    assert quote["slippageBps"] == "250"
    assert int(quote["minOutputAmount"]) == int(quote["outputAmount"]) * 9750 // 10_000
    assert int(quote["expiresAt"]) > 0 and quote["estimatedTimeSeconds"]


def test_a_cross_chain_swap_stays_pending_then_completes_with_its_destination_hash(client, simulator):
    address = new_wallet(client, "bridger", [ETH_ACCOUNT])["addresses"][0]
    quote = swap_quote(client, address, MAINNET_USDC)
    swap = result_of(execute(client, quote, MAINNET_USDC), "executeSwapResult")
    simulator.clock.advance(5)  # a same-chain swap would be done by now
    pending = ok(client.query("get_swap_status", swapRequestId=swap["swapRequestId"]))
    assert (pending["status"], pending["swapKind"]) == ("PENDING", "CROSS_CHAIN")
    assert (pending["inputToken"], pending["outputToken"], pending["inputAmount"]) == (
        BASE_USDC,
        MAINNET_USDC,
        "1000000",
    )
    assert int(pending["updatedAt"]) > 0 and pending["provider"] == "relay"
    simulator.clock.advance(int(quote["estimatedTimeSeconds"]))
    done = ok(client.query("get_swap_status", swapRequestId=swap["swapRequestId"]))
    assert done["status"] == "COMPLETED" and len(done["destinationTxHashes"]) == 1
    assert done["originTxHash"].startswith("0x") and done["outputAmount"] == quote["outputAmount"]


def test_an_evm_to_solana_quote_is_priced_with_a_warning(client, simulator):
    address = new_wallet(client, "cross vm", [ETH_ACCOUNT])["addresses"][0]
    swap_quote(client, address, SOL)
    swap_quote(client, address)
    cross_vm, same_chain = simulator.simulator.journal.entries("create_swap_quote")
    assert "not supported yet" in cross_vm["warnings"][0] and "warnings" not in same_chain


# --- features/transaction-management/earn.mdx -------------------------------------------------------------------


def test_a_paused_wrapper_still_lets_positions_withdraw(client, simulator):
    address = new_wallet(client, "earner", [ETH_ACCOUNT])["addresses"][0]
    vault = longtail.DEFAULTS["vaults"][0]["vaultAddress"]
    params = {"vaultAddress": vault, "chainCaip2": "eip155:8453", "clientFeeBps": "500", "clientFeeWallet": address}
    wrapper = submit(client, "earn_deploy_wrapper", params, "earnDeployWrapperResult")["wrapperAddress"]
    simulator.clock.advance(20)
    deposit = {"wrapperAddress": wrapper, "signWith": address, "assets": "5000000", "chainCaip2": "eip155:8453"}
    submit(client, "earn_deposit", deposit, "earnDepositResult")
    simulator.clock.advance(10)
    submit(
        client,
        "earn_set_wrapper_state",
        {"wrapperAddress": wrapper, "depositsDisabled": True},
        "earnSetWrapperStateResult",
    )
    assert_error(client.submit("earn_deposit", "ACTIVITY_TYPE_EARN_DEPOSIT", deposit), 400, 3, "disabled")
    withdraw = {"wrapperAddress": wrapper, "signWith": address, "chainCaip2": "eip155:8453", "amountValue": "MAX"}
    request = submit(client, "earn_withdraw", withdraw, "earnWithdrawResult")["withdrawRequestId"]
    simulator.clock.advance(10)
    assert ok(client.query("get_earn_withdraw_status", withdrawRequestId=request))["status"] == "COMPLETED"


# --- features/networks/ethereum.mdx: "EIP-4844 (type 3) support" ------------------------------------------------


def test_a_type_3_body_is_signed_and_its_network_wrapper_refused(client):
    import rlp
    from eth_account import Account

    sender = new_wallet(client, "blobs", [ETH_ACCOUNT])["addresses"][0]
    gwei = 10**9
    to = bytes.fromhex("ab" * 20)
    body = [1, 0, gwei, 30 * gwei, 21_000, to, 1, b"", [], 3 * gwei, [b"\x01" + b"\xab" * 31]]
    unsigned = "03" + rlp.encode(body).hex()

    def sign(payload: str) -> Any:
        params = {"signWith": sender, "type": "TRANSACTION_TYPE_ETHEREUM", "unsignedTransaction": payload}
        return client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)

    signed = bytes.fromhex(result_of(sign(unsigned), "signTransactionResult")["signedTransaction"])
    assert signed[0] == 3 and rlp.decode(signed[1:])[:11] == rlp.decode(bytes.fromhex(unsigned[2:]))
    assert Account.recover_transaction(signed).lower() == sender.lower()
    wrapper = "03" + rlp.encode([body, [b"\x00" * 64], [b"\x00" * 48], [b"\x00" * 48]]).hex()
    refused = assert_error(sign(wrapper), 400, 3)
    assert refused["turnkeyErrorCode"] == "INVALID_TRANSACTION"


# --- features/networks/bitcoin.mdx: "Policy-enabled Bitcoin transaction signing" ---------------------------------


def test_a_psbt_gets_signatures_for_the_signers_inputs_only_and_is_not_finalized(client):
    from bitcoinutils.keys import PublicKey
    from bitcoinutils.psbt import PSBT
    from bitcoinutils.setup import setup
    from bitcoinutils.transactions import Transaction, TxInput, TxOutput

    setup("mainnet")
    wallet = new_wallet(
        client,
        "two owners",
        [
            account("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", S, "m/84'/0'/0'/0/0"),
            account("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", S, "m/84'/0'/0'/0/1"),
        ],
    )
    accounts = ok(client.query("list_wallet_accounts", walletId=wallet["walletId"]))["accounts"]
    keys_of = {a["address"]: a["publicKey"] for a in accounts}
    first, second = wallet["addresses"]
    scripts = [PublicKey(keys_of[a]).get_segwit_address().to_script_pub_key() for a in (first, second)]
    funding = Transaction([TxInput("11" * 32, 0)], [TxOutput(20_000, s) for s in scripts], has_segwit=False)
    spend = Transaction([TxInput(funding.get_txid(), i) for i in (0, 1)], [TxOutput(38_500, scripts[0])])
    psbt = PSBT(spend)
    for index, script in enumerate(scripts):
        psbt.inputs[index].witness_utxo = TxOutput(20_000, script)

    def sign(address: str, unsigned: str) -> Any:
        params = {"signWith": address, "type": "TRANSACTION_TYPE_BITCOIN", "unsignedTransaction": unsigned}
        return client.submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params)

    once = PSBT.from_hex(result_of(sign(first, psbt.to_hex()), "signTransactionResult")["signedTransaction"])
    assert list(once.inputs[0].partial_sigs) == [bytes.fromhex(keys_of[first])] and not once.inputs[1].partial_sigs
    assert all(not i.final_scriptwitness and not i.final_scriptsig for i in once.inputs)
    twice = PSBT.from_hex(result_of(sign(second, once.to_hex()), "signTransactionResult")["signedTransaction"])
    assert [list(i.partial_sigs) for i in twice.inputs] == [[bytes.fromhex(keys_of[a])] for a in (first, second)]

    wrapped = PSBT(spend)  # a P2SH-wrapped P2WPKH input of the first key: not one Turnkey reinserts into
    nested = scripts[0]
    wrapped.inputs[0].witness_utxo = TxOutput(20_000, nested.to_p2sh_script_pub_key())
    wrapped.inputs[0].redeem_script = nested
    refused = assert_error(sign(first, wrapped.to_hex()), 400, 3)
    assert refused["turnkeyErrorCode"] == "INVALID_TRANSACTION"


# --- features/transaction-management/earn/*.mdx ------------------------------------------------------------------

VAULT = longtail.DEFAULTS["vaults"][0]["vaultAddress"]
BASE = "eip155:8453"


def earn(client: Any, op: str, params: dict[str, Any]) -> Any:
    return client.submit(op, f"ACTIVITY_TYPE_{op.upper()}", params)


def deployed_wrapper(client: Any, simulator: Any, fee_wallet: str, fee: str = "1000") -> dict[str, Any]:
    params = {"vaultAddress": VAULT, "chainCaip2": BASE, "clientFeeBps": fee, "clientFeeWallet": fee_wallet}
    made = result_of(earn(client, "earn_deploy_wrapper", params), "earnDeployWrapperResult")
    simulator.clock.advance(20)
    return made


def deposit_into(client: Any, simulator: Any, wrapper: str, wallet: str, assets: str = "100000000") -> None:
    params = {"wrapperAddress": wrapper, "signWith": wallet, "assets": assets, "chainCaip2": BASE}
    result_of(earn(client, "earn_deposit", params), "earnDepositResult")
    simulator.clock.advance(10)


def test_a_new_fee_deploys_a_new_wrapper_and_the_old_one_stays_withdrawable(client, simulator):
    wallet = new_wallet(client, "earner", [ETH_ACCOUNT])["addresses"][0]
    old = deployed_wrapper(client, simulator, wallet, "1000")
    deposit_into(client, simulator, old["wrapperAddress"], wallet)
    new = deployed_wrapper(client, simulator, wallet, "2000")
    assert new["wrapperAddress"] != old["wrapperAddress"] and new["splitterAddress"] != old["splitterAddress"]
    deposit_into(client, simulator, new["wrapperAddress"], wallet, "5000000")
    rows = ok(client.query("list_earn_positions", walletAddress=wallet))["positions"]
    assert sorted(r["wrapperAddress"] for r in rows) == sorted([old["wrapperAddress"], new["wrapperAddress"]])
    enabled = {v["wrapperAddress"]: v for v in ok(client.query("list_earn_enabled_vaults"))["enabledVaults"]}
    gross = float(enabled[new["wrapperAddress"]]["apyPct"])
    assert float(enabled[new["wrapperAddress"]]["netApyPct"]) == pytest.approx(gross * (1 - (2000 + 1000) / 10_000))
    withdraw = {"wrapperAddress": old["wrapperAddress"], "signWith": wallet, "chainCaip2": BASE, "amountValue": "MAX"}
    result_of(earn(client, "earn_withdraw", withdraw), "earnWithdrawResult")


def test_a_withdrawal_is_bounded_by_the_position_and_max_restarts_its_totals(client, simulator):
    wallet = new_wallet(client, "earner", [ETH_ACCOUNT])["addresses"][0]
    wrapper = deployed_wrapper(client, simulator, wallet)["wrapperAddress"]
    deposit_into(client, simulator, wrapper, wallet, "1000000")
    held = ok(client.query("list_earn_positions", walletAddress=wallet))["positions"][0]
    too_much = str(int(held["currentValue"]) + 1)
    withdraw = {"wrapperAddress": wrapper, "signWith": wallet, "chainCaip2": BASE, "amountValue": too_much}
    assert_error(earn(client, "earn_withdraw", withdraw), 400, 3, "current value")
    result_of(earn(client, "earn_withdraw", {**withdraw, "amountValue": "MAX"}), "earnWithdrawResult")
    simulator.clock.advance(10)
    deposit_into(client, simulator, wrapper, wallet, "3000000")
    [again] = ok(client.query("list_earn_positions", walletAddress=wallet))["positions"]
    assert (again["totalDeposited"], again["totalWithdrawn"]) == ("3000000", "0")


def test_a_fee_wallet_outside_the_organization_is_refused(client):
    params = {"vaultAddress": VAULT, "chainCaip2": BASE, "clientFeeBps": "100", "clientFeeWallet": "0x" + "12" * 20}
    assert_error(earn(client, "earn_deploy_wrapper", params), 400, 3, "clientFeeWallet")


def test_sub_organization_wallets_use_the_parents_wrapper_but_do_not_manage_it(client, simulator):
    parent_wallet = new_wallet(client, "fees", [ETH_ACCOUNT])["addresses"][0]
    wrapper = deployed_wrapper(client, simulator, parent_wallet)["wrapperAddress"]
    _, address, sub = sub_org_with_key(client, "swapper")
    deposit_into(sub, simulator, wrapper, address, "2000000")
    [held] = ok(sub.query("list_earn_positions", walletAddress=address))["positions"]
    assert held["wrapperAddress"] == wrapper and held["totalDeposited"] == "2000000"
    [seen] = ok(sub.query("list_earn_enabled_vaults"))["enabledVaults"]
    assert (
        "claimableClientFee" not in seen
        and "claimableClientFee" in ok(client.query("list_earn_enabled_vaults"))["enabledVaults"][0]
    )
    simulator.clock.advance(30 * 24 * 3600)  # a month of yield: there are fees to claim
    for op, params in (
        ("earn_set_wrapper_state", {"wrapperAddress": wrapper, "depositsDisabled": True}),
        ("claim_earn_fees", {"wrapperAddress": wrapper}),
    ):
        assert_error(earn(sub, op, params), 400, 3, "parent organization")
    assert ok(client.query("list_earn_enabled_vaults"))["enabledVaults"][0]["depositsDisabled"] is False
    withdraw = {"wrapperAddress": wrapper, "signWith": address, "chainCaip2": BASE, "amountValue": "MAX"}
    result_of(earn(sub, "earn_withdraw", withdraw), "earnWithdrawResult")


@pytest.mark.simulator_scenario("../scenarios/lenient_documented_rules.yaml")
def test_with_the_lenient_switch_a_sub_organization_manages_the_wrapper_as_in_0_2_0(client, simulator):
    parent_wallet = new_wallet(client, "fees", [ETH_ACCOUNT])["addresses"][0]
    wrapper = deployed_wrapper(client, simulator, parent_wallet)["wrapperAddress"]
    _, _, sub = sub_org_with_key(client, "swapper")
    params = {"wrapperAddress": wrapper, "depositsDisabled": True}
    assert ok(earn(sub, "earn_set_wrapper_state", params))["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert ok(client.query("list_earn_enabled_vaults"))["enabledVaults"][0]["depositsDisabled"] is True


def test_the_vault_catalogue_pages_with_cursors(client, simulator):
    vaults = [
        {**longtail.DEFAULTS["vaults"][0], "vaultAddress": "0x" + f"{i:040x}", "tvl": str((i + 1) * 10**12)}
        for i in range(12)
    ]
    with simulator.simulator.lock:
        longtail.apply_section(simulator.simulator.store, {"vaults": vaults})
    first = ok(client.query("list_earn_vaults", caip19=BASE_USDC))
    assert len(first["vaults"]) == 10 and first["pageInfo"]["hasNextPage"]
    tvls = [int(v["tvl"]) for v in first["vaults"]]
    assert tvls == sorted(tvls, reverse=True)
    rest = ok(
        client.query("list_earn_vaults", caip19=BASE_USDC, paginationOptions={"after": first["pageInfo"]["endCursor"]})
    )
    assert len(rest["vaults"]) == 2 and not rest["pageInfo"]["hasNextPage"] and rest["pageInfo"]["hasPreviousPage"]
