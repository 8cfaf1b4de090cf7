#!/usr/bin/env python3
"""Derive the request-body JSON Schemas in schemas/submit/ and schemas/query/ from the swagger.

Run from the repository root:

    python tools/derive_schemas.py

Its two inputs live in the repository (schemas/README.md says where they come from publicly):
schemas/source/public_api.swagger.json, Turnkey's public API swagger, and
schemas/source/client-activity-types.md, the activity types the official clients send (a table);
``--swagger`` and ``--digest`` name others.

One Draft-7 schema is written per POST path: /public/v1/submit/<op> -> schemas/submit/<op>.json and
/public/v1/query/<op> -> schemas/query/<op>.json. Their 200 responses go to schemas/responses/<kind>/<op>.json
(tools/response_schemas.py says how). Every swagger $ref is inlined, so each file is
self-contained. Submit schemas accept every activity-type version that the official clients send
on that URL (the swagger's type plus the rows of the clients' table) and every older version of
those types that the swagger still defines (its v1ActivityType value with its own v1Intent
property: the service keeps serving them), each against its own intent, and carry the custom
keyword "x-activity-types" ({type: {intentKey, resultKey}}), which the simulator reads for the
envelope keys. OVERRIDES below applies what the service documents where it differs from, or is
stricter than, the swagger. Output is deterministic (sorted keys, indent 2, newline at end).

This is a build tool: the simulator never imports it (it reads the simulator's address-format table).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

import response_schemas as responses  # the sibling module (tools/ is on sys.path when this file runs)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the simulator's address table, from a checkout
from simulator.crypto import addresses
from simulator.operations.activity_types import kind_of

Json = dict[str, Any]

DRAFT7 = "http://json-schema.org/draft-07/schema#"
SUBMIT_PREFIX = "/public/v1/submit/"
QUERY_PREFIX = "/public/v1/query/"
SECONDS_FIELD = re.compile(r"[a-z]\w*Seconds")  # string-typed counts of seconds (expirationSeconds, ...)
INT64_RANGES = {"int64": (-(2**63), 2**63 - 1), "uint64": (0, 2**64 - 1)}
MAX_REF_DEPTH = 24  # the swagger has no recursive refs on these paths; deeper refs become open objects
ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "schemas" / "source"

# Interface "Organization configs": Feature name enum (the swagger adds SOLANA_RENT_PREFUND_ENABLED,
# SWAP_CONFIG and EARN_CONFIG, which the interface does not list).
FEATURE_NAMES = [
    "FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY",
    "FEATURE_NAME_WEBAUTHN_ORIGINS",
    "FEATURE_NAME_EMAIL_AUTH",
    "FEATURE_NAME_EMAIL_RECOVERY",
    "FEATURE_NAME_WEBHOOK",
    "FEATURE_NAME_SMS_AUTH",
    "FEATURE_NAME_OTP_EMAIL_AUTH",
    "FEATURE_NAME_AUTH_PROXY",
]

# Interface "Private key": Address format enum, and the swagger's Spark formats: the simulator's one
# table of formats (simulator/crypto/addresses.py), in its order.
ADDRESS_FORMATS = list(addresses.ADDRESS_FORMATS)

# Interface "Queries" + "Limits": only these six networks for get_wallet_address_balances.
BALANCE_NETWORKS = ["eip155:1", "eip155:11155111", "eip155:8453", "eip155:84532", "eip155:137", "eip155:80002"]

# Overrides from the service's documented behaviour (the interface sections named below), keyed "submit/<op>" or "query/<op>".
# Each maps a location to keywords that replace the derived ones. A location is a dotted path of
# property names ("" = the root; "name[]" = the items of array property "name"). For submit files
# the root is the `parameters` schema of every accepted type; for query files it is the body.
OVERRIDES: dict[str, dict[str, Json]] = {
    # Activities table, R/O flags: exactly the R fields are required (nonce is O, the swagger requires it).
    "submit/oauth2_authenticate": {"": {"required": ["oauth2CredentialId", "authCode", "redirectUri", "codeVerifier"]}},
    # Activities table, R/O flags.
    "submit/otp_auth": {"": {"required": ["otpId", "otpCode", "targetPublicKey"]}},
    # Activities table, R/O flags.
    "submit/oauth_login": {"": {"required": ["oidcToken", "publicKey"]}},
    # Activities table, R/O flags.
    "submit/delete_policies": {"": {"required": ["policyIds"]}},
    # Activities table: the five invitation fields and the access-type enum.
    "submit/create_invitations": {
        "invitations[]": {
            "required": ["receiverUserName", "receiverUserEmail", "receiverUserTags", "accessType", "senderUserId"]
        },
        "invitations[].accessType": {"enum": ["ACCESS_TYPE_WEB", "ACCESS_TYPE_API", "ACCESS_TYPE_ALL"]},
    },
    # Activities table + Limits: ABI/IDL at most 400kb; the two interface types.
    "submit/create_smart_contract_interface": {
        "smartContractInterface": {"maxLength": 400000},
        "type": {"enum": ["SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"]},
    },
    # Activities table ("a feature name from the enum") + Organization configs: Feature name enum.
    "submit/set_organization_feature": {"name": {"enum": FEATURE_NAMES}},
    # Activities table (create_wallet accounts use the address-format enum) + Private key section.
    "submit/create_wallet": {"accounts[].addressFormat": {"enum": ADDRESS_FORMATS}},
    # Queries table: all listed fields are required.
    "query/get_authenticator": {"": {"required": ["organizationId", "authenticatorId"]}},
    "query/list_private_keys": {"": {"required": ["organizationId"]}},
    "query/list_private_key_tags": {"": {"required": ["organizationId"]}},
    "query/list_fiat_on_ramp_credentials": {"": {"required": ["organizationId"]}},
    "query/get_oauth2_credential": {"": {"required": ["organizationId", "oauth2CredentialId"]}},
    "query/get_policy_evaluations": {"": {"required": ["organizationId", "activityId"]}},
    "query/get_organization_configs": {"": {"required": ["organizationId"]}},
    "query/whoami": {"": {"required": ["organizationId"]}},
    # Queries table (all listed fields required) + Limits: only the six listed caip2 networks.
    "query/get_wallet_address_balances": {
        "": {"required": ["organizationId", "address", "caip2"]},
        "caip2": {"enum": BALANCE_NETWORKS},
    },
}


class TypeRow(NamedTuple):
    """One row of the clients' table: an activity type the SDKs send on a path."""

    activity_type: str
    intent_key: str
    result_key: str | None


