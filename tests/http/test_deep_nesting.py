"""A body nested 100,000 levels deep is a 400, also in a process whose recursion limit a library raised.

py_ecc (which eth-account loads, and so many downstream suites) sets the recursion limit to 100,000
process-wide; json's C reader then recurses past the C stack before it gives up, and the process
dies. The simulator measures the nesting before it parses, so the refusal does not depend on who
set the limit. Run in a child process: a crash must fail this test, not end the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = """
import json, sys
sys.setrecursionlimit(100_000)  # as py_ecc does on import
from simulator import Config, Simulator, create_app
client = create_app(Simulator(Config(seed=1))).test_client()
answers = {}
for name, path in [("submit", "/public/v1/submit/create_wallet"), ("query", "/public/v1/query/whoami"),
                   ("control", "/_simulator/clock/advance")]:
    for shape, raw in [("arrays", b"[" * 100_000), ("objects", b'{"a":' * 100_000 + b"1" + b"}" * 100_000)]:
        reply = client.post(path, data=raw, headers={"Content-Type": "application/json"})
        answers[f"{name} {shape}"] = [reply.status_code, reply.get_json()["message"]]
print(json.dumps(answers))
"""


def test_deep_bodies_are_refused_even_with_the_recursion_limit_raised():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    answers = json.loads(child.stdout)
    assert len(answers) == 6
    for where, (status, message) in answers.items():
        assert status == 400 and "nested more than 64 levels deep" in message, where


def test_a_deep_bracket_inside_a_string_is_only_text():
    from simulator.http.request_body import parse_body

    text = "[" * 5_000
    assert parse_body(json.dumps({"note": text, "list": [[1], [2]]}).encode(), None)["note"] == text


STAMPS = """
import base64, json, sys
sys.setrecursionlimit(100_000)
from simulator import Config, Simulator, create_app
client = create_app(Simulator(Config(seed=1))).test_client()
deep = "[" * 100_000
statuses = []
for header, value in [("X-Stamp", base64.urlsafe_b64encode(deep.encode()).decode()), ("X-Stamp-WebAuthn", deep)]:
    reply = client.post("/public/v1/query/whoami", data=b'{"organizationId": "x"}', headers={header: value})
    statuses.append([reply.status_code, reply.get_json()["turnkeyErrorCode"]])
print(json.dumps(statuses))
"""


def test_a_deeply_nested_stamp_header_is_a_401():
    child = subprocess.run([sys.executable, "-c", STAMPS], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    assert json.loads(child.stdout) == [[401, "SIGNATURE_INVALID"], [401, "SIGNATURE_INVALID"]]
