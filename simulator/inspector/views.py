"""The inspector's read-only JSON, beside the control API and behind the same token.

Everything the page changes (votes, the clock, scenarios, snapshots, resends) goes through the
control API itself, so a click has exactly the effect of the documented call.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flask import Blueprint, Response, jsonify, request

from simulator.control import views as control
from simulator.errors import InvalidArgument, NotFound
from simulator.inspector.requests_log import log_of_app
from simulator.scenario import shipped_scenarios
from simulator.wire import Json, decimal_digits

if TYPE_CHECKING:
    from simulator.core import Simulator

MAX_LIST = 2000
api = Blueprint("inspector_api", __name__, url_prefix="/_simulator/ui/api")
api.before_request(control.require_control_token)
api.after_request(control.challenge)


def simulator() -> Simulator:
    return control.simulator()


@api.after_request
def never_cached(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@api.get("/overview")
def overview_view() -> Response:
    sim = simulator()
    with sim.lock:
        counts = {
            "organizations": len(sim.store.orgs),
            "activities": len(sim.store.activities),
            "outbox": len(sim.store.outbox),
        }
    return jsonify(
        {
            "nowMs": sim.clock.now_ms(),
            "frozen": sim.clock.state()[1] is not None,
            "seed": sim.source.seed,
            "counts": counts,
            "loadedScenarios": [str(p) for p in sim.config.scenarios] or ["default"],
            "snapshots": list(sim.saved_snapshots),
            "scenarios": shipped_list(),
            "tokenRequired": sim.config.control_token is not None,
            "dataDir": data_dir_listing(sim.config.data_dir),
        }
    )


def data_dir_listing(path: Path | None) -> Json | None:
    """serve --data-dir: the directory and the bytes its files hold; None when the state is in memory only."""
    if path is None:
        return None
    try:
        size = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    except OSError:
        size = 0
    return {"path": str(path.resolve()), "bytes": size}


def shipped_list() -> list[Json]:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    import yaml

    found = []
    for name, path in shipped_scenarios().items():
        try:
            description = (yaml.safe_load(path.read_text()) or {}).get("description", "")
        except (OSError, yaml.YAMLError):
            description = ""
        found.append({"name": name, "description": str(description)})
    return found


@api.get("/organizations")
def organizations_view() -> Response:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    from simulator.inspector import organizations

    sim = simulator()
    with sim.lock:
        return jsonify({"organizations": organizations.tree(sim.store)})


@api.get("/organizations/<organization_id>")
def organization_view(organization_id: str) -> Response:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    from simulator.inspector import organizations

    sim = simulator()
    with sim.lock:
        return jsonify(organizations.details(sim.store, sim.store.org(organization_id)))


@api.get("/activities")
def activities_view() -> Response:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    from simulator.inspector import activities

    filters = activities.Filters(
        status=request.args.get("status", ""),
        activity_type=request.args.get("type", ""),
        organization_id=request.args.get("organizationId", ""),
        limit=bounded_int("limit", 500),
    )
    sim = simulator()
    with sim.lock:
        return jsonify(activities.listing(sim.store, filters))


def bounded_int(name: str, default: int) -> int:
    text = request.args.get(name, "")
    if not text:
        return default
    if not decimal_digits(text, 9) or not 0 < int(text) <= MAX_LIST:
        raise InvalidArgument(f"{name} must be a whole number from 1 to {MAX_LIST}, got {text!r}")
    return int(text)


@api.get("/activities/<activity_id>")
def activity_view(activity_id: str) -> Response:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    from simulator.inspector import activities

    sim = simulator()
    extras = activities.Extras(
        rules=list(sim.rules), journal=sim.journal.entries(), duration_ms=log_of_app().duration_of(activity_id)
    )
    with sim.lock:
        activity = sim.store.activities.get(activity_id)
        if activity is None:
            raise NotFound(f"no activity found with id {activity_id}")
        return jsonify(activities.story(sim.store, activity, extras))


@api.get("/requests")
def requests_view() -> Response:
    """The timed request log of the main port, and the auth proxy's calls from the journal, newest first."""
    op = request.args.get("op") or None
    timed = log_of_app().entries(op)
    proxied = [proxy_entry(e) for e in simulator().journal.entries(op) if e.get("kind") == "proxy"]
    merged = sorted(timed + proxied, key=lambda e: (e["timeMs"], e.get("seq", 0)), reverse=True)
    ops = sorted({e["op"] for e in log_of_app().entries()} | {e["op"] for e in proxied})
    return jsonify({"entries": merged, "operations": ops})


def proxy_entry(entry: Json) -> Json:
    outcome = entry.get("outcome") or {}
    failed = int(entry.get("status", 0)) >= 400
    return {
        "timeMs": entry.get("time", 0),
        "method": "POST",
        "kind": "proxy",
        "op": entry.get("op"),
        "status": entry.get("status"),
        "durationMs": None,
        "errorCode": outcome.get("code") if failed else None,
        "error": outcome.get("message") if failed else None,
        "activityId": outcome.get("activityId"),
        "request": entry.get("request"),
        "warnings": list(entry.get("warnings") or ()),
    }


@api.get("/webhooks")
def webhooks_view() -> Response:
    # imported on first use: keeps serve's start-up short (the inspector may never be opened)
    from simulator.inspector import webhooks

    sim = simulator()
    return jsonify({"deliveries": webhooks.deliveries_view(sim.webhooks.deliveries()), "chaos": sim.webhooks.chaos})
