from simulator.control.control_client import ControlClient

control = ControlClient("http://127.0.0.1:8080")
users = {c["userName"] for c in control.load_scenarios(["two_of_three_quorum"])}
assert {"Bob", "Carol"} <= users
before = control.advance_clock(0)
assert control.advance_clock(30) >= before + 30_000
control.load_scenarios(["default"])           # back to the embedded default
print(control.journal())                       # [] after a load
