"""The upgrade page (docs/how-to/upgrading-from-0.2.md) has an entry for every behaviour change the changelog
records for 0.3.0, and names only switches, ``Config`` fields and pytest ini options that exist.

The pairing is explicit: an entry carries ``<!-- changelog: FIRST WORDS -->`` for each changelog bullet it
covers (or one comment naming several, separated by `` | ``, as inside a list item, where a second comment
line would end the list): the first words (or the bold lead) of that bullet written without markdown (no
``**``, ``*`` or backticks, link text without its URL; case and spacing do not matter). A name must start
exactly one bullet of the 0.3.0 section, and one under a page heading that is a changelog subsection must
name a bullet of that subsection. ``<!-- changelog-pending: ... -->`` marks an entry whose bullet is not
written yet; it is ignored until it becomes ``changelog:``.

Which bullets need an entry: every bullet of every subsection of the 0.3.0 section but "Added". Security,
Errors, Changed, Fixed, Deprecated and "Now warnings" each hold changes that make a test or program written
against 0.2.0 behave differently (a refusal, a status or message, a warning, a default); Fixed included,
since its policy evaluation and digit parsing refuse what 0.2.0 allowed. Bullets with nothing to do (speed, the
bench, internals) still get a line in the page's "Nothing to do" list, so a new bullet is a decision, not an
oversight. Added is left out: by the compatibility rule an addition changes nothing until a user opts in
(a new switch, key or entry point); the page may still name an Added bullet, which must then exist.

The 0.3.0 section is "## 0.3.0 ..." once the release is cut, and until then "## Unreleased" directly above
"## 0.2.0"."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from conftest import ROOT

CHANGELOG = ROOT / "docs" / "changelog.md"
PAGE = ROOT / "docs" / "how-to" / "upgrading-from-0.2.md"
NOT_REQUIRED = {"Added"}  # additions change nothing until used (see the docstring)
MARKER = re.compile(r"<!--\s*changelog:\s*(.*?)\s*-->", re.S)


@dataclass(frozen=True)
class Bullet:
    subsection: str
    text: str  # markdown as written, continuation lines and sub-bullets included

    @property
    def plain(self) -> str:
        return plain(self.text)


def plain(markdown: str) -> str:
    """The text a reader sees, for comparing: link URLs, emphasis and code marks gone, spaces collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"[*`]", "", text)
    return " ".join(text.split()).casefold()


def release_section(changelog: str) -> str:
    """The body of the 0.3.0 section: "## 0.3.0 ..." if written, else "## Unreleased" right above 0.2.0."""
    sections = re.split(r"^## ", changelog, flags=re.M)[1:]
    for section in sections:
        if section.startswith("0.3.0"):
            return section
    assert sections[0].startswith("Unreleased") and sections[1].startswith("0.2.0"), (
        "docs/changelog.md has neither a '## 0.3.0' section nor '## Unreleased' directly above '## 0.2.0'"
    )
    return sections[0]


def bullets(section: str) -> list[Bullet]:
    """The top-level bullets of each ### subsection; indented lines (sub-bullets) belong to their bullet,
    a blank line or a heading ends it, and the paragraphs before a subsection's first bullet are not bullets."""
    found: list[Bullet] = []
    subsection, lines = "", list[str]()

    def close() -> None:
        if lines:
            found.append(Bullet(subsection, "\n".join(lines)))
            lines.clear()

    for line in section.splitlines():
        if line.startswith("### "):
            close()
            subsection = line[4:].strip()
        elif line.startswith("- "):
            close()
            lines.append(line[2:])
        elif lines and line.strip() and not line.startswith("#"):
            lines.append(line)
        else:
            close()
    close()
    return found


def page_names(page: str) -> list[tuple[str, str]]:
    """(the page's ## heading above it, name) of every changelog marker of the page."""
    found = []
    heading = ""
    for part in re.split(r"^(## .*)$", page, flags=re.M):
        if part.startswith("## "):
            heading = part[3:].strip()
            continue
        found += [(heading, name.strip()) for names in MARKER.findall(part) for name in names.split(" | ")]
    return found


def matching(name: str, found: list[Bullet]) -> list[Bullet]:
    wanted = plain(name)
    return [b for b in found if b.plain.startswith(wanted)]


CHANGES = bullets(release_section(CHANGELOG.read_text()))
NAMES = page_names(PAGE.read_text())


