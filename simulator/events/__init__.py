"""Old name of :mod:`simulator.webhooks`, kept so that imports written against earlier releases
(``simulator.events.signing.verify_delivery``, as the webhooks how-to named it) keep working."""
