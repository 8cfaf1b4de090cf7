"""The JSON alias every layer uses for request, response and record bodies (defined once, here)."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
