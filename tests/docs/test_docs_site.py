"""The documentation site (mkdocs.yml, docs/): the generated reference pages are current, the scenario
reference names every key of the schema, the auth proxy reference every field of its schemas, the
README links pages that exist, and the site builds with strict link checking when mkdocs is installed
(the ``docs`` extra; CI builds it too)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from conftest import ROOT

DOCS = ROOT / "docs"


def tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name",
    [
        "cli_reference",
        "scenario_reference",
        "proxy_reference",
        "readme_operations",
        "error_codes",
        "error_catalogue",
        "control_surface",
        "webhook_events",
    ],
)
def test_each_generated_page_is_current(name: str) -> None:
    module = tool(name)
    assert module.main(["--check"]) == 0, f"{module.PAGE} is stale: run python tools/{name}.py"


def test_the_cli_reference_names_every_command_and_switch() -> None:
    from simulator.cli import parser

    page = (DOCS / "reference" / "cli.md").read_text()
    top = parser()
    [commands] = [a for a in top._actions if a.__class__.__name__ == "_SubParsersAction"]
    for name, sub in commands.choices.items():
        assert f"### `wallet-simulator {name}`" in page
        for action in sub._actions:
            for switch in action.option_strings:
                if switch not in ("-h", "--help"):
                    assert f"`{switch}" in page, (name, switch)


def schema_keys() -> set[str]:
    """Every property name of the scenario schema (and every name a list's items require), with the
    path of properties it sits under, definitions followed."""
    schema = json.loads((ROOT / "schemas" / "scenario.json").read_text())
    found: set[str] = set()

    def walk(node: object, path: str, seen: tuple[str, ...]) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, path, seen)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[1]
            if name not in seen:
                walk(schema["definitions"][name], path, (*seen, name))
            return
        for key, child in (node.get("properties") or {}).items():
            found.add(f"{path}.{key}".lstrip("."))
            walk(child, f"{path}.{key}", seen)
        for key in node.get("required", []):
            if key not in (node.get("properties") or {}):
                found.add(f"{path}.{key}".lstrip("."))
        for keyword in ("items", "oneOf", "anyOf", "allOf", "additionalProperties"):
            if keyword in node:
                walk(node[keyword], path, seen)

    walk(schema, "", ())
    return found


def test_the_scenario_reference_names_every_key_of_the_schema() -> None:
    page = (DOCS / "reference" / "scenario.md").read_text()
    documented = {re.sub(r"\[\]", "", key) for key in re.findall(r"^\| `([^`]+)` \|", page, re.M)}
    keys = schema_keys()
    assert {"longtail", "broadcast", "broadcast.statuses.outcome", "longtail.assets.caip19"} <= keys
    assert keys - documented == set()
    first_table = page.split("Every file is checked", 1)[0]  # the top-level keys, with what they mean
    for top in json.loads((ROOT / "schemas" / "scenario.json").read_text())["properties"]:
        assert f"| `{top}` |" in first_table, top


def test_the_auth_proxy_reference_names_every_endpoint_and_field() -> None:
    page = (DOCS / "reference" / "auth-proxy.md").read_text()
    for path in sorted((ROOT / "schemas" / "proxy").glob("*.json")):
        assert f"### `POST /v1/{path.stem}`" in page
        section = page.split(f"### `POST /v1/{path.stem}`", 1)[1].split("\n### ", 1)[0]
        for field in json.loads(path.read_text()).get("properties", {}):
            assert f"| `{field}` |" in section, (path.stem, field)


def test_the_auth_proxy_answers_have_exactly_the_documented_keys(simulator) -> None:
    """Each endpoint's answer, over HTTP, holds only keys its response table names."""
    from simulator.control.control_client import ControlClient
    from simulator.testing import ClientKeyPair, SimulatorClient

    proxy_tool = tool("proxy_reference")
    control = ControlClient(simulator.url)
    org = simulator.simulator.default_credentials()["organizationId"]
    control.configure_auth_proxy(org, configId="docs-keys", enabledProviders=["email"])
    proxy = SimulatorClient(simulator.proxy_url, None, "")

    def call(name: str, body: dict[str, object]) -> dict[str, object]:
        answer = proxy.post(f"/v1/{name}", json.dumps(body).encode(), {"X-Auth-Proxy-Config-Id": "docs-keys"})
        assert answer.status == 200, answer.body
        assert set(answer.body) <= set(proxy_tool.ENDPOINTS[name].response), (name, answer.body)
        return answer.body  # type: ignore[no-any-return]

    email = "docs-keys@example.com"
    otp_id = call("otp_init", {"otpType": "OTP_TYPE_EMAIL", "contact": email})["otpId"]
    token = call("otp_verify", {"otpId": otp_id, "otpCode": control.outbox(email)[-1]["code"]})["verificationToken"]
    made = call("signup", {"userEmail": email, "verificationToken": token})
    assert set(made) == {"organizationId", "userId"}
    assert call("account", {"filterType": "EMAIL", "filterValue": email}) == {"organizationId": made["organizationId"]}
    assert set(call("otp_login", {"verificationToken": token, "publicKey": ClientKeyPair.generate().public_key})) == {
        "session"
    }
    assert call("wallet_kit_config", {})["enabledProviders"] == ["email"]
    assert call("wallet_kit_client_params", {}) == {}


def test_the_readme_links_pages_that_exist_and_the_architecture() -> None:
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?:docs/)[^)#]+|ARCHITECTURE\.md)[^)]*\)", readme)
    assert "ARCHITECTURE.md" in links
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_every_page_is_in_the_navigation() -> None:
    class Loader(yaml.SafeLoader):  # mkdocs' own tags (!relative) read as nothing
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)  # a SafeLoader

    def pages(nav: object) -> set[str]:
        if isinstance(nav, str):
            return {nav}
        if isinstance(nav, list):
            return set().union(*(pages(n) for n in nav))
        if isinstance(nav, dict):
            return set().union(*(pages(n) for n in nav.values()))
        return set()

    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk == pages(config["nav"])


