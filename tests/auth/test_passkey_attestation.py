"""Passkey registrations and assertions as browsers and security keys make them.

The attestations here are built in the test, from the WebAuthn and FIDO specifications, with
cryptography and cbor2: ``none``, ``packed`` self attestation, ``packed`` full attestation (a
test CA and a batch certificate carrying the FIDO fields) and ``fido-u2f``. Each is sent over
HTTP; refusals must name the check that failed. The last tests drive Debian's headless Chromium
with a WebDriver virtual authenticator: the browser makes the registration and the assertion.
"""

from __future__ import annotations

import datetime
import hashlib
import http.server
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import cbor2
import pytest
from conftest import DEFAULTS, new_user, ok, result_of
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from support import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM, assert_error, chromium, serving

from simulator.auth.stamps import b64url_decode, b64url_encode
from simulator.crypto import keys
from simulator.testing import PasskeyStamper, SimulatorClient

ORIGIN = "http://localhost:3000"
RP_ID = "localhost"
CHALLENGE = b64url_encode(b"a registration challenge")
CREATE = ("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2")
AAGUID = bytes.fromhex("0123456789abcdef0123456789abcdef")
FIDO_AAGUID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")
EPOCH = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)


def p256(scalar: int) -> ec.EllipticCurvePrivateKey:
    """A fixed key, so that every run makes the same attestations."""
    return ec.derive_private_key(scalar, ec.SECP256R1())


def certificate(
    subject: list[x509.NameAttribute[Any]],
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool,
    aaguid: bytes | None = None,
) -> x509.Certificate:
    name = x509.Name(subject)
    issuer_name, issuer_key = issuer or (name, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(EPOCH)
        .not_valid_after(EPOCH + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if aaguid is not None:  # id-fido-gen-ce-aaguid: an OCTET STRING holding the AAGUID
        builder = builder.add_extension(x509.UnrecognizedExtension(FIDO_AAGUID_OID, b"\x04\x10" + aaguid), False)
    return builder.sign(issuer_key, hashes.SHA256())


ROOT_KEY, BATCH_KEY, OTHER_KEY = p256(0xC0FFEE), p256(0xBA7C4), p256(0x0DDBA11)
ROOT = certificate([x509.NameAttribute(NameOID.COMMON_NAME, "Test Attestation Root")], ROOT_KEY, None, ca=True)
BATCH_SUBJECT = [
    x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Simulator Tests"),
    x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "Authenticator Attestation"),
    x509.NameAttribute(NameOID.COMMON_NAME, "Test Batch Certificate"),
]
BATCH = certificate(BATCH_SUBJECT, BATCH_KEY, (ROOT.subject, ROOT_KEY), ca=False, aaguid=AAGUID)


def der(cert: x509.Certificate) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding

    return cert.public_bytes(Encoding.DER)


@dataclass
class Authenticator:
    """A software authenticator: makes registrations in the formats real ones use."""

    scalar: int
    credential_id: bytes = b"credential-1"
    aaguid: bytes = AAGUID
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> ec.EllipticCurvePrivateKey:
        return p256(self.scalar)

    @property
    def point(self) -> bytes:
        return keys.uncompressed(self.key)

    def stamper(self, origin: str = ORIGIN, rp_id: str = "") -> PasskeyStamper:
        return PasskeyStamper(b64url_encode(self.credential_id), keys.private_hex(self.key), origin, rp_id)

    def register(
        self,
        fmt: str = "none",
        *,
        challenge: str = CHALLENGE,
        origin: str = ORIGIN,
        rp_id: str = RP_ID,
        client_type: str = "webauthn.create",
        signer: ec.EllipticCurvePrivateKey | None = None,
        x5c: list[bytes] | None = None,
        aaguid: bytes | None = None,
        cose: dict[int, Any] | None = None,
    ) -> dict[str, Any]:
        aaguid = self.aaguid if aaguid is None else aaguid
        if fmt == "fido-u2f":
            aaguid = bytes(16)  # U2F authenticators have no AAGUID
        point = self.point
        cose_key = cose or {1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:]}
        rp_id_hash = hashlib.sha256(rp_id.encode()).digest()
        auth_data = (
            rp_id_hash
            + b"\x45"  # UP, UV, AT
            + (0).to_bytes(4, "big")
            + aaguid
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + cbor2.dumps(cose_key)
        )
        client_data = json.dumps({"type": client_type, "challenge": challenge, "origin": origin}).encode()
        client_hash = hashlib.sha256(client_data).digest()
        statement: dict[str, Any] = {}
        if fmt == "packed":  # self attestation unless an x5c is given
            signed = auth_data + client_hash
            statement = {"alg": -7, "sig": (signer or self.key).sign(signed, ec.ECDSA(hashes.SHA256()))}
            if x5c is not None:
                statement["sig"] = (signer or BATCH_KEY).sign(signed, ec.ECDSA(hashes.SHA256()))
                statement["x5c"] = x5c
        elif fmt == "fido-u2f":
            signed = b"\x00" + rp_id_hash + client_hash + self.credential_id + point
            statement = {"sig": (signer or BATCH_KEY).sign(signed, ec.ECDSA(hashes.SHA256())), "x5c": [der(BATCH)]}
        elif fmt != "none":
            statement = {"alg": -7, "sig": b"\x30\x00"}
        return {
            "credentialId": b64url_encode(self.credential_id),
            "clientDataJson": b64url_encode(client_data),
            "attestationObject": b64url_encode(cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data})),
            "transports": ["AUTHENTICATOR_TRANSPORT_USB"],
        }


