"""The checks of an e-mail's customization the service makes before it sends one (email_auth, the
e-mail recovery, an e-mailed OTP): error catalogue messages first, then what is wrong."""

from __future__ import annotations

import json

from simulator.errors import InvalidArgument, documented
from simulator.wire import Json


def check_template_variables(customization: Json) -> None:
    """``templateVariables`` is a string holding a JSON object ("JSON object containing key/value
    pairs", the swagger); anything else is the catalogue's "failed to unmarshal template variables"."""
    variables = customization.get("templateVariables")
    if variables is None or variables == "":
        return
    try:
        parsed = json.loads(variables)
    except ValueError as error:
        raise InvalidArgument(
            documented("failed to unmarshal template variables", f"templateVariables is not JSON ({error})")
        ) from None
    if not isinstance(parsed, dict):
        raise InvalidArgument(
            documented(
                "failed to unmarshal template variables",
                f"templateVariables must be a JSON object of key/value pairs, not {type(parsed).__name__}",
            )
        )


def check_magic_link_template(customization: Json) -> None:
    template = customization.get("magicLinkTemplate")
    if template is not None and "%s" not in template:
        raise InvalidArgument(
            documented(
                "invalid magic link template",
                f"invalid magicLinkTemplate {template!r}: it must contain %s, where the bundle goes",
            )
        )