MKDOCS = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")


@pytest.mark.skipif(MKDOCS is None, reason="mkdocs not installed (pip install '.[docs]')")
def test_the_site_builds_with_strict_link_checking(tmp_path: Path) -> None:
    assert MKDOCS is not None
    run = subprocess.run(
        [MKDOCS, "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "scenario.html").is_file()


def test_the_architecture_names_only_paths_that_exist() -> None:
    """The list "Where things are" in ARCHITECTURE.md: each bullet's first path is its base; every other path
    is found under it, at the top of the checkout, or (a bare file name) somewhere under the base."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    layout = text.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    missing = []
    for bullet in re.split(r"\n- ", layout)[1:]:
        names = [
            n
            for n in re.findall(r"`([^`\s]+)`", bullet)
            if not n.startswith("/") and ("/" in n or re.search(r"\.\w+$", n))
        ]
        base = ROOT / names[0]
        for name in names:
            found = (base / name).exists() or (ROOT / name).exists() or ("/" not in name and any(base.rglob(name)))
            if not found:
                missing.append(name)
    assert missing == []


def test_every_path_a_recipe_names_exists() -> None:
    """Each "Adding a ..." recipe of ARCHITECTURE.md: every file or folder it names in code spans exists
    (placeholders such as ``<chain>`` and paths of files the reader creates are skipped)."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    recipes = [part.split("\n## ", 1)[0] for part in text.split("\n## Adding ")[1:]]
    assert len(recipes) >= 4
    named = {
        name.rstrip("/")
        for recipe in recipes
        for name in re.findall(r"`([^`\s]+)`", recipe)
        if name.startswith(("simulator/", "tests/", "tools/", "docs/", "schemas/", "js/", "fixtures/"))
        and "<" not in name
        and "*" not in name
    }
    assert named
    assert sorted(name for name in named if not (ROOT / name).exists()) == []


def test_the_architecture_has_its_recipes_and_the_site_includes_it() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    for recipe in (
        "## Adding an operation",
        "## Adding a chain",
        "## Adding a scenario key",
        "## Adding a control endpoint",
        "## Adding a webhook event type",
    ):
        assert recipe in text
    assert '--8<-- "ARCHITECTURE.md"' in (DOCS / "architecture.md").read_text()