def test_the_changelog_section_is_read_whole():
    subsections = {b.subsection for b in CHANGES}
    assert {"Security", "Changed", "Fixed", "Deprecated", "Added"} <= subsections, subsections
    assert len(CHANGES) > 60, f"only {len(CHANGES)} bullets read from docs/changelog.md's 0.3.0 section"
    policy = [b for b in CHANGES if b.plain.startswith("policies are evaluated as turnkey's policy language page")]
    assert len(policy) == 1 and "init_otp_auth is resource auth" in policy[0].plain  # sub-bullets kept


@pytest.mark.parametrize("heading,name", NAMES, ids=[name[:40] for _, name in NAMES])
def test_every_name_on_the_page_starts_one_bullet_of_its_group(heading, name):
    found = matching(name, CHANGES)
    assert len(found) == 1, f"{PAGE.relative_to(ROOT)}: <!-- changelog: {name} --> starts " + (
        f"{len(found)} bullets of docs/changelog.md's 0.3.0 section; lengthen it until it names one: "
        + "; ".join(b.plain[:90] for b in found)
        if found
        else "no bullet of docs/changelog.md's 0.3.0 section (write its first words without markdown)"
    )
    subsections = {b.subsection for b in CHANGES}
    if heading in subsections:
        assert found[0].subsection == heading, (
            f"<!-- changelog: {name} --> sits under '## {heading}' but its bullet is under "
            f"'### {found[0].subsection}'; move the entry to that group"
        )


def test_every_behaviour_changing_bullet_has_an_entry():
    named = {id(b) for _, name in NAMES for b in matching(name, CHANGES)}
    missing = [b for b in CHANGES if b.subsection not in NOT_REQUIRED and id(b) not in named]
    assert not missing, (
        "bullets of docs/changelog.md without an entry on docs/how-to/upgrading-from-0.2.md:\n"
        + "\n".join(f"- under '### {b.subsection}': {b.text.splitlines()[0][:110]}" for b in missing)
        + (
            "\nAdd to the entry that covers each (or to a new one: what changed, who notices, how to keep the old "
            "behaviour; or to its group's 'Nothing to do' list) a line <!-- changelog: FIRST WORDS --> with the "
            "bullet's first words without markdown."
        )
    )


def cli_switches() -> set[str]:
    from simulator.cli import parser

    top = parser()
    switches = {s for a in top._actions for s in a.option_strings}
    for action in top._actions:
        for sub in (getattr(action, "choices", None) or {}).values():
            switches |= {s for a in sub._actions for s in a.option_strings}
    return switches


def checked_part() -> str:
    return PAGE.read_text()


def test_the_switches_config_fields_and_ini_options_named_exist(pytestconfig):
    import dataclasses

    from simulator.config import Config

    spans = re.findall(r"`([^`\n]+)`", checked_part())
    switches = {m for span in spans for m in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", span)}
    unknown_switches = switches - cli_switches()
    fields = {f.name for f in dataclasses.fields(Config)}
    named_fields = {m for span in spans for m in re.findall(r"\bConfig\.(\w+)", span)}
    named_fields |= {
        m for span in spans for c in re.findall(r"\bConfig\(([^)]*)\)", span) for m in re.findall(r"(\w+)=", c)
    }

    ini = {m for span in spans for m in re.findall(r"\b(simulator_[a-z_]+)\b", span)}
    assert switches and named_fields and ini
    assert unknown_switches == set(), f"switches the CLI does not have: {sorted(unknown_switches)}"
    assert named_fields - fields == set(), f"Config has no field {sorted(named_fields - fields)}"

    def unknown_ini(name: str) -> bool:  # this session loaded the installed plugin: its ini options are real
        try:
            pytestconfig.getini(name)
        except ValueError:
            return True
        return False

    missing = sorted(name for name in ini if unknown_ini(name))
    assert missing == [], f"the pytest plugin has no ini option {missing}"


def test_the_page_is_in_the_navigation_and_the_how_to_index():
    assert "how-to/upgrading-from-0.2.md" in (ROOT / "mkdocs.yml").read_text()
    assert "(upgrading-from-0.2.md)" in (ROOT / "docs" / "how-to" / "index.md").read_text()


def test_the_vendored_helper_section_replaces_the_tarball():
    """A tarball packed again under the same version fails npm ci (EINTEGRITY): the steps remove the old one
    and install the new version's, which npm pack names after js/package.json's version."""
    section = PAGE.read_text().split("## Upgrading the vendored JS helper", 1)[1].split("\n## ", 1)[0]
    for step in (
        "EINTEGRITY",
        "rm vendor/wallet-simulator-testing-0.2.0.tgz",
        "npm pack /path/to/wallet-simulator/js --pack-destination vendor",
        "npm install --save-dev ./vendor/wallet-simulator-testing-0.3.0.tgz",
        "package-lock.json",
    ):
        assert step in section, step
