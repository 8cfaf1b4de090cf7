"""The request machinery the handlers run inside, apart from the handlers themselves.

What a handler gets (``context``), the envelope built around its result (``envelope``), what a
refused request puts back (``refusals``), the activity's policy-language view
(``activity_view``) and scripted matching (``matching``), the stand-ins the long-tail and
broadcast handlers share (``provider_standin``: the markets, vaults, registry and status
scripts behind the long-tail operations, seeded from the ``longtail`` key; ``chain_standin``),
the mnemonic worker (``mnemonic_pool``), and what several handler families share instead of
importing each other: ``key_material`` (wallets, derived keys, private keys), ``signatures``,
``signer_views``, ``sent_transactions``, ``session_keys``, ``session_scope``,
``credential_records``, ``user_records``, ``verification_tokens``, ``enclave_bundles``, ``tags``,
``limits`` (resource allowances) and ``oidc`` (OIDC token claims). It imports no handler
(``activities/``, ``queries/``) and no consensus code, so both can build on it.
"""
