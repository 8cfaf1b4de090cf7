"""sign_transaction: parse the unsigned transaction, let policies read it, sign it with the real key.

Each ``TRANSACTION_TYPE_*`` has a row in ``simulator/chains/registry.py``, whose ``parse`` returns a
``ParsedTransaction``. Parsing happens twice: once before the decision (``policy_context``, so
that a bad transaction is a 400 and policies can read ``eth.tx`` and the rest) and once when the
activity runs, which may be after approvals; it is cheap, and keeps nothing but JSON in state.
"""

from __future__ import annotations

from simulator.activities.versions import adapted
from simulator.chains import ParsedTransaction
from simulator.chains.ethereum import EthereumTransaction
from simulator.chains.registry import parse
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.model import documented_rules
from simulator.model.signatures import signing_key
from simulator.model.signer_views import nested, signer_context, with_sender_and_call
from simulator.state import lookups
from simulator.wire import Json

# wallets.mdx ("What if I don't see the address format for my network?"): such a key signs raw payloads only
RAW_PAYLOAD_ONLY = "ADDRESS_FORMAT_COMPRESSED"


def bitcoin_network(ctx: Context, sign_with: str) -> str:
    """MAINNET, TESTNET, SIGNET or REGTEST, from the signing account's address format."""
    wanted = sign_with.lower()
    for wallet in ctx.org.wallets.values():
        for account in wallet.accounts:
            if account.address.lower() == wanted and account.address_format.startswith("ADDRESS_FORMAT_BITCOIN_"):
                return account.address_format.split("_")[3]
    return "MAINNET"


def parsed_from(ctx: Context, params: Json) -> ParsedTransaction:
    """The transaction of ``params``, parsed once per request (policies read it, then the handler signs it)."""
    key = f"transaction {params['type']} {params['unsignedTransaction']} {params['signWith']}"
    if key not in ctx.memo:
        ctx.memo[key] = parse(params["type"], params["unsignedTransaction"], bitcoin_network(ctx, params["signWith"]))
    parsed: ParsedTransaction = ctx.memo[key]
    return parsed


def refuse_raw_payload_only(ctx: Context, sign_with: str) -> None:
    """An ADDRESS_FORMAT_COMPRESSED account (or a private key named by such an address) signs no transaction."""
    if not documented_rules.enforced(ctx):
        return
    if RAW_PAYLOAD_ONLY in lookups.address_formats(ctx.org, sign_with):
        raise InvalidArgument(
            f"invalid signWith: {sign_with} is an {RAW_PAYLOAD_ONLY} address, which signs raw payloads only "
            "(sign_raw_payload); sign the transaction with an account of the chain's address format, such as "
            f"ADDRESS_FORMAT_ETHEREUM {documented_rules.LENIENT_HINT}"
        )


@adapted
def policy_context(ctx: Context, params: Json) -> Json:
    refuse_raw_payload_only(ctx, params["signWith"])  # before the decision: refused at once, whatever policies say
    parsed = parsed_from(ctx, params)
    signer = signer_context(ctx, params["signWith"])
    if isinstance(parsed, EthereumTransaction):
        parsed = with_sender_and_call(ctx, parsed, ethereum_address(ctx, params["signWith"], signer))
    return {**nested(parsed.namespace, parsed.view), **signer}


def ethereum_address(ctx: Context, sign_with: str, signer: Json) -> str:
    """``eth.tx.from``: the account's address, or a private key's Ethereum address."""
    if "wallet_account" in signer:
        return str(signer["wallet_account"]["address"])
    key = ctx.org.private_keys.get(signer.get("private_key", {}).get("id", ""))
    found = [a["address"] for a in key.addresses if a.get("format") == "ADDRESS_FORMAT_ETHEREUM"] if key else []
    return found[0] if found else sign_with


@adapted
def sign_transaction(ctx: Context, params: Json) -> Json:
    parsed = parsed_from(ctx, params)
    curve, secret = signing_key(ctx, params["signWith"])
    return {"signedTransaction": parsed.sign(curve, secret)}
