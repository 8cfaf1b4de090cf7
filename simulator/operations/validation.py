"""Request bodies checked against the JSON Schemas in schemas/, every problem reported at once."""

from __future__ import annotations

import difflib
import functools
import json
import operator
import re
import threading
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from simulator.errors import ApiError, InvalidArgument, NotFound, ValidationFailed, documented
from simulator.paths import data_dir
from simulator.wire import drop_nulls

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

_ACTUAL_LIMIT = 200
# Bounds the swagger states in prose, on string-encoded numbers (tools/derive_schemas.py writes them):
# keyword -> (is the value out of bounds, how to say so)
_STRING_BOUNDS: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "x-maximum": (operator.gt, "greater than the maximum of"),
    "x-minimum": (operator.lt, "less than the minimum of"),
    "x-exclusiveMinimum": (operator.le, "not greater than"),
}
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class Schemas:
    """Every endpoint schema, loaded once; one cached validator per schema."""

    def __init__(self, root: Path | None = None, *, allow_unknown_fields: bool = False) -> None:
        self.root = root or data_dir("schemas")
        self.allow_unknown_fields = allow_unknown_fields
        self.operations = {
            kind: sorted(p.stem for p in (self.root / kind).glob("*.json")) for kind in ("submit", "query", "proxy")
        }
        self._schemas: dict[str, dict[str, Any]] = {}
        self._fast: dict[str, Any] = {}
        self._bounded: dict[str, bool] = {}  # schema key -> has string-number bounds to check
        self._int64: dict[str, bool] = {}  # schema key -> has int64 fields (a number sent is kept as a string)
        self._lock = threading.Lock()

    def schema(self, kind: str, op: str) -> dict[str, Any]:
        key = f"{kind}/{op}"
        found = self._schemas.get(key)
        if found is not None:
            return found
        if op not in self.operations.get(kind, ()):
            raise self.unknown_operation(kind, op)
        text = (self.root / kind / f"{op}.json").read_text()
        schema = json.loads(text)
        with self._lock:
            self._bounded.setdefault(key, any(f'"{k}"' in text for k in _STRING_BOUNDS))
            self._int64.setdefault(key, has_int64_fields(schema))
            return self._schemas.setdefault(key, schema)

    def activity_types(self, op: str) -> dict[str, Any]:
        """The activity types ``op`` accepts, each with its ``intentKey`` and ``resultKey``."""
        found: dict[str, Any] = self.schema("submit", op)["x-activity-types"]
        return found

    def unknown_operation(self, kind: str, op: str) -> NotFound:
        known = self.operations.get(kind, [])
        everything = [f"{k}/{o}" for k, ops in self.operations.items() for o in ops]
        close = difflib.get_close_matches(op, known, n=3) or [
            m.split("/", 1)[1] for m in difflib.get_close_matches(f"{kind}/{op}", everything, n=3)
        ]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return NotFound(
            f"unknown operation {kind}/{op}{hint}",
            details=[{"@type": "simulator/unknown-operation", "closest": close}],
        )

    def validate(self, kind: str, op: str, body: Any) -> dict[str, Any]:
        """Return the body with nulls dropped (protojson reads null as unset), or raise.

        A compiled fastjsonschema check (~20x faster) passes good bodies; jsonschema, which
        reports every problem with its path, has the last word on the ones it refuses.
        """
        schema = self.schema(kind, op)
        key = f"{kind}/{op}"
        cleaned = drop_nulls(body)
        try:
            self._compiled(key, schema)(cleaned)
            if not (self._bounded.get(key) and out_of_bounds(schema, cleaned)):
                # most schemas have no int64 field: their bodies are not walked a second time
                found: dict[str, Any] = int64_as_strings(schema, cleaned) if self._int64.get(key, True) else cleaned
                return found
        except fastjsonschema.JsonSchemaException:
            pass
        violations = [v for e in validator_class()(schema).iter_errors(cleaned) for v in self._violations(e)]
        if violations:
            violations.sort(key=lambda v: v["field"])
            raise ValidationFailed(f"{kind}/{op}.json", violations, documented_head(op, violations))
        return int64_as_strings(schema, cleaned)  # type: ignore[no-any-return]

    def not_found_or_malformed(self, kind: str, op: str, seen: list[Any], error: NotFound) -> ApiError:
        """What a failed lookup answers: 400 "malformed ... ID provided" when it failed on an issued id
        that is not a UUID, else the NotFound itself. ``seen`` holds the parsed body, if it got that far."""
        if not seen or op not in self.operations.get(kind, ()):
            return error
        return malformed_id(self.schema(kind, op), seen[0], error) or error

    def _compiled(self, key: str, schema: dict[str, Any]) -> Any:
        check = self._fast.get(key)
        if check is None:
            check = fastjsonschema.compile(schema)
            with self._lock:
                self._fast[key] = check
        return check

    def _violations(self, error: ValidationError) -> list[dict[str, Any]]:
        if error.validator == "additionalProperties":
            if self.allow_unknown_fields:
                return []
            return unknown_field_violations(error)
        return [violation(error)]


