from simulator.control.control_client import ControlClient

control = ControlClient("http://127.0.0.1:8080")
control.load_scenarios(["two_of_three_quorum"])
bob = next(c for c in control.state()["credentials"] if c["userName"] == "Bob")
assert bob["apiPrivateKey"] and bob["organizationId"]
control.load_scenarios(["default"])
