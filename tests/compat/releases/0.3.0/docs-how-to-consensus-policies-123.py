from simulator.control.control_client import ControlClient
from simulator.testing import ApiKeyStamper, SimulatorClient

control = ControlClient("http://127.0.0.1:8080")
control.load_scenarios(["policy_deny"])          # Dave may create wallets, and delete no policy
dave = SimulatorClient("http://127.0.0.1:8080",
                       ApiKeyStamper("da4e000000000000000000000000000000000000000000000000000000000001"),
                       "5f1c0c5e-0000-4000-8000-00000000a001")
denied = dave.submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", {"policyIds": []})
assert denied.status == 403
activity_id = denied.body["details"][-1]["activityId"]
why = control.explain(activity_id)
assert why["decidedBy"] == "denied by policy nobody deletes policies"
[evaluation] = why["policyEvaluations"]
assert evaluation["policyEvaluations"][0]["outcome"] == "OUTCOME_DENY_EXPLICIT"
assert evaluation["outcomes"] == evaluation["policyEvaluations"]   # the deprecated alias, same value
control.load_scenarios(["default"])
