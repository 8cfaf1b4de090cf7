"""Consensus and policy outcomes: who must approve an activity, and what becomes of it."""
