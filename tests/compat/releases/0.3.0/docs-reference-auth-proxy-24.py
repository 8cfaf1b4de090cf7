import json
import urllib.request

from simulator.control.control_client import ControlClient
from simulator.testing import ClientKeyPair

ORG = "5f1c0c5e-0000-4000-8000-00000000a001"
control = ControlClient("http://127.0.0.1:8080")
control.configure_auth_proxy(ORG, configId="docs-config")


def proxy(name: str, body: dict) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:8081/v1/{name}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Auth-Proxy-Config-Id": "docs-config"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


email = "proxy-docs@example.com"
started = proxy("otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": email})
assert set(started) == {"otpId"}
code = control.outbox(email)[-1]["code"]                      # the code the proxy "sent"
verified = proxy("otp_verify", {"otpId": started["otpId"], "otpCode": code})
assert set(verified) == {"verificationToken"}
assert proxy("account", {"filterType": "EMAIL", "filterValue": email}) == {}   # nobody yet
signed_up = proxy("signup", {"userName": email, "userEmail": email, "verificationToken": verified["verificationToken"]})
assert set(signed_up) == {"organizationId", "userId"}
assert proxy("account", {"filterType": "EMAIL", "filterValue": email}) == {"organizationId": signed_up["organizationId"]}
session_key = ClientKeyPair.generate()
logged_in = proxy("otp_login", {"verificationToken": verified["verificationToken"], "publicKey": session_key.public_key})
assert set(logged_in) == {"session"}
assert set(proxy("wallet_kit_config", {})) <= {"enabledProviders", "sessionExpirationSeconds", "organizationId",
                                               "oauthClientIds", "oauthRedirectUrl", "otpAlphanumeric", "otpLength"}
print(signed_up["organizationId"], logged_in["session"][:20], "...")
