"""Turnkey's policy expression language: compile a ``consensus`` or ``condition`` text, then evaluate it.

The public entry points live in :mod:`simulator.policy.language` (``compile_expression``,
``Expression``, ``PolicySyntaxError``, ``PolicyEvaluationError``); the lexer, AST, parser and
evaluator are split into their own modules beside it.
"""