def register(client: SimulatorClient, user_id: str, attestation: dict[str, Any], challenge: str = CHALLENGE) -> Any:
    spec = {"authenticatorName": "key", "challenge": challenge, "attestation": attestation}
    return client.submit(*CREATE, {"userId": user_id, "authenticators": [spec]})


# --- accepted formats ---------------------------------------------------------------------------

FULL_CHAIN = [der(BATCH), der(ROOT)]


@pytest.mark.parametrize(
    ("fmt", "extra"),
    [
        ("none", {}),
        ("packed", {}),  # self attestation: signed by the credential key
        ("packed", {"x5c": FULL_CHAIN}),  # full attestation: batch certificate and its CA
        ("packed", {"x5c": [der(BATCH)]}),  # the leaf alone, as many security keys send it
        ("fido-u2f", {}),
    ],
    ids=["none", "packed-self", "packed-full", "packed-leaf-only", "fido-u2f"],
)
def test_the_formats_browsers_and_security_keys_make_are_accepted(client, fmt, extra):
    user_id = new_user(client)
    device = Authenticator(0x51)
    made = result_of(register(client, user_id, device.register(fmt, **extra)), "createAuthenticatorsResult")
    shown = ok(client.query("get_authenticator", authenticatorId=made["authenticatorIds"][0]))["authenticator"]
    assert shown["attestationType"] == fmt
    assert shown["credentialId"] == b64url_encode(device.credential_id)
    if fmt != "fido-u2f":
        assert shown["aaguid"] == "01234567-89ab-cdef-0123-456789abcdef"
    as_passkey = SimulatorClient(client.base_url, device.stamper(), client.organization_id)
    assert ok(as_passkey.query("whoami"))["userId"] == user_id


def test_the_helper_makes_packed_self_attestations_too(client):
    passkey = PasskeyStamper("aGVscGVy", "3c" * 32)
    user = {
        "userName": "Pat",
        "apiKeys": [],
        "userTags": [],
        "oauthProviders": [],
        "authenticators": [
            {"authenticatorName": "p", "challenge": "Y2g", "attestation": passkey.attestation("Y2g", "packed")}
        ],
    }
    user_id = result_of(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}), "createUsersResult"
    )["userIds"][0]
    as_passkey = SimulatorClient(client.base_url, passkey, client.organization_id)
    assert ok(as_passkey.query("whoami"))["userId"] == user_id
    with pytest.raises(ValueError, match="fmt must be"):
        passkey.attestation("Y2g", "tpm")