# ---------------------------------------------------------------------------------------------
# Inputs


def read_appendix(digest: Path) -> dict[str, list[TypeRow]]:
    """Path -> rows of the table "activity type -> intent key / result key as used by the SDKs" (the
    whole file, or what follows its "## Appendix" heading when it has one)."""
    text = digest.read_text(encoding="utf-8")
    table = text.split("## Appendix", 1)[-1]
    row = re.compile(r"^\| `(ACTIVITY_TYPE_\w+)` \| `(/public/v1/submit/\w+)` \| `(\w+)` \| `([^`]+)` \|", re.M)
    rows: dict[str, list[TypeRow]] = {}
    for activity_type, path, intent_key, result_key in row.findall(table):
        result = None if result_key in ("—", "-") else result_key
        rows.setdefault(path, []).append(TypeRow(activity_type, intent_key, result))
    if not rows:
        raise SystemExit(f"no Appendix rows found in {digest}")
    return rows


def request_definition(operation: Json) -> str:
    """Name of the definition behind the body parameter of a swagger operation."""
    bodies = [p for p in operation.get("parameters", []) if p.get("in") == "body"]
    if len(bodies) != 1:
        raise SystemExit(f"{operation.get('operationId')}: expected one body parameter")
    return ref_name(bodies[0]["schema"]["$ref"])


def op_name(path: str) -> str:
    """'/public/v1/submit/create_wallet' -> 'create_wallet'."""
    return path.rsplit("/", 1)[-1]


def ref_name(ref: str) -> str:
    """'#/definitions/v1Foo' -> 'v1Foo'."""
    return ref.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------------------------
# Swagger node -> JSON Schema (Draft 7), refs inlined


