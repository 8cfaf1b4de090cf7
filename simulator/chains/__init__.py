"""Chain transaction formats: parse an unsigned transaction, sign it, and describe it to policies."""
