"""The operations of the public API, declared once (catalogue.py), and what is read from that declaration:
activity types (activity_types.py), request schemas (validation.py), response schemas (response_check.py), the
names users write for an operation (operation_names.py, operation_aliases.py), and coverage (operation_coverage.py)."""
