from simulator.control.control_client import ControlClient
from simulator.testing import ApiKeyStamper, SimulatorClient

control = ControlClient("http://127.0.0.1:8080")
me = next(c for c in control.load_scenarios(["default"]) if c.get("apiPrivateKey"))
client = SimulatorClient("http://127.0.0.1:8080", ApiKeyStamper(me["apiPrivateKey"]), me["organizationId"])
with control.fault("unavailable", match={"operation": "list_wallets"}, times=1) as fault:
    print(fault["name"])                      # fault-1
    assert control.faults()[0]["hits"] == 0   # until a list_wallets arrives
    assert client.query("list_wallets").status == 500   # the fault's answer
    assert control.faults()[0]["hits"] == 1
assert client.query("list_wallets").status == 200       # the block removed it
assert control.faults() == []
