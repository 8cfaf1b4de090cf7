"""The simulated outside world: what the real service talks to and the simulator plays itself.

Each stand-in owns its scenario key and seeds it (``apply``): ``longtail`` (the markets, vault
catalogue, registry and status scripts behind the long-tail operations: swaps, earn, on-ramp, TVC,
Spark; the ``longtail`` key) and ``chain`` (the chain a broadcast reaches: nonces, blocks, statuses;
the ``broadcast`` key); ``sent_transactions`` keeps what a broadcast sent, as both report it. It
imports no handler and no model code: the handlers and the reads call it.
"""
