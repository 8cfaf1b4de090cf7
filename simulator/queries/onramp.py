"""An on-ramp transaction's status (each poll moves it along its sequence)."""

from __future__ import annotations

from simulator.handling import provider_standin
from simulator.queries.context import QueryContext
from simulator.wire import Json


def get_onramp_transaction_status(q: QueryContext, body: Json) -> Json:
    transaction = q.find(
        provider_standin.table(q.org, "onrampTransactions"), body["transactionId"], "on-ramp transaction"
    )
    return {"transactionStatus": provider_standin.track_of(transaction).reached(q.now_ms, poll=True)["status"]}