# --- refusals name the check that failed --------------------------------------------------------

ELSEWHERE_ROOT = certificate([x509.NameAttribute(NameOID.COMMON_NAME, "Another Root")], OTHER_KEY, None, ca=True)
NO_OU = certificate(
    [x509.NameAttribute(NameOID.COMMON_NAME, "No OU")], BATCH_KEY, (ROOT.subject, ROOT_KEY), ca=False, aaguid=AAGUID
)
OTHER_AAGUID = certificate(BATCH_SUBJECT, BATCH_KEY, (ROOT.subject, ROOT_KEY), ca=False, aaguid=bytes(16))

REFUSALS = {
    "packed-self-wrong-signature": ({"fmt": "packed", "signer": OTHER_KEY}, "packed attestation signature invalid"),
    "packed-full-wrong-signature": (
        {"fmt": "packed", "x5c": FULL_CHAIN, "signer": OTHER_KEY},
        "packed attestation signature invalid",
    ),
    "fido-u2f-wrong-signature": ({"fmt": "fido-u2f", "signer": OTHER_KEY}, "fido-u2f attestation signature invalid"),
    "rp-id-hash": ({"rp_id": "evil.example"}, "rpIdHash does not match rp id localhost"),
    "origin-not-web-of-rp": ({"origin": "https://other.example"}, "rpIdHash does not match rp id other.example"),
    "challenge": ({"challenge": b64url_encode(b"another")}, "clientDataJson challenge"),
    "type": ({"client_type": "webauthn.get"}, "clientDataJson type 'webauthn.get' is not 'webauthn.create'"),
    "unsupported-fmt": ({"fmt": "made-up"}, "attestation format 'made-up' not supported"),
    "chain-broken": (
        {"fmt": "packed", "x5c": [der(BATCH), der(ELSEWHERE_ROOT)]},
        "certificate chain broken: certificate 0 is not signed by certificate 1",
    ),
    "certificate-without-ou": ({"fmt": "packed", "x5c": [der(NO_OU)]}, "OU=Authenticator Attestation"),
    "certificate-aaguid": ({"fmt": "packed", "x5c": [der(OTHER_AAGUID)]}, "AAGUID extension does not match"),
    "rs256": ({"cose": {1: 3, 3: -257, -1: b"\x01" * 256, -2: b"\x01\x00\x01"}}, "RS256"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_registration_that_fails_a_check_is_refused_naming_it(client, case):
    user_id = new_user(client)
    changes, phrase = REFUSALS[case]
    body = assert_error(register(client, user_id, Authenticator(0x52).register(**changes)), 400, 3, phrase)
    assert body["message"].startswith("invalid authenticator attestation: ")
    assert ok(client.query("get_authenticators", userId=user_id))["authenticators"] == []


def test_a_none_attestation_with_a_statement_and_a_foreign_credential_id_are_refused(client):
    user_id = new_user(client)
    device = Authenticator(0x53)
    attestation = device.register()
    obj = cbor2.loads(b64url_decode(attestation["attestationObject"]))
    stuffed = {**attestation, "attestationObject": b64url_encode(cbor2.dumps({**obj, "attStmt": {"sig": b"x"}}))}
    assert_error(register(client, user_id, stuffed), 400, 3, "none attestation carries an attestation statement")
    renamed = {**attestation, "credentialId": b64url_encode(b"someone-else")}
    assert_error(register(client, user_id, renamed), 400, 3, "does not match the credential id in authData")
    no_auth_data = {**attestation, "attestationObject": b64url_encode(cbor2.dumps({"fmt": "none", "attStmt": {}}))}
    assert_error(
        register(client, user_id, no_auth_data), 400, 3, "missing parameter: user authenticator attestation auth data"
    )


def test_every_registering_activity_checks_the_same_way(client, caplog):
    """create_users, create_sub_organization and create_authenticators share the one check; only
    create_authenticators, which always did, refuses a challenge that differs (the others never
    compared it, and the docs call it not meaningful there: they log a warning)."""
    forged = Authenticator(0x54).register("packed", signer=OTHER_KEY)
    spec = {"authenticatorName": "k", "challenge": CHALLENGE, "attestation": forged}
    user = {"userName": "U", "apiKeys": [], "userTags": [], "oauthProviders": [], "authenticators": [spec]}
    assert_error(
        client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}),
        400,
        3,
        "packed attestation signature invalid",
    )
    sub = {
        "subOrganizationName": "s",
        "rootUsers": [{k: v for k, v in user.items() if k != "userTags"}],
        "rootQuorumThreshold": 1,
    }
    assert_error(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", sub),
        400,
        3,
        "packed attestation signature invalid",
    )
    wrong_challenge = {**spec, "attestation": Authenticator(0x54).register(), "challenge": b64url_encode(b"x")}
    user["authenticators"] = [wrong_challenge]
    with caplog.at_level("WARNING", logger="simulator"):
        ok(client.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}))
    assert any("accepted although its clientDataJson challenge" in r.getMessage() for r in caplog.records)
    own = {**wrong_challenge, "attestation": Authenticator(0x55).register()}
    root = client.query("whoami").body["userId"]
    assert_error(
        client.submit(
            "create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", {"userId": root, "authenticators": [own]}
        ),
        400,
        3,
        "clientDataJson challenge",
    )


