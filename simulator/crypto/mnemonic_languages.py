"""BIP-39 mnemonics in the nine languages the API names (``MNEMONIC_LANGUAGE_*``).

A mnemonic is its entropy plus a checksum, written with one of the 2048-word lists; the same
entropy reads differently in each language. The seed, though, is PBKDF2 over the words
themselves (NFKD-normalised), so a wallet's addresses come from the words it was created or
imported with: the same entropy in another language is another wallet.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import cache

from mnemonic import Mnemonic

LANGUAGES = {
    "MNEMONIC_LANGUAGE_ENGLISH": "english",
    "MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE": "chinese_simplified",
    "MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE": "chinese_traditional",
    "MNEMONIC_LANGUAGE_CZECH": "czech",
    "MNEMONIC_LANGUAGE_FRENCH": "french",
    "MNEMONIC_LANGUAGE_ITALIAN": "italian",
    "MNEMONIC_LANGUAGE_JAPANESE": "japanese",
    "MNEMONIC_LANGUAGE_KOREAN": "korean",
    "MNEMONIC_LANGUAGE_SPANISH": "spanish",
}
WORD_COUNTS = (12, 15, 18, 21, 24)


@cache
def _wordlist(language: str) -> Mnemonic:
    return Mnemonic(language)


@cache
def _index(language: str) -> dict[str, int]:
    return {unicodedata.normalize("NFKD", w): i for i, w in enumerate(_wordlist(language).wordlist)}


def normalized(words: str) -> str:
    """NFKD, single spaces (an ideographic space is a space after NFKD): the form seeds are made of."""
    return " ".join(unicodedata.normalize("NFKD", words).split())


def entropy_of(words: str, language: str) -> bytes | None:
    """The entropy if ``words`` are a checksum-valid mnemonic in ``language`` (a wordlist name)."""
    index = _index(language)
    found = [index.get(w) for w in normalized(words).split(" ")]
    if len(found) not in WORD_COUNTS or any(i is None for i in found):
        return None
    bits = "".join(f"{i:011b}" for i in found if i is not None)
    checksum_bits = len(bits) // 33
    entropy = int(bits[:-checksum_bits], 2).to_bytes(len(bits) // 33 * 4, "big")
    expected = f"{int.from_bytes(hashlib.sha256(entropy).digest(), 'big'):0256b}"[:checksum_bits]
    return entropy if bits[-checksum_bits:] == expected else None


def language_of(words: str) -> str | None:
    """The first of the API's languages in which ``words`` are a valid mnemonic, or None."""
    return next((name for name in LANGUAGES.values() if entropy_of(words, name) is not None), None)


def seed_of(words: str) -> bytes:
    """The BIP-39 seed (no passphrase) of a mnemonic in any language."""
    return bytes(Mnemonic.to_seed(normalized(words)))


def in_language(words: str, api_language: str) -> str:
    """The mnemonic's entropy written in another language (``MNEMONIC_LANGUAGE_*``)."""
    source = language_of(words)
    target = LANGUAGES[api_language]
    entropy = entropy_of(words, source) if source else None
    if entropy is None:
        raise ValueError("not a valid BIP-39 mnemonic")
    if source == target:
        return words
    return str(_wordlist(target).to_mnemonic(entropy))
