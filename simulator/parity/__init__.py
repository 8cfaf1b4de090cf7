"""Parity with the real service (issue 55): record a suite's exchanges with an upstream and compare two recordings.

- ``recorder``: ``wallet-simulator parity record``, a forwarding proxy that writes each exchange of the main
  interface and the auth proxy to a file, secrets redacted (``redaction``), in the format ``exchanges`` reads;
- ``compare``: ``wallet-simulator parity diff REAL SIMULATED``, exchanges aligned by order and operation, the
  values an answer produced matched by role (``roles``), each difference with a draft ledger entry (``ledger``);
- ``replay``: ``wallet-simulator parity replay REAL --out SIMULATED``, a real recording's requests sent again
  to a simulator, for one run against the service instead of two;
- ``suite``: what the pytest plugin runs a suite against in a parity run (the JS helper starts the command).
"""

UPSTREAM_ENV = "WALLET_SIMULATOR_UPSTREAM"  # the one switch: the suite runs against this upstream, through a recorder
PROXY_UPSTREAM_ENV = "WALLET_SIMULATOR_PROXY_UPSTREAM"  # the upstream auth proxy (default: derived from the upstream)
OUT_ENV = "WALLET_SIMULATOR_PARITY_OUT"  # where the recorder writes the exchanges
# the user's own organization and API key when the upstream is the real service (Turnkey's examples' names);
# the recorder reads the first two for its ready line, only the client (plugin, JS helper) reads the private key
ORGANIZATION_ENV = "TURNKEY_ORGANIZATION_ID"
PUBLIC_KEY_ENV = "TURNKEY_API_PUBLIC_KEY"
PRIVATE_KEY_ENV = "TURNKEY_API_PRIVATE_KEY"
