"""The 200-response schemas in schemas/responses/, derived from the swagger (used by tools/derive_schemas.py).

One Draft-7 file per POST path: responses/submit/<op>.json and responses/query/<op>.json. Unlike
the request schemas, definitions are kept as local ``$ref``s (``#/definitions/<name>``, only the
ones the response reaches), because an activity's intent and result reach most of the swagger.

- Objects keep their swagger ``required`` lists and stay open: a typed client ignores a field it
  does not know, but chokes on a required one missing or a value of the wrong type. An optional
  object-valued field may also be null: the service writes an unset message so (``"failure": null``).
- int64/uint64 values are decimal strings (protojson writes them so), int32 values numbers.
- ``v1Activity`` is narrowed per file: its ``type`` is one of the activity types the path
  accepts (every type the clients send, for queries and votes, which answer any activity), its
  ``intent`` holds the type's intent key and, once COMPLETED, its ``result`` the type's result key.

This is a build tool: the simulator never imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

Json = dict[str, Any]

DRAFT7 = "http://json-schema.org/draft-07/schema#"
INT64_PATTERNS = {"int64": "^-?[0-9]+$", "uint64": "^[0-9]+$"}
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


class Keys(NamedTuple):
    """The envelope keys of one activity type: where its intent and its result sit."""

    intent_key: str
    result_key: str | None


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class Definitions:
    """The swagger definitions one response reaches, converted to Draft 7, with local refs kept."""

    def __init__(self, swagger_definitions: Json) -> None:
        self.source = swagger_definitions
        self.done: dict[str, Json] = {}
        self.pending: list[str] = []
        self.custom: dict[str, Callable[[], Json]] = {}  # built only when the response reaches them

    def ref(self, name: str) -> Json:
        if name not in self.done and name not in self.pending:
            self.pending.append(name)
        return {"$ref": f"#/definitions/{name}"}

    def convert(self, node: Json) -> Json:
        if "$ref" in node:
            return self.ref(ref_name(node["$ref"]))
        if node.get("format") in INT64_PATTERNS:
            out: Json = {"type": "string", "pattern": INT64_PATTERNS[node["format"]]}
        elif node.get("type") == "array":
            out = {"type": "array", "items": self.convert(node.get("items", {}))}
        elif node.get("type") == "object" or "properties" in node:
            out = self.convert_object(node)
        elif "type" in node:
            out = {"type": node["type"]}
        else:
            out = {}
        if "enum" in node:
            out["enum"] = list(node["enum"])
        if node.get("x-nullable"):
            out["type"] = [out["type"], "null"] if isinstance(out.get("type"), str) else out.get("type")
            if "enum" in out:
                out["enum"] = out["enum"] + [None]
        return out

    def convert_object(self, node: Json) -> Json:
        out: Json = {"type": "object"}
        if node.get("properties"):
            required = node.get("required", [])
            out["properties"] = {
                k: self.convert(v) if k in required or not self.is_message(v) else or_null(self.convert(v))
                for k, v in node["properties"].items()
            }
        elif isinstance(node.get("additionalProperties"), dict) and node["additionalProperties"]:
            out["additionalProperties"] = self.convert(node["additionalProperties"])
        if node.get("required"):
            out["required"] = list(node["required"])
        return out

    def is_message(self, node: Json) -> bool:
        """An object-valued field: protojson writes it as null when unset."""
        target = self.source[ref_name(node["$ref"])] if "$ref" in node else node
        return target.get("type") == "object" or "properties" in target

    def finish(self) -> Json:
        """Every definition reached so far (and those they reach), sorted by name."""
        while self.pending:
            name = self.pending.pop()
            self.done[name] = {}  # a placeholder, so a definition that reaches itself is not queued again
            self.done[name] = self.custom[name]() if name in self.custom else self.convert(self.source[name])
        return dict(sorted(self.done.items()))


def or_null(schema: Json) -> Json:
    return {"anyOf": [schema, {"type": "null"}]}


def narrowed_activity(defs: Definitions, types: dict[str, Keys]) -> Json:
    """v1Activity for these activity types: the type's intent key always, its result key once completed."""
    intents, results = defs.source["v1Intent"]["properties"], defs.source["v1Result"]["properties"]
    source = defs.source["v1Activity"]
    kept = {k: v for k, v in source["properties"].items() if k not in ("type", "intent", "result")}
    activity = defs.convert({**source, "properties": kept})  # intent and result would reach every definition
    intent_keys = sorted({k.intent_key for k in types.values()})
    result_keys = sorted({k.result_key for k in types.values() if k.result_key and k.result_key in results})
    activity["properties"].update(
        type={"type": "string", "enum": sorted(types)},
        intent={"type": "object", "properties": {k: defs.convert(intents[k]) for k in intent_keys}},
        result={"type": "object", "properties": {k: defs.convert(results[k]) for k in result_keys}},
    )
    activity["allOf"] = [branch for name, keys in sorted(types.items()) for branch in type_branches(name, keys)]
    return activity


def type_branches(activity_type: str, keys: Keys) -> list[Json]:
    """`if type == T then intent has T's intent key` and, for a completed T, `result has T's result key`."""
    is_type: Json = {"properties": {"type": {"const": activity_type}}, "required": ["type"]}
    branches = [{"if": is_type, "then": {"properties": {"intent": {"required": [keys.intent_key]}}}}]
    if keys.result_key:
        completed = {
            "properties": {"type": {"const": activity_type}, "status": {"const": COMPLETED}},
            "required": ["type", "status"],
        }
        branches.append({"if": completed, "then": {"properties": {"result": {"required": [keys.result_key]}}}})
    return branches


def response_definition(operation: Json) -> str:
    return ref_name(operation["responses"]["200"]["schema"]["$ref"])


def response_schema(swagger: Json, kind: str, path: str, types: dict[str, Keys], every_type: dict[str, Keys]) -> Json:
    """The 200 response of one path, with ``v1Activity`` narrowed to ``types`` (of ``every_type`` the clients send)."""
    operation = swagger["paths"][path]["post"]
    op = path.rsplit("/", 1)[-1]
    defs = Definitions(swagger["definitions"])
    defs.custom["v1Activity"] = lambda: narrowed_activity(defs, types)
    defs.custom["v1ActivityType"] = lambda: {"type": "string", "enum": sorted(every_type)}
    root = defs.convert(swagger["definitions"][response_definition(operation)])
    return {
        "$schema": DRAFT7,
        "$id": f"responses/{kind}/{op}.json",
        "title": f"{operation.get('summary', op)}: the 200 response",
        **root,
        "definitions": defs.finish(),
    }
