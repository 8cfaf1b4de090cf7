"""The two errors the policy language raises: one when compiling, one when evaluating."""

from __future__ import annotations


class PolicySyntaxError(ValueError):
    """A policy expression that does not parse, or uses a construct outside the supported subset."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class PolicyEvaluationError(ValueError):
    """A compiled expression that cannot be evaluated against a context (a type error at run time)."""


class PolicyKeywordUnavailable(PolicyEvaluationError):
    """An expression reads a keyword the request does not provide (``eth.tx`` on a Solana signature, ...).

    The real engine evaluates such a policy to an error (MissingField) rather than to false;
    ``keywords`` names what was missing, so an explanation can say why.
    """

    def __init__(self, message: str, keywords: tuple[str, ...]) -> None:
        super().__init__(message)
        self.keywords = keywords
