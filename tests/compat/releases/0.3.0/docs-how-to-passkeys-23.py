from simulator.testing import ApiKeyStamper, PasskeyStamper, SimulatorClient

org, user = "5f1c0c5e-0000-4000-8000-00000000a001", "5f1c0c5e-0000-4000-8000-00000000b001"
admin = SimulatorClient("http://127.0.0.1:8080", ApiKeyStamper("b02b91437e30e7c99682f43dfef819be237b9afba4d7131ac9f087daebb34992"), org)
passkey = PasskeyStamper("cmVhZG1lLWtleQ", "5a" * 32, origin="http://localhost:3000")
spec = {"authenticatorName": "laptop", "challenge": "Y2g", "attestation": passkey.attestation("Y2g", fmt="packed")}
created = admin.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", {"userId": user, "authenticators": [spec]})
assert created.status == 200, created.body
assert SimulatorClient("http://127.0.0.1:8080", passkey, org).query("whoami").body["userId"] == user
feature = {"name": "FEATURE_NAME_WEBAUTHN_ORIGINS", "value": "https://app.example"}
admin.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", feature)
refused = SimulatorClient("http://127.0.0.1:8080", passkey, org).query("whoami")
assert refused.status == 401 and "origin http://localhost:3000" in refused.body["message"]
print(refused.body["message"])
# could not verify WebAuthN signature: origin http://localhost:3000 does not match the organization's FEATURE_NAME_WEBAUTHN_ORIGINS (https://app.example)
