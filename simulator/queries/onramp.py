"""An on-ramp transaction's status (each poll moves it along its sequence)."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.state import longtail_records
from simulator.wire import Json


def get_onramp_transaction_status(q: QueryContext, body: Json) -> Json:
    transaction = q.find(
        longtail_records.onramp_transactions(q.org.longtail), body["transactionId"], "on-ramp transaction"
    )
    return {"transactionStatus": transaction.track.reached(q.now_ms, poll=True)["status"]}
