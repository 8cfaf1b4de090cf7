"""A small client for a running simulator's control API (/_simulator), for tests and the CLI.

The JS helper in js/ wraps the same endpoints with the same names in camelCase.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from simulator.wire import Json

TOKEN_ENV = "WALLET_SIMULATOR_CONTROL_TOKEN"  # the token, when none is passed (serve reads it too)
OUTBOX_LONG_POLL_SECONDS = 10.0  # one long poll of the outbox asks for at most this (under the client's timeout)


class ControlError(RuntimeError):
    """The control API refused a call; the message is its error message."""

    def __init__(self, message: str, status: int = 0, body: Any = None) -> None:
        super().__init__(message)
        self.status, self.body = status, body


class ControlClient:
    """``ControlClient("http://127.0.0.1:8080").approve(activity_id, "Bob")`` and the like.

    ``token``: the server's control token (``serve --control-token``), sent as
    ``Authorization: Bearer <token>``; by default the ``WALLET_SIMULATOR_CONTROL_TOKEN`` variable.
    """

    def __init__(self, url: str, timeout: float = 30, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)

    def call(self, method: str, path: str, body: Any = None, **query: str) -> Any:
        qs = f"?{urllib.parse.urlencode(query)}" if query else ""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(f"{self.url}/_simulator{path}{qs}", data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            try:
                answer = json.loads(text)
            except ValueError:
                answer = {"message": text.strip() or str(exc)}
            message = answer.get("message", str(exc)) if isinstance(answer, dict) else str(exc)
            raise ControlError(message, exc.code, answer) from None

    # state ------------------------------------------------------------------------------
    def reset(self) -> None:
        self.call("POST", "/reset", {})

    def load_scenarios(self, scenarios: list[str | os.PathLike[str]], replace: bool = True) -> list[Json]:
        """Shipped scenario names or files the server can read; returns the key pairs (credentials)."""
        paths = [str(p) for p in scenarios]
        return self.call("POST", "/scenarios", {"paths": paths, "replace": replace})["credentials"]  # type: ignore[no-any-return]

    def snapshot(self) -> str:
        return str(self.call("POST", "/snapshots", {})["snapshotId"])

    def restore(self, snapshot_id: str) -> None:
        self.call("POST", f"/snapshots/{snapshot_id}/restore", {})

    def state(self) -> Json:
        return self.call("GET", "/state")  # type: ignore[no-any-return]

    def import_state(self, state: Json) -> None:
        self.call("PUT", "/state", state)

    # observing ----------------------------------------------------------------------------
    def journal(self, op: str | None = None) -> list[Json]:
        return self.call("GET", "/journal", **({"op": op} if op else {}))["entries"]  # type: ignore[no-any-return]

    def outbox(self, contact: str | None = None) -> list[Json]:
        return self.call("GET", "/outbox", **({"contact": contact} if contact else {}))["messages"]  # type: ignore[no-any-return]

    def wait_for_otp(self, contact: str, timeout: float = 5.0, after: int = 0) -> str:
        """The code of the first OTP sent to ``contact`` beyond the ``after`` already seen (the plugin's
        ``simulator_outbox.wait_for``, over HTTP)."""
        deadline = time.monotonic() + timeout
        while True:
            # a long poll: the server answers when the code is there (or after `wait`); a server that
            # predates ?wait= answers at once, and this loop polls it as before
            longest = min(OUTBOX_LONG_POLL_SECONDS, self.timeout / 2)  # the answer must come within self.timeout
            wait = max(0.0, min(deadline - time.monotonic(), longest))
            sent = self.outbox_waiting(contact, wait, after)
            if len(sent) > after:
                return str(sent[after]["code"])
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no OTP sent to {contact} within {timeout} s")
            time.sleep(0.02)

    def outbox_waiting(self, contact: str, wait: float, after: int = 0) -> list[Json]:
        """``GET /outbox?contact=&wait=&after=``: the messages to ``contact`` once more than ``after``
        are there, or after ``wait`` seconds (at most 30)."""
        query = {"contact": contact, "wait": f"{wait:.3f}", "after": str(after)}
        return self.call("GET", "/outbox", **query)["messages"]  # type: ignore[no-any-return]

    def explain(self, activity_id: str) -> Json:
        return self.call("GET", f"/activities/{activity_id}/explain")  # type: ignore[no-any-return]

    def coverage(self) -> Json:
        return self.call("GET", "/coverage")  # type: ignore[no-any-return]

    def keys(self) -> Json:
        """The simulator's signing keys (uncompressed hex), e.g. ``keys()["notarizer"]``."""
        return self.call("GET", "/keys")  # type: ignore[no-any-return]

    # driving ------------------------------------------------------------------------------
    def advance_clock(self, seconds: float) -> int:
        return int(self.call("POST", "/clock/advance", {"seconds": seconds})["nowMs"])

    def approve(self, activity_id: str, user: str) -> Json:
        return self.call("POST", f"/activities/{activity_id}/approve", {"userId": user})["activity"]  # type: ignore[no-any-return]

    def reject(self, activity_id: str, user: str) -> Json:
        return self.call("POST", f"/activities/{activity_id}/reject", {"userId": user})["activity"]  # type: ignore[no-any-return]

    def configure_auth_proxy(self, organization_id: str, **settings: Any) -> Json:
        return self.call("POST", "/auth-proxy", {"organizationId": organization_id, **settings})  # type: ignore[no-any-return]

    def oauth_authorize(self, subject: str, **options: Any) -> str:
        """A code from the fake OAuth provider (options: email, codeChallenge, redirectUri, fail)."""
        return str(self.call("POST", "/oauth/authorize", {"subject": subject, **options})["code"])

    def oauth_id_token(self, subject: str, audience: str, **options: Any) -> str:
        """An ID token from the fake OAuth provider (options: nonce, email)."""
        return str(
            self.call("POST", "/oauth/id-token", {"subject": subject, "audience": audience, **options})["idToken"]
        )

    # webhooks -----------------------------------------------------------------------------
    def webhook_deliveries(self) -> list[Json]:
        return self.call("GET", "/webhooks/deliveries")["deliveries"]  # type: ignore[no-any-return]

    def fire_webhook(
        self, activity_id: str | None = None, url: str | None = None, overrides: Json | None = None
    ) -> Any:
        return self.call("POST", "/webhooks/fire", {"activityId": activity_id, "url": url, "overrides": overrides})[
            "deliveries"
        ]

    def resend_webhook(self, event_id: str) -> Json:
        return self.call("POST", f"/webhooks/{event_id}/resend", {})  # type: ignore[no-any-return]

    def webhook_chaos(self, **chaos: Any) -> Json:
        """drop, duplicate, delayMs, reorder: for deliveries from now on."""
        return self.call("POST", "/webhooks/chaos", chaos)  # type: ignore[no-any-return]

    def set_webhook_receiver(self, url: str | None, organization_id: str | None = None) -> Json:
        """Make ``url`` the organization's webhook receiver (None removes it); default: the default organization."""
        return self.call("POST", "/webhooks/receiver", {"url": url, "organizationId": organization_id})  # type: ignore[no-any-return]

    def drain_webhooks(self, timeout: float = 5) -> Any:
        return self.call("POST", "/webhooks/drain", {"timeout": timeout})["pending"]

    # faults -------------------------------------------------------------------------------
    def add_fault(self, kind: str, **spec: Any) -> Json:
        """Start a transport fault: ``add_fault("lostAnswer", match={"operation": "create_wallet"}, times=1)``;
        returns it, with its name (generated when not given)."""
        return self.call("POST", "/faults", {"kind": kind, **spec})  # type: ignore[no-any-return]

    def faults(self) -> list[Json]:
        """The active faults, each with ``matched``, ``hits`` and the ``requests`` it hit."""
        return self.call("GET", "/faults")["faults"]  # type: ignore[no-any-return]

    def remove_fault(self, name: str) -> None:
        self.call("DELETE", f"/faults/{urllib.parse.quote(name, safe='')}")

    def clear_faults(self) -> None:
        self.call("DELETE", "/faults")

    @contextmanager
    def fault(self, kind: str, **spec: Any) -> Iterator[Json]:
        """``with control.fault("reset", match={"operation": "create_wallet"}):`` active inside the block only."""
        added = self.add_fault(kind, **spec)
        try:
            yield added
        finally:
            self.remove_fault(added["name"])