@functools.cache
def validator_class() -> Any:
    """Draft 7 plus the swagger's prose bounds on string-encoded numbers (x-minimum, x-maximum, ...)."""
    from jsonschema import Draft7Validator, validators  # only refused bodies pay for its import (~60 ms)
    from jsonschema.exceptions import ValidationError

    def check(keyword: str) -> Any:
        beyond, wording = _STRING_BOUNDS[keyword]

        def run(_validator: Any, bound: Any, instance: Any, _schema: Any) -> Any:
            number = as_number(instance)
            if number is not None and not number.is_finite():
                yield ValidationError(f"{shorten(instance)!r} is not a finite number")
            elif number is not None and beyond(number, bound):
                yield ValidationError(f"{instance!r} is {wording} {bound}")

        return run

    return validators.extend(Draft7Validator, {k: check(k) for k in _STRING_BOUNDS})  # type: ignore[no-untyped-call]


def as_number(value: Any) -> Decimal | None:
    """A string-encoded (or JSON) number, or None when it is not one (other keywords judge it).
    "NaN", "Infinity" and "sNaN" parse too: callers refuse them before comparing (a comparison
    with a NaN raises decimal.InvalidOperation)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    try:
        return Decimal(value) if value != "" else None
    except InvalidOperation:
        return None


def out_of_bounds(schema: Any, value: Any) -> bool:
    """Whether a schema-valid body breaks one of the prose bounds (walks the schema as the body goes)."""
    if not isinstance(schema, dict):
        return False
    for keyword, (beyond, _) in _STRING_BOUNDS.items():
        number = as_number(value) if keyword in schema else None
        if number is not None and (not number.is_finite() or beyond(number, schema[keyword])):
            return True
    branches = [b.get("then") for b in schema.get("allOf", ()) if applies(b.get("if"), value)]
    if any(out_of_bounds(b, value) for b in branches):
        return True
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return any(out_of_bounds(props.get(k), v) for k, v in value.items())
    if isinstance(value, list):
        return any(out_of_bounds(schema.get("items"), v) for v in value)
    return False


def issued_ids(schema: Any, value: Any, field: str = "") -> list[tuple[str, str]]:
    """(field name, value) of every id in the body that names a record the service issued
    (``x-issued-id``, written by tools/derive_schemas.py from the swagger's activity results)."""
    if not isinstance(schema, dict):
        return []
    found: list[tuple[str, str]] = []
    if schema.get("x-issued-id") and isinstance(value, str):
        found.append((field, value))
    for branch in schema.get("allOf", ()):
        if applies(branch.get("if"), value):
            found += issued_ids(branch.get("then"), value, field)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k, v in value.items():
            found += issued_ids(props.get(k), v, k)
    elif isinstance(value, list):
        for v in value:
            found += issued_ids(schema.get("items"), v, field)
    return found


def malformed_id(schema: Any, body: Any, error: NotFound) -> InvalidArgument | None:
    """A lookup failed on an id that is not a UUID: the service calls that id malformed (400/3,
    "malformed organization ID provided", errors page), not missing. Ids a scenario wrote in
    another form still work: only a failed lookup is judged, and only on the value it names."""
    for field, value in issued_ids(schema, body):
        if not _UUID.match(value) and value in error.message:
            words = re.sub(r"([A-Z])", r" \1", field.removesuffix("Ids").removesuffix("Id")).lower().strip()
            message = f"malformed {words} ID provided: {value[:80]!r} is not a UUID"
            return InvalidArgument(
                documented("invalid wallet account UUID", message) if words == "wallet account" else message,
                error_code="INVALID_ORGANIZATION_ID" if field == "organizationId" else "REQUEST_INVALID",
            )
    return None


def has_int64_fields(schema: Any) -> bool:
    """Whether any field of ``schema`` is an int64 (``"type": ["string", "integer"]``), at any depth."""
    if isinstance(schema, dict):
        kinds = schema.get("type")
        if isinstance(kinds, list) and "string" in kinds and ("integer" in kinds or "number" in kinds):
            return True
        return any(has_int64_fields(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_int64_fields(v) for v in schema)
    return False


def int64_as_strings(schema: Any, value: Any) -> Any:
    """int64/uint64 fields sent as JSON numbers, written as the decimal strings proto JSON uses,
    so the activity's intent echoes them as the service does (the schemas mark these fields
    ``"type": ["string", "integer"]``)."""
    if not isinstance(schema, dict):
        return value
    for branch in schema.get("allOf", ()):
        if applies(branch.get("if"), value):
            value = int64_as_strings(branch.get("then"), value)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: int64_as_strings(props.get(k), v) for k, v in value.items()}
    if isinstance(value, list):
        return [int64_as_strings(schema.get("items"), v) for v in value]
    kinds = schema.get("type")
    if isinstance(value, int) and not isinstance(value, bool) and isinstance(kinds, list) and "string" in kinds:
        return str(value)
    return value


def applies(condition: Any, value: Any) -> bool:
    """The submit schemas' ``if``: the body's ``type`` is one constant."""
    if not isinstance(condition, dict) or not isinstance(value, dict):
        return False
    wanted = {k: v.get("const") for k, v in condition.get("properties", {}).items() if isinstance(v, dict)}
    return all(value.get(k) == const for k, const in wanted.items())


# The schema problems the error catalogue (docs.turnkey.com/api-reference/overview/errors) names: the
# validator ("required": a missing field, "enum": a value not among the allowed, "pattern": a string of
# the wrong form), the operation ("" for
# any), the end of the field's path (a trailing "." matches anything below it) and the catalogue's
# message. The first row that fits the first violation it can name wins.
DOCUMENTED_VIOLATIONS = (
    ("required", "", ".attestation", "missing parameter: user authenticator attestation"),
    ("required", "", ".attestation.attestationObject", "missing parameter: user authenticator attestation auth data"),
    ("required", "create_sub_organization", ".wallet.", "missing wallet params"),
    ("required", "create_wallet", "$.parameters.walletName", "missing wallet params"),
    ("required", "create_wallet", "$.parameters.accounts", "missing wallet params"),
    ("required", "", ".curve", "curve required"),
    ("required", "oauth2_authenticate", ".authCode", "auth_code must be set"),
    ("required", "oauth2_authenticate", ".codeVerifier", "code_verifier must be set"),
    ("required", "oauth2_authenticate", ".redirectUri", "redirect_uri must be set"),
    ("required", "oauth2_authenticate", ".oauth2CredentialId", "oauth2_credential_id must be set"),
    ("required", "create_oauth2_credential", ".clientId", "client_id must be set"),
    ("required", "update_oauth2_credential", ".clientId", "client_id must be set"),
    ("enum", "", ".pathFormat", "invalid path format"),
    ("enum", "", ".addressFormat", "invalid address format"),
    ("enum", "", ".curve", "invalid curve"),
    ("enum", "", ".encoding", "invalid payload encoding"),
    ("enum", "", ".hashFunction", "invalid hash function"),
    ("pattern", "create_api_keys", ".expirationSeconds", "invalid api key expiration"),
    ("pattern", "create_users", ".expirationSeconds", "invalid api key expiration"),
    ("pattern", "create_api_only_users", ".expirationSeconds", "invalid api key expiration"),
)


def documented_head(op: str, violations: list[dict[str, Any]]) -> str | None:
    """The catalogue's message for the first violation it names, or None."""
    for v in violations:
        field = str(v["field"])
        for validator, operation, end, head in DOCUMENTED_VIOLATIONS:
            if v["validator"] != validator or operation not in ("", op):
                continue
            if field.endswith(end) or (end.endswith(".") and end in field):
                return head
    return None


def violation(error: ValidationError) -> dict[str, Any]:
    """One problem: where, what was expected, what came."""
    field = error.json_path
    expected: Any = error.validator_value
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        field = f"{error.json_path}.{missing}"
        expected, actual = "a value (required field)", "nothing"
    elif error.validator == "type":
        actual = type_name(error.instance)
    else:
        actual = shorten(error.instance)
    return {
        "field": field,
        "description": describe(error),
        "validator": error.validator,
        "expected": expected,
        "actual": actual,
    }


def unknown_field_violations(error: ValidationError) -> list[dict[str, Any]]:
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    allowed = sorted(schema.get("properties", {}))
    instance: Any = error.instance
    extra = [k for k in instance if k not in schema.get("properties", {})]
    return [
        {
            "field": f"{error.json_path}.{name}",
            "description": f"unknown field '{name}'; allowed fields here: {', '.join(allowed)}",
            "validator": "additionalProperties",
            "expected": allowed,
            "actual": name,
        }
        for name in extra
    ]


def describe(error: ValidationError) -> str:
    if error.validator == "enum":
        return f"{shorten(error.instance)!r} is not one of {error.validator_value}"
    if error.validator == "type":
        return f"expected {error.validator_value}, got {type_name(error.instance)}"
    return str(error.message)


def type_name(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def shorten(value: Any) -> Any:
    text = json.dumps(value)
    return value if len(text) <= _ACTUAL_LIMIT else text[:_ACTUAL_LIMIT] + "..."