class Inliner:
    """Turns swagger schema nodes into self-contained Draft-7 schemas."""

    def __init__(self, definitions: Json) -> None:
        self.definitions = definitions
        self.notes: list[str] = []
        self.issued_ids = issued_ids(definitions)

    def definition(self, name: str) -> Json:
        """The schema of a named definition, fully inlined."""
        return self.convert({"$ref": f"#/definitions/{name}"}, ())

    def convert(self, node: Json, stack: tuple[str, ...]) -> Json:
        if "$ref" in node:
            return self.resolve(node, stack)
        if node.get("format") in INT64_RANGES:
            out: Json = bounded_integer(node["format"])
        elif node.get("type") == "array":
            out = {"type": "array", "items": self.convert(node.get("items", {}), stack)}
        elif node.get("type") == "object" or "properties" in node:
            out = self.convert_object(node, stack)
        elif "type" in node:
            out = {"type": node["type"]}
        else:
            out = {}
        if "enum" in node:
            out["enum"] = list(node["enum"])
        if node.get("x-nullable"):
            allow_null(out)
        if node.get("description"):
            out["description"] = node["description"]
            described_bounds(out, node["description"])
        return out

    def resolve(self, node: Json, stack: tuple[str, ...]) -> Json:
        """Inline a $ref; sibling keys of the ref (description) win over the definition's."""
        name = ref_name(node["$ref"])
        if name in stack or len(stack) >= MAX_REF_DEPTH:
            self.notes.append(f"recursive or too deep $ref {' > '.join(stack + (name,))}: left open")
            out: Json = {"type": "object"}
        else:
            out = self.convert(self.definitions[name], stack + (name,))
        if node.get("description"):
            out["description"] = node["description"]
        return out

    def convert_object(self, node: Json, stack: tuple[str, ...]) -> Json:
        """Objects with declared properties are closed; objects without stay open (maps keep their value schema)."""
        out: Json = {"type": "object"}
        properties = node.get("properties") or {}
        if properties:
            out["properties"] = {k: self.convert(v, stack) for k, v in properties.items()}
            out["additionalProperties"] = False
            for name in filter(SECONDS_FIELD.fullmatch, properties):
                bound_seconds(out["properties"][name])
            for name in properties:
                if issued_id_name(name) in self.issued_ids:
                    mark_issued_id(out["properties"][name])
        elif isinstance(node.get("additionalProperties"), dict) and node["additionalProperties"]:
            out["additionalProperties"] = self.convert(node["additionalProperties"], stack)
        if node.get("required"):
            out["required"] = list(node["required"])
        return out


# Bounds the swagger states in prose (it has no maximum/minimum keywords): one rule per phrasing.
# String-encoded numbers get the custom x-minimum / x-maximum / x-exclusiveMinimum (JSON Schema's
# own apply to JSON numbers only; simulator/operations/validation.py enforces these).
NUMBER = r"(\d[\d,]*)"
BOUND_PHRASES = [
    (re.compile(rf"[Mm]aximum (?:value )?is {NUMBER}"), ("maximum",)),
    (re.compile(rf"[Bb]etween {NUMBER} and {NUMBER}"), ("minimum", "maximum")),
    (re.compile(rf"(?:can't|cannot) exceed [^.(]*\({NUMBER}"), ("maximum",)),
    (re.compile(rf"greater than '?{NUMBER}'?"), ("exclusiveMinimum",)),
]
ARRAY_KEYWORDS = {"minimum": "minItems", "maximum": "maxItems"}


def described_bounds(schema: Json, description: str) -> None:
    """Turn the bounds a field's description states into keywords ("Maximum value is 86400 seconds",
    "between 1 and 100", "can't exceed 30 days (43200 minutes)", "greater than '20'")."""
    kind = schema.get("type")
    found: Json = {}
    for phrase, names in BOUND_PHRASES:
        match = phrase.search(description)
        if match:
            found.update({n: int(v.replace(",", "")) for n, v in zip(names, match.groups(), strict=True)})
    for name, value in found.items():
        if kind == "array" and name in ARRAY_KEYWORDS:
            schema[ARRAY_KEYWORDS[name]] = value
        elif kind == "integer":
            schema[name] = value
        elif kind == "string" and "enum" not in schema:
            schema[f"x-{name}"] = value


def issued_ids(definitions: Json) -> set[str]:
    """Names of the UUIDs the service issues: the ``...Id`` / ``...Ids`` fields of its activity results
    that the swagger somewhere describes as a unique identifier or UUID (not a provider's quote or
    request handle), and ``<record>Id`` for each record shown with its own ``id`` (v1Activity -> activityId)."""
    described = {
        issued_id_name(name)
        for node in definitions.values()
        for name, field in (node.get("properties") or {}).items()
        if re.search(r"(?i)unique identifier|\buuid\b", field.get("description", ""))
    }
    in_results = described & {
        issued_id_name(name)
        for definition, node in definitions.items()
        if definition.endswith("Result")
        for name in node.get("properties") or {}
        if re.fullmatch(r"[a-z]\w*Ids?", name)
    }
    records = {
        definition[2].lower() + definition[3:] + "Id"
        for definition, node in definitions.items()
        if re.fullmatch(r"v1[A-Z]\w*", definition)
        and (node.get("properties") or {}).get("id", {}).get("type") == "string"
    }
    return in_results | records


