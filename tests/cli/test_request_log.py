"""serve's request log is written by a background thread: the same lines, in the order they were made."""

from __future__ import annotations

import io
import json
import logging
import re

from simulator import Config, Simulator, create_app
from simulator.http import logs
from simulator.testing import ApiKeyStamper, InProcessClient

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO simulator\.requests POST query/whoami 200 [\d.]+ ms$")


def client_of(app):
    creds = app.extensions["simulator"].credentials[0]
    return InProcessClient(app, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])


def written(fmt: str, background: bool) -> list[str]:
    out = io.StringIO()
    handler = logs.configure(fmt, out, background=background)
    try:
        app = create_app(Simulator(Config(seed=1)))
        client = client_of(app)
        client.query("whoami")
        logging.getLogger("simulator").warning("between the two requests")
        client.query("get_wallet", walletId="00000000-0000-4000-8000-0000000000c3")
    finally:
        logging.getLogger().removeHandler(handler)
        if logs._writer is not None:
            logs._writer.stop()
            logs._writer = None
    return out.getvalue().splitlines()


def test_the_background_writer_writes_the_lines_the_synchronous_one_does():
    queued, direct = written("text", True), written("text", False)
    assert len(queued) == len(direct) == 3
    for lines in (queued, direct):
        assert LINE.match(lines[0]), lines[0]
        assert lines[1].endswith("WARNING simulator between the two requests")
        assert "POST query/get_wallet 404" in lines[2] and "00000000-0000-4000-8000-0000000000c3" in lines[2]


def test_json_lines_keep_their_fields_when_queued():
    first, warning, missing = (json.loads(line) for line in written("json", True))
    assert first["logger"] == "simulator.requests" and first["operation"] == "query/whoami"
    assert first["status"] == 200 and first["durationMs"] > 0 and first["time"].endswith("+00:00")
    assert warning["level"] == "WARNING" and warning["message"] == "between the two requests"
    assert missing["status"] == 404 and missing["errorCode"] and "0000000000c3" in missing["error"]
