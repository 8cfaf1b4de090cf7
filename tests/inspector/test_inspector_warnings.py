"""The inspector's request log shows what a request passed with: an e-mail address whose domain cannot receive
mail, accepted with a warning (issue 52). The page's Journal view lists the same entries (journal.js)."""

from __future__ import annotations

from conftest import DEFAULTS, ok

from simulator import Config
from simulator.core import Simulator
from simulator.testing import ApiKeyStamper, InProcessClient
from simulator.web.app import create_app


def test_the_request_log_lists_the_warnings_of_each_request():
    app = create_app(Simulator(Config(seed=3, inspector=True)))
    client = InProcessClient(app, ApiKeyStamper(DEFAULTS["apiPrivateKey"]), DEFAULTS["organizationId"])
    user = {"userName": "u", "apiKeys": [], "authenticators": [], "oauthProviders": [], "userTags": []}
    ok(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [{**user, "userEmail": "a@b.test"}]}))
    ok(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [{**user, "userName": "v"}]}))
    with app.test_client().get("/_simulator/ui/api/requests") as response:
        entries = response.get_json()["entries"]
    assert [(e["op"], e["status"], len(e["warnings"])) for e in entries] == [
        ("create_users", 200, 0),
        ("create_users", 200, 1),
    ]
    assert entries[1]["warnings"][0].startswith("could not reach email: 'a@b.test'") and entries[1]["error"] is None