def issued_id_name(name: str) -> str:
    """'walletIds' -> 'walletId'."""
    return name[:-1] if name.endswith("Ids") else name


def mark_issued_id(schema: Json) -> None:
    """x-issued-id: the field names a record the service issued (a UUID), so that a value that is not
    one is "malformed" rather than "not found" (simulator/operations/validation.py, the errors page)."""
    target = schema.get("items") if schema.get("type") == "array" else schema
    if isinstance(target, dict) and target.get("type") == "string":
        target["x-issued-id"] = True


def bound_seconds(schema: Json) -> None:
    """A string count of seconds (expirationSeconds): digits, at most a uint64's 20 ("" is unset, as in protojson).

    The swagger leaves these open strings; the service parses them as unsigned integers, and an
    unbounded one must never reach int().
    """
    if schema.get("type") == "string" and "enum" not in schema:
        schema["pattern"] = "^[0-9]{0,20}$"


def bounded_integer(swagger_format: str) -> Json:
    """An int64/uint64: a decimal string of at most its digits, or a JSON integer in its range.

    Bounded so that no value reaches Python's integer-conversion limit (4,300 digits) or
    overflows what the service stores.
    """
    low, high = INT64_RANGES[swagger_format]
    sign = "-?" if low < 0 else ""
    return {
        "type": ["string", "integer"],
        "pattern": f"^{sign}[0-9]{{1,{len(str(high))}}}$",
        "minimum": low,
        "maximum": high,
    }


def allow_null(schema: Json) -> None:
    """Let a swagger x-nullable field also be JSON null."""
    if isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    if "enum" in schema:
        schema["enum"] = schema["enum"] + [None]


# ---------------------------------------------------------------------------------------------
# Activity types of a submit path


def intent_key_for_definition(definitions: Json, intent_definition: str) -> str:
    """The v1Intent property whose $ref is the given intent definition."""
    intents = definitions["v1Intent"]["properties"]
    keys = [str(k) for k, v in intents.items() if ref_name(v.get("$ref", "")) == intent_definition]
    if len(keys) != 1:
        raise SystemExit(f"no single v1Intent property refers to {intent_definition}: {keys}")
    return keys[0]


def result_key_by_name(definitions: Json, intent_key: str) -> str | None:
    """For types the Appendix does not list: the v1Result property named like the intent, or None."""
    results = definitions["v1Result"]["properties"]
    candidate = intent_key.replace("Intent", "Result")
    unversioned = re.sub(r"V\d+$", "", candidate)
    for name in (candidate, unversioned):
        if name in results:
            return name
    return None


def swagger_types(request: Json) -> list[str]:
    """The `type` values of a submit request definition: its enum, else ACTIVITY_TYPE_* in its description."""
    field = request["properties"]["type"]
    if field.get("enum"):
        return list(field["enum"])
    return re.findall(r"ACTIVITY_TYPE_[A-Z0-9_]+", field.get("description", ""))


def activity_types(swagger: Json, path: str, appendix: dict[str, list[TypeRow]]) -> dict[str, TypeRow]:
    """Every type accepted on a submit path with its intent and result keys (the clients' table first,
    then the swagger's request type, then the older versions the swagger still defines)."""
    definitions = swagger["definitions"]
    request = definitions[request_definition(swagger["paths"][path]["post"])]
    rows = {row.activity_type: row for row in appendix.get(path, [])}
    params_definition = ref_name(request["properties"]["parameters"]["$ref"])
    for activity_type in swagger_types(request):
        if activity_type not in rows:
            intent_key = intent_key_for_definition(definitions, params_definition)
            rows[activity_type] = TypeRow(activity_type, intent_key, result_key_by_name(definitions, intent_key))
    if not rows:
        raise SystemExit(f"{path}: could not determine any activity type")
    kinds = {kind_of(t) for t in rows}
    for activity_type in definitions["v1ActivityType"]["enum"]:
        if activity_type not in rows and kind_of(activity_type) in kinds:
            intent_key = versioned_intent_key(activity_type)
            if intent_key in definitions["v1Intent"]["properties"]:
                rows[activity_type] = TypeRow(activity_type, intent_key, result_key_by_name(definitions, intent_key))
    return dict(sorted(rows.items()))


