"""The domain model: how records are made, checked and changed, shared by every family that touches them.

Key material (``key_material``: wallets, derived and private keys; ``mnemonic_pool``, the worker that
draws mnemonics ahead), ``signatures`` and ``signer_views``, ``session_keys``, ``credential_records``,
``user_records``, ``verification_tokens``, ``enclave_bundles``, ``tags``, ``oidc`` (OIDC token
claims), ``email_address`` and ``email_customization``, and the rules that read handlers, the MFA
gate and the scenario seed share with the write handlers (``mfa_policies``, ``earn``, ``tvc``,
``policy_records``, ``oauth_credentials``). It imports no handler (``activities/``, ``queries/``),
no stand-in and no consensus code: a write handler, a read, the gate and the seed all build on it.
"""
