"""The control API (``/_simulator``) described once: one row per route, with the view that serves it,
the schema its body is checked against, what it does, and how each client calls it.

Data only, on the base layer. What reads it:
- ``simulator/control/views.py`` registers its routes from it (``Endpoint.view`` names the view
  function) and checks each body against ``schemas/control/<Endpoint.schema>.json``;
- ``simulator/cli/cli_commands.py`` builds the ``control ...`` actions from the rows whose ``cli``
  starts with ``control``;
- ``python tools/control_surface.py`` writes the marked blocks of the Python client
  (``simulator/control/control_client.py``), of the JS helper's client (``js/lib/helper/index.js``) and its types
  (``js/lib/helper/index.d.ts``), and the table of docs/reference/control-api.md; with ``--check`` (what
  tests/control/test_control_surface.py runs) it fails while any of them is stale.

A row whose client method cannot be said with ``Arg`` (``client="hand"``) keeps its methods
written by hand outside the generated blocks; the test still checks that they exist.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

Where = Literal["path", "body", "query", "fields", "whole"]


class Arg(NamedTuple):
    """One parameter of a client method, and where its value goes in the request."""

    name: str  # the Python parameter; the JS one is its camelCase (``js_name``)
    py: str  # its Python type
    ts: str  # its TypeScript type
    at: Where = "body"  # path: the route's <name>; body: one field; query: ?name= when given;
    # fields: every field the caller passes (Python ``**name``, JS an object spread into the body);
    # whole: the body itself
    wire: str | None = None  # the body field's name, when not the JS name
    default: str | None = None  # a Python literal ("None", "True", "5"): the parameter is optional
    js_option: bool = False  # JS: one of the trailing options object's ``{ name = default } = {}``
    quoted: bool = False  # path: percent-encoded (a name the caller chose)

    @property
    def js_name(self) -> str:
        return camel(self.name)

    @property
    def wire_name(self) -> str:
        return self.wire or self.js_name


class Endpoint(NamedTuple):
    method: str
    route: str  # under /_simulator, Flask's spelling of path parameters
    view: str  # the view function in simulator/control/views.py
    schema: str | None  # schemas/control/<schema>.json checks the body; None: no body
    does: str  # the docs' words, and the clients' doc comment
    python: str | None = None  # simulator.control.control_client.ControlClient method
    js: str | None = None  # wallet-simulator-testing's ControlClient method
    cli: str | None = None  # wallet-simulator command line ("control ACTION ..." ones are built from the row)
    args: tuple[Arg, ...] = ()
    answer: str | None = None  # the answer's field the clients return; None: the whole answer
    returns: tuple[str, str] = ("Json", "Json")  # the Python and TypeScript result ("None", "void": nothing)
    client: Literal["generated", "hand"] = "generated"
    cli_call: str | None = None  # a function of simulator/cli/cli_commands.py (client, words) for the CLI action
    answers: str = ""  # the answer's shape, for the docs (docs/reference/control-api.md's "answers" column)

    @property
    def cli_action(self) -> str | None:
        """The word after ``control`` when the CLI's ``control`` command runs this row."""
        words = (self.cli or "").split()
        return words[1] if len(words) > 1 and words[0] == "control" else None


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def path_params(route: str) -> list[str]:
    return re.findall(r"<(?:\w+:)?(\w+)>", route)


ACTIVITY_ID = Arg("activity_id", "str", "string", "path")
NOTHING = ("None", "void")

