"""The API's requests and the control API's run on pools of their own: a control call that waits
(a webhook drain) never holds up the API, even with one worker thread each."""

from __future__ import annotations

import socket
import threading
import time

from conftest import ETH_ACCOUNT

from simulator import Config, SimulatorServer
from simulator.control.control_client import ControlClient
from simulator.testing import ApiKeyStamper, SimulatorClient


def test_a_waiting_control_call_does_not_hold_up_the_api():
    with socket.socket() as silent:  # a webhook receiver that accepts and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        with SimulatorServer(config=Config(seed=9, threads=1, webhook_retries=0)) as server:
            creds = server.default_credentials()
            api = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
            control = ControlClient(server.url)
            control.set_webhook_receiver(f"http://127.0.0.1:{silent.getsockname()[1]}/hooks")
            made = api.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [ETH_ACCOUNT]}
            )
            assert made.status == 200
            drained: list[object] = []
            drain = threading.Thread(target=lambda: drained.append(control.drain_webhooks(timeout=3)))
            drain.start()
            try:
                time.sleep(0.3)  # let the drain reach the server (it waits there 3 s); not a timing assertion
                answer = api.query("whoami")
                assert answer.status == 200
                assert drain.is_alive(), "the API waited for the control call to finish"
            finally:
                drain.join(10)
            assert drained and drained[0], "the delivery to a receiver that never answers was still pending"
