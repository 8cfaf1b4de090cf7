"""What a sponsored Solana send is warned about: the limits features/networks/solana-transaction-construction.mdx
gives ("Current Solana transaction-construction constraints": the System Program among the static account
keys, one Turnkey signer, no top-level createAccount or createAccountWithSeed, which need a second
signature). The simulator lets such a send pass and names the limit in the request's warnings, so a suite
learns of a send the service would not sponsor before a refusal ever lands.
"""

from __future__ import annotations

from simulator.chains.solana import SolanaTransaction
from simulator.chains.solana_view import LOOKED_UP, SYSTEM_PROGRAM
from simulator.handler_support.request_warnings import warn

# the System Program's instruction indexes (little-endian u32) that create an account
CREATE_ACCOUNT, CREATE_ACCOUNT_WITH_SEED = 0, 3


def check_solana(parsed: SolanaTransaction, signers: list[str]) -> None:
    view = parsed.view
    if len(signers) > 1:
        warn(
            f"sponsored Solana send with {len(signers)} signWiths: the service supports one Turnkey signer per transaction"
        )
    static = [key for key in view["account_keys"] if key != LOOKED_UP]
    if SYSTEM_PROGRAM not in static:
        warn("sponsored Solana send without the System Program among its static account keys: the service requires it")
    for index, ix in enumerate(view["instructions"]):
        data = bytes.fromhex(ix["instruction_data_hex"])
        kind = int.from_bytes(data[:4], "little") if len(data) >= 4 else None
        if ix["program_key"] == SYSTEM_PROGRAM and kind in (CREATE_ACCOUNT, CREATE_ACCOUNT_WITH_SEED):
            name = "createAccount" if kind == CREATE_ACCOUNT else "createAccountWithSeed"
            warn(
                f"sponsored Solana send with a top-level System Program {name} (instruction {index}): the service "
                "does not sponsor it (it needs two signatures); create accounts inside a program (invoke_signed)"
            )
