"""The fiat on-ramp through the HTTP surface: the transaction, its refusals, its status on the
simulator clock and a scripted one, and the URL signature checked independently."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from conftest import ETH_ACCOUNT, ok, result_of
from support import SOL_ACCOUNT, assert_error, new_wallet

from simulator.crypto import service_keys
from simulator.standins import longtail


def init(client: Any, address: str, **extra: Any) -> Any:
    params = {
        "onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "walletAddress": address,
        "network": "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM",
        "cryptoCurrencyCode": "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
        **extra,
    }
    return client.submit("init_fiat_on_ramp", "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP", params)


def test_a_transaction_completes_on_the_clock(client, simulator):
    eth, sol = new_wallet(client, "buyer", [ETH_ACCOUNT, SOL_ACCOUNT])["addresses"]
    url = "https://buy.moonpay.com/?apiKey=pk_test&currencyCode=eth"
    made = result_of(init(client, eth, fiatCurrencyAmount="100", urlForSignature=url), "initFiatOnRampResult")
    assert made["onRampUrl"].startswith("https://onramp.simulator.invalid/moonpay?")
    key = hashlib.sha256(bytes.fromhex(service_keys.SECRETS["signer"]) + b"/onramp-url-signing").digest()
    expected = base64.b64encode(hmac.new(key, b"?apiKey=pk_test&currencyCode=eth", hashlib.sha256).digest()).decode()
    assert made["onRampUrlSignature"] == expected
    status = lambda: ok(client.query("get_onramp_transaction_status", transactionId=made["onRampTransactionId"]))  # noqa: E731
    assert status() == {"transactionStatus": "PENDING"}
    simulator.clock.advance(61)
    assert status() == {"transactionStatus": "COMPLETED"}
    assert_error(init(client, sol), 400, 3, "not an address on FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM")


def test_refusals(client):
    eth = new_wallet(client, "buyer", [ETH_ACCOUNT])["addresses"][0]
    assert_error(init(client, eth, fiatCurrencyAmount="5"), 400, 3, "greater than 20")
    assert_error(init(client, eth, countryCode="US"), 400, 3, "countrySubdivisionCode")
    assert_error(init(client, eth, cryptoCurrencyCode="FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL"), 400, 3, "not offered")
    assert_error(init(client, "0x" + "00" * 20), 400, 3, "not a wallet account")
    assert_error(client.query("get_onramp_transaction_status", transactionId="x"), 404, 5, "on-ramp transaction x")


def test_a_scripted_failure(client, simulator):
    failing = [{"status": "PENDING"}, {"status": "FAILED", "after": {"polls": 1}}]
    with simulator.simulator.lock:
        script = {"name": "declined", "match": {"type": "INIT_FIAT_ON_RAMP"}, "sequence": failing}
        longtail.apply_section(simulator.simulator.store, {"statuses": [script]})
    eth = new_wallet(client, "buyer", [ETH_ACCOUNT])["addresses"][0]
    made = result_of(init(client, eth), "initFiatOnRampResult")
    found = ok(client.query("get_onramp_transaction_status", transactionId=made["onRampTransactionId"]))
    assert found == {"transactionStatus": "FAILED"}


def test_the_official_client(turnkey_client, client):
    import turnkey_sdk_types as T

    eth = new_wallet(client, "buyer", [ETH_ACCOUNT])["addresses"][0]
    made = turnkey_client.init_fiat_on_ramp(
        T.InitFiatOnRampBody(
            onrampProvider="FIAT_ON_RAMP_PROVIDER_COINBASE",
            walletAddress=eth,
            network="FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE",
            cryptoCurrencyCode="FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC",
        )
    )
    status = turnkey_client.get_on_ramp_transaction_status(
        T.GetOnRampTransactionStatusBody(transactionId=made.onRampTransactionId)
    )
    assert status.transactionStatus == "PENDING"
