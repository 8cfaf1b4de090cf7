"""Tokenizer for the policy language: turns expression text into a list of ``Token``s."""

from __future__ import annotations

from dataclasses import dataclass
from string import ascii_letters, digits

from simulator.policy.errors import PolicySyntaxError

# Longest first, so '==' wins over a lone '=' and '..' over '.'.
OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "..", "<", ">", "!", "(", ")", "[", "]", ",", ".", ":")
REFUSED_CHARACTERS = {
    "+": "arithmetic is not supported",
    "-": "arithmetic (including negative numbers) is not supported",
    "*": "arithmetic is not supported",
    "/": "arithmetic is not supported",
    "%": "arithmetic is not supported",
    "&": "bitwise operators are not supported (use '&&')",
    "|": "bitwise operators are not supported (use '||')",
    "^": "bitwise operators are not supported",
    "~": "bitwise operators are not supported",
    "=": "assignment is not supported (use '==')",
    "?": "the conditional operator is not supported",
    "{": "struct literals are not supported",
    "}": "struct literals are not supported",
}
REFUSED_WORDS = {"and": "use '&&'", "or": "use '||'", "not": "use '!'"}
ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t"}
NAME_START = ascii_letters + "_"
NAME_CHARS = NAME_START + digits
# The language's widest integer type is uint (u256); its int is i128 (language.mdx, "Primitive").
LARGEST_INTEGER = 2**256 - 1


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``kind`` is str, int, bool, name, op or end; ``start``/``end`` are text offsets."""

    kind: str
    value: str | int | bool
    start: int
    end: int
    quote: str = ""  # the quote a string literal was written with (only ' is the language's)


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token."""
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        token = _read_token(text, position)
        tokens.append(token)
        position = token.end
    tokens.append(Token("end", "", len(text), len(text)))
    return tokens


def _read_token(text: str, position: int) -> Token:
    """The token that starts at ``position`` (which is not whitespace)."""
    char = text[position]
    if char in "'\"":
        return _read_string(text, position)
    if char in digits:
        return _read_number(text, position)
    if char in NAME_START:
        return _read_word(text, position)
    for operator in OPERATORS:
        if text.startswith(operator, position):
            return Token("op", operator, position, position + len(operator))
    if char in REFUSED_CHARACTERS:
        raise PolicySyntaxError(f"unsupported construct {char!r} at {position}: {REFUSED_CHARACTERS[char]}", position)
    raise PolicySyntaxError(f"unexpected character {char!r} at {position}", position)


def _read_string(text: str, start: int) -> Token:
    """A quoted string literal; backslash escapes the next character.

    The language has single quotes only (language.mdx, "Primitive"); a double-quoted literal is read
    here and its token marked, so create_policy can refuse it while a scenario file warns.
    """
    quote, position, chars = text[start], start + 1, []
    while position < len(text) and text[position] != quote:
        if text[position] == "\\":
            escaped = text[position + 1 : position + 2]
            if escaped not in ESCAPES:
                raise PolicySyntaxError(
                    f"unsupported construct '\\{escaped}' at {position}: unknown escape sequence", position
                )
            chars.append(ESCAPES[escaped])
            position += 2
        else:
            chars.append(text[position])
            position += 1
    if position >= len(text):
        raise PolicySyntaxError(f"unterminated string literal starting at {start}", start)
    return Token("str", "".join(chars), start, position + 1, quote)


def _read_number(text: str, start: int) -> Token:
    """A decimal integer literal; fractions and suffixed forms such as 0x10 are refused."""
    position = start
    while position < len(text) and text[position] in digits:
        position += 1
    # A digit after the dot means a fraction; a second dot is a slice range such as [0..2].
    is_fraction = text[position : position + 1] == "." and text[position + 1 : position + 2] in tuple(digits)
    if is_fraction or text[position : position + 1] in tuple(NAME_START):
        end = position + 1
        while end < len(text) and (text[end] in NAME_CHARS or text[end] == "."):
            end += 1
        what = "floating-point numbers are not supported" if is_fraction else "only decimal integers are supported"
        raise PolicySyntaxError(f"unsupported construct {text[start:end]!r} at {start}: {what}", start)
    digits_only = text[start:position].lstrip("0") or "0"
    # The length test first: Python refuses to convert digit strings past a few thousand digits.
    value = int(digits_only) if len(digits_only) <= len(str(LARGEST_INTEGER)) else LARGEST_INTEGER + 1
    if value > LARGEST_INTEGER:
        raise PolicySyntaxError(
            f"unsupported construct {text[start:position]!r} at {start}: integers are limited to 256 bits (uint)", start
        )
    return Token("int", value, start, position)


def _read_word(text: str, start: int) -> Token:
    """An identifier, or one of the words true, false and in."""
    position = start
    while position < len(text) and text[position] in NAME_CHARS:
        position += 1
    word = text[start:position]
    if word in ("true", "false"):
        return Token("bool", word == "true", start, position)
    if word == "in":
        return Token("op", "in", start, position)
    if word in REFUSED_WORDS:
        raise PolicySyntaxError(f"unsupported construct {word!r} at {start}: {REFUSED_WORDS[word]}", start)
    return Token("name", word, start, position)
