"""Answers are encoded by orjson where it writes json's bytes, by json where it would not."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

from conftest import DEFAULTS, ETH_ACCOUNT
from flask.json.provider import DefaultJSONProvider
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulator import Config, Simulator, create_app, wire
from simulator.http.request_body import parse_body
from simulator.testing import ApiKeyStamper


def stdlib(value: object) -> bytes:
    """What Flask's jsonify wrote for the app before (compact, ASCII-escaped, keys in order)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=DefaultJSONProvider.default)
    return (text + "\n").encode()


# Everything an answer can hold: text of any code point, integers of any size, floats only as a
# request brings them in (JsonFloat), nested objects and arrays.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False).map(wire.JsonFloat)
)
values = st.recursive(scalars, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(values)
def test_every_json_value_is_written_byte_for_byte_as_json_writes_it(value: object) -> None:
    assert wire.encode(value, DefaultJSONProvider.default) == stdlib(value)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(values)
@example([2**64, -(2**63) - 1, {"a": 10**20}])  # orjson reads these integers as floats: json reads them
@example({"hex": "0x" + "0" * 40, "n": 2**64 - 1})
def test_every_json_text_is_read_back_as_json_reads_it(value: object) -> None:
    """An activity's request and result are read back by wire.read_json: the same values, of the same types."""
    for text in (json.dumps(value), json.dumps(value, separators=(",", ":")), json.dumps(value, indent=1)):
        assert repr(wire.read_json(text)) == repr(json.loads(text))
        assert repr(wire.read_json(text.encode("utf-8", "surrogatepass"))) == repr(json.loads(text))


@dataclass
class Point:
    x: int


def test_values_orjson_would_write_differently_take_the_json_path() -> None:
    for value in (
        {"name": "Zoë", "emoji": "🙂"},  # json escapes non-ASCII as \\u sequences
        {"del": "a\x7fb"},  # and DEL
        {"big": 2**70, "negative": -(2**64)},  # orjson refuses beyond 64 bits
        {"when": datetime(2026, 11, 23, tzinfo=timezone.utc)},  # Flask writes an HTTP date
        {"amount": Decimal("1.50"), "id": uuid.UUID(int=7), "point": Point(3)},
        {"small": wire.JsonFloat(1e-7), "large": wire.JsonFloat(1e22)},  # 1e-07, 1e+22 as json writes them
    ):
        assert wire.encode(value, DefaultJSONProvider.default) == stdlib(value)


def test_a_request_float_is_read_as_a_json_float_and_nan_is_refused() -> None:
    body = parse_body(b'{"x": 1e-7, "y": [0.5]}', "application/json")
    assert type(body["x"]) is wire.JsonFloat and wire.encode(body) == b'{"x":1e-07,"y":[0.5]}\n'
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        try:
            parse_body(b'{"x": ' + constant + b"}", "application/json")
        except Exception as error:
            assert "is not a JSON value" in str(error)
        else:
            raise AssertionError(f"{constant!r} was accepted")


def test_answers_through_the_app_carry_json_s_bytes_and_a_non_ascii_name_is_escaped() -> None:
    client = create_app(Simulator(Config(seed=3))).test_client()
    stamper = ApiKeyStamper(DEFAULTS["apiPrivateKey"])
    org = DEFAULTS["organizationId"]

    def post(path: str, body: dict[str, object]) -> bytes:
        raw = json.dumps(body).encode()
        name, value = stamper.stamp(raw)
        reply = client.post(path, data=raw, headers={"Content-Type": "application/json", name: value})
        assert reply.status_code == 200, reply.data
        return reply.data

    created = post(
        "/public/v1/submit/create_wallet",
        {
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
            "timestampMs": str(int(time.time() * 1000)),
            "organizationId": org,
            "parameters": {"walletName": "Zoë's wallet", "accounts": [ETH_ACCOUNT]},
        },
    )
    assert b"Zo\\u00eb" in created and created == stdlib(json.loads(created))
    activity_id = json.loads(created)["activity"]["id"]
    fetched = post("/public/v1/query/get_activity", {"organizationId": org, "activityId": activity_id})
    assert fetched == stdlib(json.loads(fetched))
