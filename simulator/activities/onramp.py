"""The fiat on-ramp: a transaction record and the URL a user would open, with the status sequence
the transaction follows on the simulator clock (nothing is bought: no provider is reached).

The URL points at the simulator's own placeholder host, never at a provider, and names the provider,
transaction and purchase. With ``urlForSignature`` the result carries a base64 HMAC-SHA256 of that
URL's query under a key derived from the simulator's published ``signer`` key: the shape MoonPay's
URL signing has, which MoonPay itself would not accept (it holds the real secret key).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import urlencode, urlsplit

from simulator.crypto import service_keys
from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context
from simulator.standins import longtail
from simulator.state import longtail_records
from simulator.state.longtail_records import OnrampTransaction
from simulator.wire import Json

URL_BASE = "https://onramp.simulator.invalid"
COMPLETES_AFTER_SECONDS = 60  # not public; the simulator's choice
NETWORK_FORMATS = {
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN": "ADDRESS_FORMAT_BITCOIN_MAINNET_",
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM": "ADDRESS_FORMAT_ETHEREUM",
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE": "ADDRESS_FORMAT_ETHEREUM",
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA": "ADDRESS_FORMAT_SOLANA",
}
CURRENCIES = {
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN": {"BTC"},
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM": {"ETH", "USDC"},
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE": {"ETH", "USDC"},
    "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA": {"SOL", "USDC"},
}


def init_fiat_on_ramp(ctx: Context, params: Json) -> Json:
    network, crypto = params["network"], params["cryptoCurrencyCode"].rsplit("_", 1)[-1]
    found = longtail.address_format(ctx.org, params["walletAddress"], "walletAddress")
    if not found.startswith(NETWORK_FORMATS[network]):
        raise InvalidArgument(f"walletAddress {params['walletAddress']} ({found}) is not an address on {network}")
    if crypto not in CURRENCIES[network]:
        raise InvalidArgument(f"cryptoCurrencyCode {params['cryptoCurrencyCode']} is not offered on {network}")
    check_amount_and_country(params)
    transaction_id = ctx.new_id()
    done = {"status": "COMPLETED", "after": {"seconds": COMPLETES_AFTER_SECONDS}}
    user = ctx.principal.user if ctx.principal else None
    track = longtail.new_track(
        ctx.store, ctx.org, user, ctx.activity_type, params, ctx.now_ms, [{"status": "PENDING"}, done]
    )
    longtail_records.onramp_transactions(ctx.org.longtail)[transaction_id] = OnrampTransaction(params, track)
    query = {"transactionId": transaction_id, "walletAddress": params["walletAddress"], "currencyCode": crypto}
    if params.get("fiatCurrencyAmount"):
        query["baseCurrencyAmount"] = params["fiatCurrencyAmount"]
    provider = params["onrampProvider"].rsplit("_", 1)[-1].lower()
    result = {"onRampUrl": f"{URL_BASE}/{provider}?{urlencode(query)}", "onRampTransactionId": transaction_id}
    if params.get("urlForSignature"):
        result["onRampUrlSignature"] = url_signature(params["urlForSignature"])
    return result


def check_amount_and_country(params: Json) -> None:
    amount = params.get("fiatCurrencyAmount")
    if amount:
        try:
            valid = float(amount) > 20
        except ValueError:
            valid = False
        if not valid:
            raise InvalidArgument(f"invalid fiatCurrencyAmount {amount!r}: must be a number greater than 20")
    if params.get("countryCode") == "US" and not params.get("countrySubdivisionCode"):
        raise InvalidArgument("countrySubdivisionCode is required when countryCode is US")


def url_signature(url: str) -> str:
    query = urlsplit(url).query
    if not query:
        raise InvalidArgument("invalid urlForSignature: expected a widget URL with a query string")
    key = hashlib.sha256(bytes.fromhex(service_keys.SECRETS["signer"]) + b"/onramp-url-signing").digest()
    return base64.b64encode(hmac.new(key, ("?" + query).encode(), hashlib.sha256).digest()).decode()
