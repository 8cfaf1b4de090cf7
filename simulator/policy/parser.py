"""Recursive-descent parser for the policy language.

Grammar, loosest binding first::

    or         := and ('||' and)*
    and        := comparison ('&&' comparison)*
    comparison := unary (('==' | '!=' | '<' | '<=' | '>' | '>=' | 'in') unary)?
    unary      := '!' unary | postfix
    postfix    := primary ('.' NAME | '.' METHOD '(' args ')' | '[' subscript ']')*
    subscript  := or | or? (':' | '..') or?
    primary    := STRING | INT | 'true' | 'false' | NAME | TIMEFN '(' (or (',' or)*)? ')' | '(' or ')'
                | '[' (or (',' or)*)? ']'
    TIMEFN     := 'Timestamp' | 'CronSpan'   (the time field's functions; other fields refuse them)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from simulator.policy.errors import PolicySyntaxError
from simulator.policy.lexer import Token, tokenize
from simulator.policy.namespaces import UnknownKeyword, keyword_reads
from simulator.policy.nodes import (
    Call,
    Compare,
    Contains,
    Count,
    Index,
    ListLiteral,
    Literal,
    Logical,
    Member,
    Name,
    Node,
    Not,
    Predicate,
    Slice,
)

COMPARISONS = frozenset(("==", "!=", "<", "<=", ">", ">=", "in"))
PREDICATE_METHODS = frozenset(("any", "all", "filter"))
METHOD_NAMES = ".any, .all, .filter, .count, .contains"
MAX_DEPTH = 64
TIME_FUNCTIONS = frozenset(("Timestamp", "CronSpan"))


def parse(text: str) -> Node:
    """The AST of ``text``; raises PolicySyntaxError naming the position and the offending construct."""
    return Parser(text).parse()


def describe(token: Token) -> str:
    """How an error message names a token."""
    if token.kind == "end":
        return "end of expression"
    if token.kind == "name":
        return f"identifier {token.value!r}"
    if token.kind == "str":
        return f"string {token.value!r}"
    if token.kind == "op":
        return repr(token.value)
    return f"{token.kind} {str(token.value).lower()}"


class Parser:
    """One parse of one text: a cursor over its tokens plus the lambda variables in scope."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.bound: list[str] = []
        self.depth = 0

    # -- cursor -------------------------------------------------------------------------------------

    def peek(self) -> Token:
        """The current token, not consumed."""
        return self.tokens[self.index]

    def advance(self) -> Token:
        """Consume and return the current token."""
        token = self.tokens[self.index]
        if token.kind != "end":
            self.index += 1
        return token

    def at(self, op: str) -> bool:
        """Whether the current token is the operator ``op``."""
        token = self.peek()
        return token.kind == "op" and token.value == op

    def accept(self, op: str) -> bool:
        """Consume the current token if it is the operator ``op``."""
        if self.at(op):
            self.index += 1
            return True
        return False

    def expect(self, op: str, context: str) -> None:
        """Consume the operator ``op`` or fail, saying what was being parsed."""
        if not self.accept(op):
            token = self.peek()
            raise PolicySyntaxError(f"expected {op!r} {context} at {token.start}, found {describe(token)}", token.start)

    def unexpected(self, token: Token) -> PolicySyntaxError:
        """The error for a token that cannot appear where it is."""
        return PolicySyntaxError(f"unexpected {describe(token)} at {token.start}", token.start)

    def source_from(self, start: int) -> str:
        """The text from offset ``start`` to the end of the last consumed token."""
        return self.text[start : self.tokens[self.index - 1].end]

    @contextmanager
    def nested(self) -> Iterator[None]:
        """Bound the nesting depth, so hostile input fails cleanly instead of exhausting the stack."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                position = self.peek().start
                raise PolicySyntaxError(f"expression nested too deeply at {position} (limit {MAX_DEPTH})", position)
            yield
        finally:
            self.depth -= 1

    # -- grammar ------------------------------------------------------------------------------------

    def parse(self) -> Node:
        """The whole text as one expression; trailing tokens are an error."""
        node = self.parse_or()
        if self.peek().kind != "end":
            raise self.unexpected(self.peek())
        return node

    def parse_or(self) -> Node:
        """``and ('||' and)*``."""
        with self.nested():
            return self.parse_logical("||", self.parse_and)

    def parse_and(self) -> Node:
        """``comparison ('&&' comparison)*``."""
        return self.parse_logical("&&", self.parse_comparison)

    def parse_logical(self, op: str, operand: Callable[[], Node]) -> Node:
        """A run of ``operand``s joined by ``op``, collapsed into one n-ary node."""
        operands = [operand()]
        while self.accept(op):
            operands.append(operand())
        return operands[0] if len(operands) == 1 else Logical(op, tuple(operands))

    def comparison_operator(self) -> str | None:
        """The comparison operator at the cursor, if any."""
        token = self.peek()
        return str(token.value) if token.kind == "op" and token.value in COMPARISONS else None

    def parse_comparison(self) -> Node:
        """``unary (op unary)?``; comparisons do not chain."""
        start = self.peek().start
        node = self.parse_unary()
        op = self.comparison_operator()
        if op is not None:
            self.advance()
            node = Compare(op, node, self.parse_unary())
            if self.comparison_operator() is not None:
                self.advance()
                self.parse_unary()
                raise PolicySyntaxError(
                    f"unsupported construct {self.source_from(start)!r} at {start}: "
                    "chained comparisons are not supported (join them with '&&')",
                    start,
                )
        self.check_keywords(node, start)
        return node

    def check_keywords(self, node: Node, start: int) -> None:
        """Refuse a comparison naming a transaction keyword or field the language lacks, quoting it whole."""
        try:
            keyword_reads(node, self.bound)
        except UnknownKeyword as exc:
            raise PolicySyntaxError(
                f"unsupported construct {self.source_from(start)!r} at {start}: {exc}", start
            ) from None

    def parse_unary(self) -> Node:
        """``'!' unary | postfix``."""
        if self.accept("!"):
            with self.nested():
                return Not(self.parse_unary())
        return self.parse_postfix()

    def parse_postfix(self) -> Node:
        """A primary followed by any number of member accesses, method calls and subscripts."""
        node = self.parse_primary()
        while True:
            if self.accept("."):
                node = self.parse_member(node)
            elif self.accept("["):
                node = self.parse_subscript(node)
            else:
                return node

    def parse_primary(self) -> Node:
        """A literal, an identifier, a parenthesised expression or a list literal."""
        token = self.advance()
        if token.kind in ("str", "int", "bool"):
            return Literal(token.value)
        if token.kind == "name":
            if self.at("(") and token.value in TIME_FUNCTIONS:
                return self.parse_call(token)
            if self.at("("):
                raise PolicySyntaxError(
                    f"unsupported construct '{token.value}(...)' at {token.start}: function calls are "
                    f"not supported (only the list methods {METHOD_NAMES})",
                    token.start,
                )
            return Name(str(token.value))
        if token.kind == "op" and token.value == "(":
            node = self.parse_or()
            self.expect(")", f"to close the '(' at {token.start}")
            return node
        if token.kind == "op" and token.value == "[":
            return self.parse_list(token)
        raise self.unexpected(token)

    def parse_call(self, name: Token) -> Node:
        """The arguments of ``Timestamp(...)`` or ``CronSpan(...)``, after the function's name."""
        self.advance()
        args: list[Node] = []
        if not self.accept(")"):
            args.append(self.parse_or())
            while self.accept(","):
                args.append(self.parse_or())
            self.expect(")", f"to close '{name.value}(...)'")
        return Call(str(name.value), tuple(args), name.start)

    def parse_list(self, opening: Token) -> Node:
        """The items of a list literal, after its '['."""
        items: list[Node] = []
        if not self.accept("]"):
            items.append(self.parse_or())
            while self.accept(","):
                items.append(self.parse_or())
            self.expect("]", f"to close the list opened at {opening.start}")
        return ListLiteral(tuple(items))

    def parse_subscript(self, target: Node) -> Node:
        """An index ``[i]`` or a slice ``[a:b]`` / ``[a..b]`` (either bound optional), after its '['."""
        start: Node | None = None
        if not (self.at(":") or self.at("..")):
            start = self.parse_or()
            if self.accept("]"):
                return Index(target, start)
            if not (self.at(":") or self.at("..")):
                self.expect("]", "to close the index")
        self.advance()
        end = None if self.at("]") else self.parse_or()
        self.expect("]", "to close the slice")
        return Slice(target, start, end)

    def parse_member(self, target: Node) -> Node:
        """A field name or a method call, after the '.'."""
        token = self.advance()
        if token.kind != "name":
            raise PolicySyntaxError(
                f"expected a member name after '.' at {token.start}, found {describe(token)}", token.start
            )
        if not self.at("("):
            return Member(target, str(token.value))
        return self.parse_method(target, token)

    def parse_method(self, target: Node, name: Token) -> Node:
        """A call of one of the supported list methods; anything else is refused."""
        method = str(name.value)
        self.advance()
        if method in PREDICATE_METHODS:
            return self.parse_predicate(target, method)
        if method == "count":
            if not self.accept(")"):
                raise PolicySyntaxError(
                    f"unsupported construct '.count(...)' with arguments at {name.start}: .count() takes no arguments",
                    name.start,
                )
            return Count(target)
        if method == "contains":
            return self.parse_contains(target, name)
        raise PolicySyntaxError(
            f"unsupported construct '.{method}(...)' at {name.start}: unknown method (supported: {METHOD_NAMES})",
            name.start,
        )

    def parse_predicate(self, target: Node, method: str) -> Node:
        """``(var, body)`` of .any/.all/.filter; ``var`` is bound (and shadows outer names) in ``body``."""
        token = self.advance()
        if token.kind != "name":
            raise PolicySyntaxError(
                f"expected a variable name as the first argument of '.{method}' at {token.start}, "
                f"found {describe(token)} (write .{method}(x, <predicate>))",
                token.start,
            )
        self.expect(",", f"after the variable of '.{method}' (write .{method}(x, <predicate>))")
        self.bound.append(str(token.value))
        try:
            body = self.parse_or()
        finally:
            self.bound.pop()
        self.expect(")", f"to close '.{method}(...)'")
        return Predicate(method, target, str(token.value), body)

    def parse_contains(self, target: Node, name: Token) -> Node:
        """The single argument of ``.contains(value)``."""
        if self.at(")"):
            raise PolicySyntaxError(
                f"unsupported construct '.contains()' at {name.start}: .contains takes one argument", name.start
            )
        item = self.parse_or()
        self.expect(")", "to close '.contains(...)'")
        return Contains(target, item)