def versioned_intent_key(activity_type: str) -> str:
    """'ACTIVITY_TYPE_INIT_OTP_AUTH_V2' -> 'initOtpAuthIntentV2': lowerCamel(type minus the prefix and
    the version) + 'Intent' + the version (the rule every row of the clients' table follows)."""
    version = re.search(r"_(V\d+)$", activity_type)
    first, *rest = kind_of(activity_type).lower().split("_")
    return first + "".join(word.capitalize() for word in rest) + "Intent" + (version.group(1) if version else "")


def intent_definition(definitions: Json, intent_key: str) -> str:
    """The definition behind v1Intent.properties[intent_key]."""
    entry = definitions["v1Intent"]["properties"].get(intent_key)
    if entry is None:
        raise SystemExit(f"intent key {intent_key} is not a v1Intent property")
    return ref_name(entry["$ref"])


# ---------------------------------------------------------------------------------------------
# Schema files


def submit_schema(swagger: Json, path: str, types: dict[str, TypeRow], inliner: Inliner) -> Json:
    """The envelope schema of one submit path, with one if/then branch per accepted type."""
    operation = swagger["paths"][path]["post"]
    op = op_name(path)
    request = swagger["definitions"][request_definition(operation)]
    branches = [submit_branch(swagger, op, row, inliner) for row in types.values()]
    return {
        **file_header("submit", op, operation),
        "type": "object",
        "required": ["type", "timestampMs", "organizationId", "parameters"],
        "properties": envelope_properties(request, list(types)),
        "additionalProperties": False,
        "allOf": branches,
        "x-activity-types": {t: {"intentKey": r.intent_key, "resultKey": r.result_key} for t, r in types.items()},
    }


def envelope_properties(request: Json, types: list[str]) -> Json:
    """The five envelope fields; `parameters` is narrowed per type by the allOf branches."""
    described = request["properties"]
    properties: Json = {
        "type": {"enum": types},
        "timestampMs": {"type": "string", "pattern": "^[0-9]+$"},
        "organizationId": {"type": "string", "minLength": 1, "x-issued-id": True},
        "parameters": {"type": "object"},
        "generateAppProofs": {"type": "boolean"},
    }
    for name, schema in properties.items():
        if described.get(name, {}).get("description"):
            schema["description"] = described[name]["description"]
    return properties


def submit_branch(swagger: Json, op: str, row: TypeRow, inliner: Inliner) -> Json:
    """`if type == T then parameters must match T's intent definition` (with interface overrides)."""
    parameters = inliner.definition(intent_definition(swagger["definitions"], row.intent_key))
    apply_overrides(parameters, f"submit/{op}")
    return {
        "if": {"properties": {"type": {"const": row.activity_type}}, "required": ["type"]},
        "then": {"properties": {"parameters": parameters}},
    }


def query_schema(swagger: Json, path: str, inliner: Inliner) -> Json:
    """The body schema of one query path; organizationId is always required."""
    operation = swagger["paths"][path]["post"]
    op = op_name(path)
    body = inliner.definition(request_definition(operation))
    body.pop("description", None)
    required = body.setdefault("required", [])
    if "organizationId" not in required:
        required.insert(0, "organizationId")
    apply_overrides(body, f"query/{op}")
    return {**file_header("query", op, operation), **body}


def file_header(kind: str, op: str, operation: Json) -> Json:
    """$schema, $id, title (the swagger summary) and the swagger description when there is one."""
    header: Json = {"$schema": DRAFT7, "$id": f"{kind}/{op}.json", "title": operation.get("summary", op)}
    if operation.get("description"):
        header["description"] = operation["description"]
    return header


# ---------------------------------------------------------------------------------------------
# Overrides


APPLIED: dict[str, str] = {}  # "file location" -> "changed" / "already in swagger"


def apply_overrides(root: Json, key: str) -> None:
    """Replace keywords at the locations OVERRIDES lists for this file."""
    for location, keywords in OVERRIDES.get(key, {}).items():
        target = locate(root, location, key)
        before = copy.deepcopy(target)
        target.update(copy.deepcopy(keywords))
        check_required(target, f"{key} {location!r}")
        label = f"{key} {location or '<root>'} {sorted(keywords)}"
        if APPLIED.get(label) != "changed":
            APPLIED[label] = "changed" if target != before else "already in swagger"