# --- origins: FEATURE_NAME_WEBAUTHN_ORIGINS ----------------------------------------------------


def set_origins(client: SimulatorClient, value: str, organization_id: str | None = None) -> None:
    params = {"name": "FEATURE_NAME_WEBAUTHN_ORIGINS", "value": value}
    extra = {"organizationId": organization_id} if organization_id else {}
    ok(client.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", params, **extra))


def test_webauthn_origins_scope_registrations_and_stamps_and_reach_sub_organizations(client):
    device = Authenticator(0x55)
    user_id = new_user(client)
    result_of(register(client, user_id, device.register()), "createAuthenticatorsResult")  # any origin: "*"
    set_origins(client, "https://app.example, https://www.app.example/")
    other = Authenticator(0x56, credential_id=b"credential-2")
    refused = register(client, user_id, other.register(origin="https://evil.example", rp_id="evil.example"))
    assert_error(
        refused, 400, 3, "origin https://evil.example does not match the organization's FEATURE_NAME_WEBAUTHN_ORIGINS"
    )
    assert "https://app.example" in refused.body["message"]
    result_of(
        register(client, user_id, other.register(origin="https://www.app.example", rp_id="app.example")),
        "createAuthenticatorsResult",
    )
    at_app = SimulatorClient(
        client.base_url, other.stamper("https://www.app.example", "app.example"), client.organization_id
    )
    assert ok(at_app.query("whoami"))["userId"] == user_id
    # the first passkey, registered before the feature was set, now stamps only from an allowed origin
    at_localhost = SimulatorClient(client.base_url, device.stamper(), client.organization_id)
    assert_error(
        at_localhost.query("whoami"), 401, 16, "could not verify WebAuthN signature: origin http://localhost:3000"
    )
    # a sub-organization inherits its parent's origins
    sub = {
        "subOrganizationName": "s",
        "rootUsers": [
            {
                "userName": "U",
                "apiKeys": [],
                "oauthProviders": [],
                "authenticators": [
                    {
                        "authenticatorName": "k",
                        "challenge": CHALLENGE,
                        "attestation": Authenticator(0x57, b"cred-3").register(
                            origin="https://evil.example", rp_id="evil.example"
                        ),
                    }
                ],
            }
        ],
        "rootQuorumThreshold": 1,
    }
    assert_error(
        client.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", sub),
        400,
        3,
        "origin https://evil.example",
    )
    set_origins(client, "*")
    assert ok(at_localhost.query("whoami"))["userId"] == user_id


def test_an_assertion_names_the_check_it_fails(client):
    stamper = PasskeyStamper(DEFAULTS["passkeyCredentialId"], DEFAULTS["passkeyPrivateKey"])
    good = SimulatorClient(client.base_url, stamper, client.organization_id)
    assert ok(good.query("whoami"))["userId"] == DEFAULTS["userId"]
    elsewhere = PasskeyStamper(stamper.credential_id, stamper.private_key, "http://localhost", rp_id="evil.example")
    assert_error(
        SimulatorClient(client.base_url, elsewhere, client.organization_id).query("whoami"),
        401,
        16,
        "rpIdHash does not match rp id localhost",
    )
    forged = PasskeyStamper(stamper.credential_id, "42" * 32)
    assert_error(
        SimulatorClient(client.base_url, forged, client.organization_id).query("whoami"),
        401,
        16,
        "could not verify WebAuthN signature: signature",
    )
    body = b'{"organizationId": "%s"}' % DEFAULTS["organizationId"].encode()
    _, over_other_bytes = stamper.stamp(b"{}")
    assert_error(
        SimulatorClient(client.base_url, None, client.organization_id).post(
            "/public/v1/query/whoami", body, {"X-Stamp-WebAuthn": over_other_bytes}
        ),
        401,
        16,
        "could not verify WebAuthN signature: challenge",
    )


# --- a real browser: Chromium's virtual authenticator ------------------------------------------

needs_browser = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_CHROMIUM)
PAGE = b"""<!doctype html><title>passkeys</title>
<script>
const b64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)))
  .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
async function register(challenge, attestation) {
  const credential = await navigator.credentials.create({ publicKey: {
    rp: { id: "localhost", name: "Simulator tests" },
    user: { id: crypto.getRandomValues(new Uint8Array(16)), name: "alice", displayName: "Alice" },
    challenge: bytes(challenge),
    pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
    attestation,
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  } });
  return { credentialId: credential.id,
           clientDataJson: b64url(credential.response.clientDataJSON),
           attestationObject: b64url(credential.response.attestationObject),
           transports: credential.response.getTransports() };
}
async function assert(challengeText, credentialId) {
  const credential = await navigator.credentials.get({ publicKey: {
    rpId: "localhost",
    challenge: new TextEncoder().encode(challengeText),
    allowCredentials: [{ type: "public-key", id: bytes(credentialId) }],
    userVerification: "preferred",
  } });
  return { authenticatorData: b64url(credential.response.authenticatorData),
           clientDataJson: b64url(credential.response.clientDataJSON),
           credentialId: credential.id,
           signature: b64url(credential.response.signature) };
}
</script>"""
TRANSPORTS = {"internal": "AUTHENTICATOR_TRANSPORT_INTERNAL", "usb": "AUTHENTICATOR_TRANSPORT_USB"}


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    """The test page over http://localhost (a secure context, so WebAuthn is available)."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)) as origin:
        yield f"{origin}/"


@pytest.fixture(scope="module")
def browser(page_url: str) -> Iterator[Any]:
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions

    with chromium() as driver:
        driver.get(page_url)
        options = VirtualAuthenticatorOptions(
            protocol="ctap2",
            transport="internal",
            has_resident_key=True,
            has_user_verification=True,
            is_user_verified=True,
        )
        driver.add_virtual_authenticator(options)
        yield driver


def in_browser(driver: Any, call: str, *args: Any) -> Any:
    return driver.execute_async_script(
        f"const done = arguments[arguments.length - 1]; {call}(...Array.from(arguments).slice(0, -1))"
        ".then(done, (e) => done({ error: String(e) }));",
        *args,
    )


def browser_stamp(driver: Any, body: bytes, credential_id: str) -> str:
    """X-Stamp-WebAuthn as @turnkey/webauthn-stamper makes it: the challenge is hex SHA-256 of the body."""
    assertion = in_browser(driver, "assert", hashlib.sha256(body).hexdigest(), credential_id)
    assert "error" not in assertion, assertion
    return json.dumps(assertion)


@needs_browser
@pytest.mark.parametrize("conveyance", ["direct", "none"])
def test_chromium_passkeys_register_and_stamp(client, browser, conveyance):
    made = in_browser(browser, "register", CHALLENGE, conveyance)
    assert "error" not in made, made
    attestation_object = cbor2.loads(b64url_decode(made["attestationObject"]))
    fmt = attestation_object["fmt"]
    assert fmt == ("packed" if conveyance == "direct" else "none")
    if conveyance == "direct":  # full attestation: Chromium's batch certificate in x5c
        assert attestation_object["attStmt"]["x5c"]
    made["transports"] = [TRANSPORTS.get(t, "AUTHENTICATOR_TRANSPORT_HYBRID") for t in made["transports"]]
    # a sub-organization whose root user is this passkey, as a passkey sign-up creates it
    root = {
        "userName": "Alice",
        "apiKeys": [],
        "oauthProviders": [],
        "authenticators": [{"authenticatorName": "chromium", "challenge": CHALLENGE, "attestation": made}],
    }
    created = result_of(
        client.submit(
            "create_sub_organization",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            {"subOrganizationName": f"chromium {conveyance}", "rootUsers": [root], "rootQuorumThreshold": 1},
        ),
        "createSubOrganizationResultV7",
    )
    sub_org_id, user_id = created["subOrganizationId"], created["rootUserIds"][0]
    shown = ok(client.query("get_authenticators", userId=user_id, organizationId=sub_org_id))["authenticators"]
    assert shown[0]["attestationType"] == fmt
    unstamped = SimulatorClient(client.base_url, None, sub_org_id)
    # whoami stamped by the browser's assertion, naming the parent (the SDKs' passkey login does)
    body = json.dumps({"organizationId": client.organization_id}).encode()
    stamp = browser_stamp(browser, body, made["credentialId"])
    who = ok(unstamped.post("/public/v1/query/whoami", body, {"X-Stamp-WebAuthn": stamp}))
    assert (who["organizationId"], who["userId"]) == (sub_org_id, user_id)
    # the same assertion with its signature made by another key is refused
    fields = json.loads(stamp)
    signed = (
        b64url_decode(fields["authenticatorData"]) + hashlib.sha256(b64url_decode(fields["clientDataJson"])).digest()
    )
    forged = {**fields, "signature": b64url_encode(OTHER_KEY.sign(signed, ec.ECDSA(hashes.SHA256())))}
    assert_error(
        unstamped.post("/public/v1/query/whoami", body, {"X-Stamp-WebAuthn": json.dumps(forged)}),
        401,
        16,
        "could not verify WebAuthN signature: signature",
    )


def test_a_credential_id_in_the_swaggers_cbor_form_is_stored_as_browsers_name_it(client):
    """The swagger says "cbor encoded then base64 url encoded"; stamps name the browser's credential.id."""
    user_id = new_user(client)
    device = Authenticator(0x58, credential_id=b"cbor-form")
    attestation = {**device.register(), "credentialId": b64url_encode(cbor2.dumps(device.credential_id))}
    made = result_of(register(client, user_id, attestation), "createAuthenticatorsResult")
    shown = ok(client.query("get_authenticator", authenticatorId=made["authenticatorIds"][0]))["authenticator"]
    assert shown["credentialId"] == b64url_encode(b"cbor-form")
    as_passkey = SimulatorClient(client.base_url, device.stamper(), client.organization_id)
    assert ok(as_passkey.query("whoami"))["userId"] == user_id