TABLE = [
    Endpoint(
        "POST",
        "/reset",
        "reset_view",
        "reset",
        "back to the loaded scenarios",
        "reset",
        "reset",
        "control reset",
        returns=NOTHING,
        answers="`{}`",
    ),
    Endpoint(
        "POST",
        "/scenarios",
        "scenarios_view",
        "scenarios",
        'load scenarios, shipped names or files the server can read; body `{"paths": [...], "replace": true}`',
        "load_scenarios",
        "loadScenarios",
        "control load FILE_OR_NAME...",
        client="hand",  # the paths are converted to strings (Python PathLike, JS String)
        cli_call="load_scenarios",
        answers='`{"credentials": [...]}`: every key pair the loaded scenarios declared or made',
    ),
    Endpoint(
        "POST",
        "/snapshots",
        "snapshot_view",
        "snapshot_take",
        "take a snapshot",
        "snapshot",
        "snapshot",
        "control snapshot",
        answer="snapshotId",
        returns=("str", "string"),
        answers='`{"snapshotId": "..."}`',
    ),
    Endpoint(
        "POST",
        "/snapshots/<snapshot_id>/restore",
        "restore_view",
        "snapshot_restore",
        "restore a snapshot",
        "restore",
        "restore",
        "control restore SNAPSHOT",
        (Arg("snapshot_id", "str", "string", "path"),),
        returns=NOTHING,
        answers="`{}`",
    ),
    Endpoint(
        "GET",
        "/state",
        "state_view",
        None,
        "export the whole state as JSON",
        "state",
        "state",
        "control state",
        answers="the state export document (what `PUT` takes back)",
    ),
    Endpoint(
        "PUT",
        "/state",
        "import_view",
        "state_import",
        "import a state export",
        "import_state",
        "importState",
        args=(Arg("state", "Json", "Json", "whole"),),
        returns=NOTHING,
        answers="`{}`",
    ),
    Endpoint(
        "GET",
        "/journal",
        "journal_view",
        None,
        "the request journal (`?op=...`)",
        "journal",
        "journal",
        "control journal [OP]",
        (Arg("op", "str | None", "string", "query", default="None"),),
        answer="entries",
        returns=("list[Json]", "JournalEntry[]"),
        answers='`{"entries": [{"time", "kind", "op", "status", "request", "outcome", "fault"?}]}`, oldest first; `op` names an operation, or an official client\'s method name for it (`get_wallets`: `list_wallets`); any other name is refused 400 naming the closest',
    ),
    Endpoint(
        "POST",
        "/clock/advance",
        "advance_view",
        "clock_advance",
        'move the clock `{"seconds": 30}`',
        "advance_clock",
        "advanceClock",
        "control clock SECONDS",
        (Arg("seconds", "float", "number"),),
        answer="nowMs",
        returns=("int", "number"),
        answers='`{"nowMs": ...}`: the simulated time after the move',
    ),
    Endpoint(
        "GET",
        "/outbox",
        "outbox_view",
        None,
        "OTP codes sent (`?contact=...`); `&wait=SECONDS` (up to 30) answers once more than `after` "
        "(`&after=N`, default 0) are there, or after that long: a long poll (`wait_for_otp`, `waitForOtp` use it)",
        "outbox",
        "outbox",
        "outbox [--contact C]",
        (Arg("contact", "str | None", "string", "query", default="None"),),
        answer="messages",
        returns=("list[Json]", "Json[]"),
        answers='`{"messages": [{"contact", "channel", "code", "otpId", ...}]}`',
    ),
    Endpoint(
        "POST",
        "/activities/<activity_id>/approve",
        "approve_view",
        "approve_activity",
        'a vote without a stamp `{"userId": ...}`',
        "approve",
        "approve",
        "control approve ACTIVITY USER",
        (ACTIVITY_ID, Arg("user", "str", "string", wire="userId")),
        answer="activity",
        answers='`{"activity": {...}}`',
    ),
    Endpoint(
        "POST",
        "/activities/<activity_id>/reject",
        "reject_view",
        "reject_activity",
        "a rejection without a stamp",
        "reject",
        "reject",
        "control reject ACTIVITY USER",
        (ACTIVITY_ID, Arg("user", "str", "string", wire="userId")),
        answer="activity",
        answers='`{"activity": {...}}`',
    ),
    Endpoint(
        "GET",
        "/activities/<activity_id>/explain",
        "explain_view",
        None,
        "why an activity ended as it did",
        "explain",
        "explain",
        "control explain ACTIVITY",
        (ACTIVITY_ID,),
        answers="the explanation: the rule, quorum and policies that decided it",
    ),
    Endpoint(
        "POST",
        "/auth-proxy",
        "proxy_view",
        "auth_proxy",
        "enable or change the auth proxy",
        "configure_auth_proxy",
        "configureAuthProxy",
        args=(Arg("organization_id", "str", "string"), Arg("settings", "Any", "Json", "fields")),
        answers="the auth proxy configuration",
    ),
    Endpoint(
        "POST",
        "/oauth/authorize",
        "authorize_view",
        "oauth_authorize",
        "a code from the fake OAuth provider (options: email, codeChallenge, redirectUri, fail)",
        "oauth_authorize",
        "oauthAuthorize",
        args=(Arg("subject", "str", "string"), Arg("options", "Any", "Json", "fields")),
        answer="code",
        returns=("str", "string"),
        answers='`{"code": "..."}`',
    ),
    Endpoint(
        "POST",
        "/oauth/id-token",
        "id_token_view",
        "oauth_id_token",
        "an ID token from the fake OAuth provider (options: nonce, email)",
        "oauth_id_token",
        "oauthIdToken",
        args=(
            Arg("subject", "str", "string"),
            Arg("audience", "str", "string"),
            Arg("options", "Any", "Json", "fields"),
        ),
        answer="idToken",
        returns=("str", "string"),
        answers='`{"idToken": "..."}`',
    ),
    Endpoint(
        "GET",
        "/oauth/jwks",
        "jwks_view",
        None,
        "the fake OAuth provider's keys (fetched by OIDC libraries)",
        answers='`{"keys": [...]}` (a JWKS)',
    ),
    Endpoint(
        "GET",
        "/keys",
        "keys_view",
        None,
        'the simulator\'s published signing keys (uncompressed hex), e.g. `keys()["notarizer"]`',
        "keys",
        "keys",
        returns=("Json", "Record<string, string>"),
        answers='`{"<name>": "<hex>", ...}`',
    ),
    Endpoint(
        "GET",
        "/coverage",
        "coverage_view",
        None,
        "which operations are implemented",
        "coverage",
        "coverage",
        "coverage",
        answers='`{"summary": {...}, "operations": [{"operation", "status", "note"}]}`',
    ),
    Endpoint(
        "GET",
        "/webhooks/deliveries",
        "deliveries_view",
        None,
        "webhook deliveries",
        "webhook_deliveries",
        "webhookDeliveries",
        "webhooks list",
        answer="deliveries",
        returns=("list[Json]", "Json[]"),
        answers='`{"deliveries": [...]}`',
    ),
    Endpoint(
        "POST",
        "/webhooks/fire",
        "fire_view",
        "webhooks_fire",
        "deliver an event now",
        "fire_webhook",
        "fireWebhook",
        "webhooks fire",
        (
            Arg("activity_id", "str | None", "string | null", default="None", js_option=True),
            Arg("url", "str | None", "string | null", default="None", js_option=True),
            Arg("overrides", "Json | None", "Json | null", default="None", js_option=True),
        ),
        answer="deliveries",
        returns=("Any", "Json[]"),
        answers='`{"deliveries": [...]}`',
    ),
    Endpoint(
        "POST",
        "/webhooks/<event_id>/resend",
        "resend_view",
        "webhooks_resend",
        "resend an event",
        "resend_webhook",
        "resendWebhook",
        "webhooks resend --event ID",
        (Arg("event_id", "str", "string", "path"),),
        answers="the delivery, queued again",
    ),
    Endpoint(
        "POST",
        "/webhooks/chaos",
        "chaos_view",
        "webhooks_chaos",
        "drop, duplicate, delay or reorder: `drop`, `duplicate`, `delayMs`, `reorder`, for deliveries from now on",
        "webhook_chaos",
        "webhookChaos",
        args=(
            Arg(
                "chaos", "Any", "{ drop?: boolean; duplicate?: boolean; delayMs?: number; reorder?: boolean }", "fields"
            ),
        ),
        answers="the chaos settings now in force",
    ),
    Endpoint(
        "POST",
        "/webhooks/drain",
        "drain_view",
        "webhooks_drain",
        "wait for pending deliveries",
        "drain_webhooks",
        "drainWebhooks",
        args=(Arg("timeout", "float", "number", default="5"),),
        answer="pending",
        returns=("Any", "number"),
        answers='`{"pending": N}`: deliveries still pending',
    ),
    Endpoint(
        "POST",
        "/faults",
        "add_fault_view",
        "faults_add",
        "start a transport fault (latency, unavailable, lostAnswer, reset, timeout, slow) on the requests it "
        'matches `{"kind": "reset", "match": {"operation": "create_wallet"}}`; answers it, named',
        "add_fault",
        "addFault",
        "control fault-add SPEC_JSON_OR_KIND [OPERATION]",
        (Arg("kind", "str", "FaultKind"), Arg("spec", "Any", "FaultSpec", "fields")),
        returns=("Json", "Fault"),
        cli_call="add_fault",
        answers="the fault with its defaults (`name`, `match` with each operation as the catalogue names it); a name of no operation is refused 400 naming the closest",
    ),
    Endpoint(
        "GET",
        "/faults",
        "faults_view",
        None,
        "the active faults, their hit counts and the requests they hit",
        "faults",
        "faults",
        "control faults",
        answer="faults",
        returns=("list[Json]", "Fault[]"),
        answers='`{"faults": [{...the fault, "matched": N, "hits": N, "requests": [{"timeMs", "interface", "operation", "organizationId", "type", "fault"}]}]}` (the last 100 requests each hit)',
    ),
    Endpoint(
        "DELETE",
        "/faults/<name>",
        "remove_fault_view",
        None,
        "stop a fault",
        "remove_fault",
        "removeFault",
        "control fault-remove NAME",
        (Arg("name", "str", "string", "path", quoted=True),),
        returns=NOTHING,
        answers="`{}`; 404 naming the active faults when none has the name",
    ),
    Endpoint(
        "DELETE",
        "/faults",
        "clear_faults_view",
        None,
        "stop every fault",
        "clear_faults",
        "clearFaults",
        "control faults-clear",
        returns=NOTHING,
        answers="`{}`",
    ),
    Endpoint(
        "POST",
        "/webhooks/receiver",
        "receiver_view",
        "webhooks_receiver",
        "make a URL the organization's webhook receiver (None/null removes it); default: the default organization",
        "set_webhook_receiver",
        "setWebhookReceiver",
        args=(
            Arg("url", "str | None", "string | null"),
            Arg("organization_id", "str | None", "string", default="None"),
        ),
        returns=("Json", "{ organizationId: string; url: string | null }"),
        answers='`{"organizationId": "...", "url": ...}`',
    ),
]