def locate(root: Json, location: str, key: str) -> Json:
    """Follow a dotted location ('a[].b') through properties/items."""
    node = root
    for part in filter(None, location.split(".")):
        name = part.removesuffix("[]")
        node = node.get("properties", {}).get(name)
        if node is None:
            raise SystemExit(f"override {key}: no property {name!r} on the way to {location!r}")
        if part.endswith("[]"):
            node = node["items"]
    return node


def check_required(schema: Json, where: str) -> None:
    """Every required name must be a declared property."""
    missing = [n for n in schema.get("required", []) if n not in schema.get("properties", {})]
    if missing:
        raise SystemExit(f"override {where}: required {missing} are not properties")


# ---------------------------------------------------------------------------------------------
# Main


def write_json(path: Path, data: Json) -> None:
    """Deterministic JSON: sorted keys, indent 2, newline at the end."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def post_paths(swagger: Json, prefix: str) -> list[str]:
    """Paths under a prefix that have a POST operation, sorted."""
    return sorted(p for p, ops in swagger["paths"].items() if p.startswith(prefix) and "post" in ops)


def generate(swagger: Json, appendix: dict[str, list[TypeRow]], out: Path) -> tuple[int, int, list[str]]:
    """Write every submit and query schema; return the counts and notes on workarounds."""
    inliner = Inliner(swagger["definitions"])
    submits, queries = post_paths(swagger, SUBMIT_PREFIX), post_paths(swagger, QUERY_PREFIX)
    notes = [f"Appendix path not in the swagger: {p}" for p in sorted(set(appendix) - set(submits))]
    enum = set(swagger["definitions"]["v1ActivityType"]["enum"])
    types_by_path = {path: activity_types(swagger, path, appendix) for path in submits}
    for path, types in types_by_path.items():
        unknown = [t for t in types if t not in enum]
        notes += [f"{path}: {t} is not a v1ActivityType value (accepted: an SDK sends it)" for t in unknown]
        write_json(out / "submit" / f"{op_name(path)}.json", submit_schema(swagger, path, types, inliner))
    for path in queries:
        write_json(out / "query" / f"{op_name(path)}.json", query_schema(swagger, path, inliner))
    write_responses(swagger, types_by_path, queries, out / "responses")
    written = {f"submit/{op_name(p)}" for p in submits} | {f"query/{op_name(p)}" for p in queries}
    notes += [f"override for a path not in the swagger: {key}" for key in sorted(set(OVERRIDES) - written)]
    return len(submits), len(queries), notes + sorted(set(inliner.notes))


def write_responses(swagger: Json, types_by_path: dict[str, dict[str, TypeRow]], queries: list[str], out: Path) -> None:
    """schemas/responses/: every path's 200 response; votes and queries may answer any activity type."""
    keys = {
        p: {t: responses.Keys(r.intent_key, r.result_key) for t, r in rows.items()} for p, rows in types_by_path.items()
    }
    every_type = {t: k for rows in keys.values() for t, k in rows.items()}
    for path, own in keys.items():
        answers_another = all(k.result_key is None for k in own.values())  # approve / reject: the voted activity
        schema = responses.response_schema(swagger, "submit", path, every_type if answers_another else own, every_type)
        write_json(out / "submit" / f"{op_name(path)}.json", schema)
    for path in queries:
        write_json(
            out / "query" / f"{op_name(path)}.json",
            responses.response_schema(swagger, "query", path, every_type, every_type),
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--swagger",
        type=Path,
        default=SOURCE / "public_api.swagger.json",
        help="public_api.swagger.json (swagger 2.0; default: schemas/source/)",
    )
    parser.add_argument(
        "--digest",
        type=Path,
        default=SOURCE / "client-activity-types.md",
        help="the table of the types the clients send (default: schemas/source/client-activity-types.md)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "schemas", help="output folder (default: schemas/)")
    args = parser.parse_args(argv)
    swagger = json.loads(args.swagger.read_text(encoding="utf-8"))
    submits, queries, notes = generate(swagger, read_appendix(args.digest), args.out)
    print(f"wrote {submits} submit and {queries} query schemas to {args.out}", file=sys.stderr)
    for label, state in sorted(APPLIED.items()):
        print(f"override {label}: {state}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
