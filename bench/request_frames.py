"""The stack from the transport to the create_wallet handler: serves a simulator on waitress, sends one
create_wallet through the Python client (simulator.testing.SimulatorClient, stamped), and prints the frames
captured inside the handler, from the worker thread's first frame down.

    PYTHONPATH=/path/to/tree python bench/request_frames.py [--all]

Run on two trees to compare their request paths (docs/reference/request-path.md). The handler is wrapped
here, in this script only; ``--all`` prints every frame with its file and line, otherwise one line each.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path


def main() -> None:
    wallets = importlib.import_module("simulator.activities.wallets")
    captured: list[traceback.FrameSummary] = []
    original = wallets.create_wallet

    def create_wallet(ctx, params):  # type: ignore[no-untyped-def]
        captured.extend(traceback.extract_stack()[:-1])
        return original(ctx, params)

    wallets.create_wallet = create_wallet
    from simulator import Config
    from simulator.server import SimulatorServer
    from simulator.testing import ApiKeyStamper, SimulatorClient

    with SimulatorServer(config=Config(seed=7)) as server:
        creds = server.default_credentials()
        stamper = ApiKeyStamper(creds["apiPrivateKey"])
        client = SimulatorClient(server.url, stamper, creds["organizationId"])
        answer = client.submit(
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "frames", "accounts": []},
        )
        assert answer.status == 200, answer.body
    root = str(Path(wallets.__file__).resolve().parents[1])
    start = next(i for i, f in enumerate(captured) if "waitress" in f.filename)  # the worker's first frame
    frames = captured[start:]
    print(
        f"{len(frames)} frames from the waitress worker to the handler "
        f"({sum(1 for f in frames if f.filename.startswith(root))} in simulator/)"
    )
    for frame in frames:
        where = frame.filename.replace(root + "/", "")
        where = where.split("site-packages/")[-1]
        if "--all" in sys.argv:
            print(f"  {where}:{frame.lineno} {frame.name}")
        else:
            print(f"  {where.rsplit('/', 1)[-1]:<24} {frame.name}")


if __name__ == "__main__":
    main()
