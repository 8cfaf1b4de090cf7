"""The two errors the policy language raises: one when compiling, one when evaluating."""

from __future__ import annotations


class PolicySyntaxError(ValueError):
    """A policy expression that does not parse, or uses a construct outside the supported subset."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class PolicyEvaluationError(ValueError):
    """A compiled expression that cannot be evaluated against a context (a type error at run time)."""
