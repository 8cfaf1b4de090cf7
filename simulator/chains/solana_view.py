"""What ``solana.tx`` shows policies about a Solana message (DOCS ``features/policies/language.mdx``).

Accounts taken from address lookup tables are never resolved (that needs chain state): they read
``ADDRESS_TABLE_LOOKUP`` wherever an address is shown. ``transfers`` are top-level System Program
``Transfer`` / ``TransferWithSeed``; ``spl_transfers`` are top-level Token / Token-2022
``Transfer``, ``TransferChecked`` and ``TransferCheckedWithFee``. ``parsed_instruction_data`` needs
an uploaded IDL, which this state-free layer does not know, so it is ``None`` here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solders.instruction import CompiledInstruction
    from solders.message import Message, MessageV0

SYSTEM_PROGRAM = "11111111111111111111111111111111"
TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
LOOKED_UP = "ADDRESS_TABLE_LOOKUP"
# System Program instruction indices (u32 little-endian) and their (from, to) account positions
SYSTEM_TRANSFERS = {2: (0, 1), 11: (0, 2)}  # Transfer, TransferWithSeed
TOKEN_TRANSFER, TOKEN_TRANSFER_CHECKED, TRANSFER_FEE_EXTENSION, TRANSFER_CHECKED_WITH_FEE = 3, 12, 26, 1


@dataclass(frozen=True)
class Account:
    key: str
    signer: bool
    writable: bool
    lookup: tuple[int, int] | None = None  # (table number, index in that table) for looked-up accounts


def is_v0(message: Message | MessageV0) -> bool:
    return hasattr(message, "address_table_lookups")


def describe(message: Message | MessageV0) -> dict[str, Any]:
    accounts = account_table(message)
    tables = lookup_tables(message)
    instructions = [instruction_view(ix, accounts, tables) for ix in message.instructions]
    return {
        "account_keys": [account.key for account in accounts],
        "program_keys": list(dict.fromkeys(ix["program_key"] for ix in instructions)),
        "instructions": instructions,
        "transfers": [t for ix in instructions if (t := system_transfer(ix)) is not None],
        "spl_transfers": [t for ix in instructions if (t := spl_transfer(ix)) is not None],
        "recent_blockhash": str(message.recent_blockhash),
        "address_table_lookups": tables,
    }


def account_table(message: Message | MessageV0) -> list[Account]:
    """Every account an instruction can name, in index order: static keys, then looked-up ones."""
    header, keys = message.header, [str(key) for key in message.account_keys]
    signers = header.num_required_signatures
    writable_signers = signers - header.num_readonly_signed_accounts
    writable_unsigned = len(keys) - header.num_readonly_unsigned_accounts
    accounts = [
        Account(key, index < signers, index < writable_signers if index < signers else index < writable_unsigned)
        for index, key in enumerate(keys)
    ]
    lookups = message.address_table_lookups if is_v0(message) else []  # type: ignore[union-attr]
    for writable in (True, False):  # all writable lookups of every table come before the read-only ones
        for table, lookup in enumerate(lookups):
            indexes = lookup.writable_indexes if writable else lookup.readonly_indexes
            accounts += [Account(LOOKED_UP, False, writable, (table, index)) for index in indexes]
    return accounts


def lookup_tables(message: Message | MessageV0) -> list[dict[str, Any]]:
    if not is_v0(message):
        return []
    return [
        {
            "address_table_key": str(lookup.account_key),
            "writable_indexes": list(lookup.writable_indexes),
            "readonly_indexes": list(lookup.readonly_indexes),
        }
        for lookup in message.address_table_lookups  # type: ignore[union-attr]
    ]


def instruction_view(ix: CompiledInstruction, accounts: list[Account], tables: list[dict[str, Any]]) -> dict[str, Any]:
    used = [accounts[index] for index in ix.accounts]
    return {
        "program_key": accounts[ix.program_id_index].key,
        "accounts": [{"account_key": a.key, "signer": a.signer, "writable": a.writable} for a in used],
        "instruction_data_hex": bytes(ix.data).hex(),
        "address_table_lookups": lookups_used(used, tables),
        "parsed_instruction_data": None,
    }


def lookups_used(used: Iterable[Account], tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lookup tables an instruction reads accounts from, narrowed to the indexes it reads."""
    picked: dict[int, dict[str, Any]] = {}
    for account in used:
        if account.lookup is None:
            continue
        table, index = account.lookup
        entry = picked.setdefault(
            table,
            {"address_table_key": tables[table]["address_table_key"], "writable_indexes": [], "readonly_indexes": []},
        )
        side = entry["writable_indexes"] if account.writable else entry["readonly_indexes"]
        if index not in side:
            side.append(index)
    return [picked[table] for table in sorted(picked)]


def system_transfer(ix: dict[str, Any]) -> dict[str, Any] | None:
    data = bytes.fromhex(ix["instruction_data_hex"])
    if ix["program_key"] != SYSTEM_PROGRAM or len(data) < 12:
        return None
    positions = SYSTEM_TRANSFERS.get(int.from_bytes(data[:4], "little"))
    keys = [account["account_key"] for account in ix["accounts"]]
    if positions is None or len(keys) <= max(positions):
        return None
    source, destination = positions
    return {"from": keys[source], "to": keys[destination], "amount": int.from_bytes(data[4:12], "little")}


def spl_transfer(ix: dict[str, Any]) -> dict[str, Any] | None:
    """Token ``Transfer`` (source, destination, owner) or a checked one (source, mint, destination, owner)."""
    data = bytes.fromhex(ix["instruction_data_hex"])
    keys = [account["account_key"] for account in ix["accounts"]]
    if ix["program_key"] not in (TOKEN_PROGRAM, TOKEN_2022_PROGRAM) or not data:
        return None
    if data[0] == TOKEN_TRANSFER and len(data) >= 9 and len(keys) >= 3:
        amount, (source, destination, owner), mint, signers = data[1:9], keys[:3], "", keys[3:]
    elif data[0] == TOKEN_TRANSFER_CHECKED and len(data) >= 10 and len(keys) >= 4:
        amount, (source, mint, destination, owner), signers = data[1:9], keys[:4], keys[4:]
    elif is_transfer_checked_with_fee(ix["program_key"], data) and len(keys) >= 4:
        amount, (source, mint, destination, owner), signers = data[2:10], keys[:4], keys[4:]
    else:
        return None
    return {
        "from": source,
        "to": destination,
        "amount": int.from_bytes(amount, "little"),
        "owner": owner,
        "signers": signers,
        "token_mint": mint,
    }


def is_transfer_checked_with_fee(program: str, data: bytes) -> bool:
    """Token-2022 only: [26, 1, amount u64, decimals u8, fee u64]."""
    return (
        program == TOKEN_2022_PROGRAM
        and len(data) >= 19
        and data[0] == TRANSFER_FEE_EXTENSION
        and data[1] == TRANSFER_CHECKED_WITH_FEE
    )
