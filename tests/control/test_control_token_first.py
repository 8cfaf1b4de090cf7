"""With --control-token, a state-changing control call that carries neither the token nor the JSON content type is
told about the token first (401), as a client missing both must fix that before anything else (issue 52)."""

from __future__ import annotations

import pytest

from simulator import Config, Simulator
from simulator.control import TOKEN_HEADER
from simulator.web.app import create_app

TOKEN = "s3cret-control-token"


@pytest.fixture(scope="module")
def guarded_app():
    return create_app(Simulator(Config(seed=5, control_token=TOKEN)))


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_without_the_token_and_the_json_type_the_token_is_named(guarded_app, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    reply = guarded_app.test_client().post("/_simulator/reset", data=b"", headers=headers)
    assert reply.status_code == 401, reply.get_json()
    assert reply.get_json()["message"].startswith("the control API requires its token")
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = guarded_app.test_client().post("/_simulator/reset", data=b"", headers={**headers, TOKEN_HEADER: "nope"})
    assert wrong.status_code == 401 and "control token refused" in wrong.get_json()["message"]


def test_with_the_token_a_call_that_is_not_json_is_refused_as_before(guarded_app):
    reply = guarded_app.test_client().post(
        "/_simulator/reset", data=b"", headers={TOKEN_HEADER: TOKEN, "Content-Type": "text/plain"}
    )
    assert reply.status_code == 400, reply.get_json()
    assert "Content-Type: application/json" in reply.get_json()["message"]
    done = guarded_app.test_client().post(
        "/_simulator/reset", data=b"", headers={TOKEN_HEADER: TOKEN, "Content-Type": "application/json"}
    )
    assert done.status_code == 200


def test_without_a_token_configured_a_call_that_is_not_json_is_refused_as_before():
    app = create_app(Simulator(Config(seed=5)))
    reply = app.test_client().post("/_simulator/reset", data=b"", headers={"Content-Type": "text/plain"})
    assert reply.status_code == 400 and "Content-Type: application/json" in reply.get_json()["message"]
