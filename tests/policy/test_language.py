"""Tests for the policy expression language (simulator.policy.language)."""

from __future__ import annotations

from typing import Any

import pytest

from simulator.policy.language import (
    Expression,
    PolicyEvaluationError,
    PolicySyntaxError,
    compile_expression,
)

USER_A = "4b894565-fa11-42fc-b813-5bf4ea3d53f9"
TAG = "c1a1d7c4-0e8f-4b6c-9d55-7f0d6f1f2a10"
CONTEXT: dict[str, Any] = {
    "activity": {
        "type": "ACTIVITY_TYPE_CREATE_WALLET",
        "resource": "WALLET",
        "action": "CREATE",
        "kind": "CREATE_WALLET",
        "params": {"walletName": "treasury", "accounts": [1, 2, 3], "mnemonicLength": 24, "flag": True},
    },
    "approvers": [
        {"id": USER_A, "tags": [TAG], "email": "a@example.com", "alias": "alice"},
        {"id": "u-2", "tags": [TAG, "other"], "email": "b@example.com", "alias": "bob"},
        {"id": "u-3", "tags": [], "email": "c@example.com", "alias": "carol"},
    ],
    "credentials": [
        {
            "id": "c-1",
            "user_id": USER_A,
            "type": "CREDENTIAL_TYPE_API_KEY_P256",
            "credential_id": "",
            "public_key": "02ab",
        },
    ],
    "user": {"id": "outer"},
}


def run(text: str, context: dict[str, Any] | None = None) -> bool:
    return compile_expression(text).evaluate(CONTEXT if context is None else context)


def refusal(text: str) -> str:
    with pytest.raises(PolicySyntaxError) as caught:
        compile_expression(text)
    return str(caught.value)


# -- documented examples ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"approvers.any(user, user.id == '{USER_A}')", True),
        ("approvers.any(user, user.id == 'nobody')", False),
        (f"approvers.filter(user, user.tags.contains('{TAG}')).count() >= 2", True),
        (f"approvers.filter(user, user.tags.contains('{TAG}')).count() >= 3", False),
        ("credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", False),
        ("credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_API_KEY_P256')", True),
        (
            (
                "(activity.resource == 'AUTH' && activity.action == 'CREATE') || "
                "(activity.resource == 'OTP' && activity.action == 'CREATE')"
            ),
            False,
        ),
        ("activity.type in ['ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_TYPE_CREATE_USERS_V3']", True),
        ("activity.type in ['ACTIVITY_TYPE_DELETE_WALLETS', 'ACTIVITY_TYPE_CREATE_USERS_V3']", False),
        ("approvers.count() >= 2", True),
        ("approvers.count() >= 4", False),
        ("!(activity.action == 'DELETE')", True),
        ("!(activity.action == 'CREATE')", False),
    ],
)
def test_documented_examples(text: str, expected: bool) -> None:
    assert run(text) is expected


def test_delegated_access_condition_matches_auth_and_otp() -> None:
    text = (
        "(activity.resource == 'AUTH' && activity.action == 'CREATE') || "
        "(activity.resource == 'OTP' && activity.action == 'CREATE') || "
        "(activity.resource == 'OTP' && activity.action == 'VERIFY')"
    )
    assert run(text, {"activity": {"resource": "OTP", "action": "VERIFY"}}) is True
    assert run(text, {"activity": {"resource": "AUTH", "action": "CREATE"}}) is True
    assert run(text, {"activity": {"resource": "OTP", "action": "DELETE"}}) is False


# -- literals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("false", False),
        ("'a' == 'a'", True),
        ("'a' == 'b'", False),
        ("\"a\" == 'a'", True),
        ("\"it's\" == 'it\\'s'", True),
        ("'a\\\\b' == \"a\\\\b\"", True),
        ("'tab\\there'.contains('\\t')", True),
        ("12 == 12", True),
        ("12 == 13", False),
        ("007 == 7", True),
        ("170141183460469231731687303715884105728 > 1", True),
        ("[1, 2, 3] == [1, 2, 3]", True),
        ("[1, 2] == [2, 1]", False),
        ("[].count() == 0", True),
        ("[[1], [2]][1][0] == 2", True),
    ],
)
def test_literals(text: str, expected: bool) -> None:
    assert run(text) is expected


def test_empty_and_blank_texts_are_always_true() -> None:
    for text in ("", "   ", "\n\t"):
        expression = compile_expression(text)
        assert expression.evaluate({}) is True
        assert expression.names() == frozenset()


# -- access --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("activity.params.walletName == 'treasury'", True),
        ("activity.params.walletName == 'payroll'", False),
        ("approvers[0].alias == 'alice'", True),
        ("approvers[2].alias == 'alice'", False),
        ("approvers[1].tags[1] == 'other'", True),
        ("'abc'[0] == 'a'", True),
        ("'abc'[2] == 'a'", False),
        ("activity.params['walletName'] == 'treasury'", True),
        ("activity['params']['mnemonicLength'] == 24", True),
        ("activity.params.accounts[1:3] == [2, 3]", True),
        ("activity.params.accounts[0..2] == [1, 2]", True),
        ("activity.params.accounts[0..2] == [2, 3]", False),
        ("activity.params.accounts[1:] == [2, 3]", True),
        ("activity.params.accounts[:1] == [1]", True),
        ("activity.params.accounts[..2].count() == 2", True),
        ("'abcdef'[1..3] == 'bc'", True),
        ("'abcdef'[1:3] == 'cd'", False),
        ("[1, 2, 3][5:9] == []", True),
        ("approvers[0:2].all(u, u.tags.contains('" + TAG + "'))", True),
        ("approvers[1:].all(u, u.tags.contains('" + TAG + "'))", False),
    ],
)
def test_member_index_and_slice(text: str, expected: bool) -> None:
    assert run(text) is expected


# -- comparison and membership --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 < 2", True),
        ("2 < 1", False),
        ("2 <= 2", True),
        ("3 <= 2", False),
        ("3 > 2", True),
        ("2 > 3", False),
        ("2 >= 2", True),
        ("1 >= 2", False),
        ("'a' != 'b'", True),
        ("'a' != 'a'", False),
        ("'abc' < 'abd'", True),
        ("'b' < 'a'", False),
        ("true == true", True),
        ("true != false", True),
        ("true == 1", False),
        ("1 == '1'", False),
        ("activity.params.flag == true", True),
        ("activity.params.mnemonicLength >= 12", True),
        ("activity.params.mnemonicLength < 12", False),
    ],
)
def test_comparisons(text: str, expected: bool) -> None:
    assert run(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 in [1, 2, 3]", True),
        ("4 in [1, 2, 3]", False),
        ("true in [1]", False),
        ("'WALLET' in activity.type", True),
        ("'USER' in activity.type", False),
        ("'walletName' in activity.params", True),
        ("'nope' in activity.params", False),
        (f"'{TAG}' in approvers[0].tags", True),
        (f"'{TAG}' in approvers[2].tags", False),
        ("activity.kind in ['CREATE_WALLET']", True),
    ],
)
def test_in(text: str, expected: bool) -> None:
    assert run(text) is expected


# -- logic and precedence ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true && true", True),
        ("true && false", False),
        ("false || true", True),
        ("false || false", False),
        ("!false", True),
        ("!true", False),
        ("!!true", True),
        ("true || false && false", True),  # && binds tighter than ||
        ("(true || false) && false", False),
        ("false && true || true", True),
        ("false && (true || true)", False),
        ("!false && false", False),  # ! binds tighter than &&
        ("!(false && false)", True),
        ("1 == 1 && 2 == 2", True),  # comparison binds tighter than &&
        ("1 == 2 || 'a' in ['a']", True),
        ("!true == false", True),  # ! binds tighter than ==: (!true) == false
        ("true && true && true && false", False),
        ("false || false || false || true", True),
        ("((((true))))", True),
    ],
)
def test_logic_and_precedence(text: str, expected: bool) -> None:
    assert run(text) is expected


def test_logical_operators_do_not_short_circuit() -> None:
    # language.mdx, "Policy evaluation" (https://docs.turnkey.com/features/policies/language): the engine
    # does not short-circuit, so a type error on the side that would not decide is still the result.
    for text in ("false && !activity.type", "true || !activity.type", "true && !activity.type"):
        with pytest.raises(PolicyEvaluationError, match="'!' needs a bool"):
            run(text)
    assert run("false || true") is True and run("true && false") is False


def test_long_chains_do_not_exhaust_the_stack() -> None:
    assert run(" && ".join(["true"] * 3000)) is True
    assert run(" || ".join(["false"] * 3000)) is False


# -- list methods -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 1, 1].all(x, x == 1)", True),
        ("[1, 2, 1].all(x, x == 1)", False),
        ("[].all(x, x == 1)", True),
        ("[1, 2, 3].any(x, x == 1)", True),
        ("[1, 2, 3].any(x, x == 9)", False),
        ("[].any(x, true)", False),
        ("[1, 2, 3].filter(x, x >= 2) == [2, 3]", True),
        ("[1, 2, 3].filter(x, x > 5).count() == 0", True),
        ("[1, 2, 3].contains(2)", True),
        ("[1, 2, 3].contains(4)", False),
        ("'alice@example.com'.contains('@example')", True),
        ("'alice'.contains('bob')", False),
        ("[1, 2, 3].count() == 3", True),
        ("[1, 2, 3].count() == 2", False),
        ("approvers.all(user, user.email.contains('@example.com'))", True),
        ("approvers.filter(u, u.tags.count() > 0).any(u, u.alias == 'bob')", True),
        ("approvers.filter(u, u.tags.count() > 0).any(u, u.alias == 'carol')", False),
    ],
)
def test_list_methods(text: str, expected: bool) -> None:
    assert run(text) is expected


def test_lambda_variable_shadows_outer_names() -> None:
    # The context has a top-level 'user' ({"id": "outer"}); inside the predicate 'user' is the item.
    assert run(f"approvers.any(user, user.id == '{USER_A}')") is True
    assert run("approvers.any(user, user.id == 'outer')") is False
    assert run("user.id == 'outer' && approvers.any(user, user.id == 'u-2')") is True


def test_nested_predicates_see_outer_variables() -> None:
    text = "approvers.any(a, credentials.any(c, c.user_id == a.id))"
    assert run(text) is True
    assert run("approvers.all(a, credentials.any(c, c.user_id == a.id))") is False


# -- names ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("approvers.any(user, user.id == 'x')", {"approvers"}),
        ("activity.resource == 'WALLET' && approvers.count() >= 2", {"activity", "approvers"}),
        ("credentials.any(c, c.type == 'X') || wallet.id == 'w'", {"credentials", "wallet"}),
        ("approvers.any(user, user.id == owner.id)", {"approvers", "owner"}),
        ("[1, 2].any(x, x == 1)", set()),
        ("approvers.any(activity, activity.id == 'x') && activity.type == 'T'", {"approvers", "activity"}),
    ],
)
def test_names(text: str, names: set[str]) -> None:
    assert compile_expression(text).names() == names


# -- missing data -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("wallet.id == 'w-1'", False),
        ("wallet.id != 'w-1'", True),
        ("wallet.id == wallet.id", False),  # None equals nothing, not even None
        ("wallet.label < 'z'", False),
        ("wallet.label >= 'a'", False),
        ("wallet.id in ['w-1']", False),
        ("'w' in wallet.label", False),
        ("wallets.any(w, w.id == 'x')", False),
        ("wallets.all(w, w.id == 'x')", True),
        ("wallets.count() == 0", True),
        ("wallets.contains('x')", False),
        ("wallets.filter(w, true).count() == 0", True),
        ("wallet.imported", False),
        ("!wallet.imported", True),
        ("wallet.imported || true", True),
        ("approvers[7].id == 'x'", False),
        ("approvers[7].tags.count() == 0", True),
        ("activity.params.nope.deeper.still == 'x'", False),
        ("private_key.tags.contains('x')", False),
    ],
)
def test_missing_members_evaluate_to_none(text: str, expected: bool) -> None:
    assert run(text) is expected


def test_empty_context() -> None:
    assert run("approvers.count() >= 1", {}) is False
    assert run("activity.type == 'X'", {}) is False


# -- evaluation errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("activity.type", "produced a string, not a bool"),
        ("approvers.count()", "produced an int, not a bool"),
        ("approvers.filter(u, true)", "produced a list, not a bool"),
        ("activity.type && true", "'&&' needs a bool, got a string"),
        ("false || 1", "'||' needs a bool, got an int"),
        ("!approvers", "'!' needs a bool, got a list"),
        ("activity.type < 3", "'<' cannot compare a string with an int"),
        ("1 in 5", "'in' cannot look for an int in an int"),
        ("activity.type.any(x, true)", "'.any' needs a list, got a string"),
        ("activity.count() == 1", "'.count' needs a list, got a struct"),
        ("approvers.id == 'x'", "cannot read member 'id' of a list"),
        ("approvers['x'] == 1", "cannot index a list with a string"),
        ("approvers.any(u, u.alias)", "the predicate of '.any' needs a bool, got a string"),
        ("'abc'.contains(1)", "'.contains' on a string needs a string"),
        ("activity[0:1] == 1", "cannot slice a struct"),
    ],
)
def test_evaluation_errors(text: str, message: str) -> None:
    with pytest.raises(PolicyEvaluationError) as caught:
        run(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_context_must_be_a_mapping() -> None:
    with pytest.raises(PolicyEvaluationError, match="mapping"):
        compile_expression("true").evaluate([])  # type: ignore[arg-type]


# -- refusals -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        # The transaction keywords are supported now (tests/policy/test_transactions.py); unknown ones are not.
        ("eth.transaction.value > 5", ["unsupported construct 'eth.transaction.value > 5'", "at 0", "eth.tx"]),
        ("activity.type == 'X' && eth.tx.vaule == '0xabc'", ["\"eth.tx.vaule == '0xabc'\"", "at 24"]),
        ("approvers.any(u, u.id == solana.from)", ["'u.id == solana.from'", "at 17", "solana.tx"]),
        ("approvers.count() + 1 >= 2", ["unsupported construct '+' at 18", "arithmetic"]),
        ("activity.params.n * 2 == 4", ["unsupported construct '*'", "arithmetic"]),
        ("x[-1] == 1", ["unsupported construct '-' at 2"]),
        ("approvers.map(u, u.id)", ["unsupported construct '.map(...)' at 10", "unknown method"]),
        ("approvers.sort()", ["unsupported construct '.sort(...)'"]),
        ("len(approvers) > 1", ["unsupported construct 'len(...)' at 0", "function calls"]),
        ("a == b == c", ["unsupported construct 'a == b == c'", "chained"]),
        ("activity.type = 'X'", ["unsupported construct '=' at 14", "'=='"]),
        ("true & false", ["unsupported construct '&' at 5", "'&&'"]),
        ("true | false", ["unsupported construct '|'", "'||'"]),
        ("1.5 > 1", ["unsupported construct '1.5' at 0", "floating-point"]),
        ("0x10 == 16", ["unsupported construct '0x10'", "decimal"]),
        ("true and false", ["unsupported construct 'and' at 5", "'&&'"]),
        ("not true", ["unsupported construct 'not' at 0", "'!'"]),
        ("{ id: 'a' } == 1", ["unsupported construct '{' at 0", "struct literals"]),
        ("true ? 1 : 2", ["unsupported construct '?' at 5"]),
        ("approvers.count(1) == 1", ["unsupported construct '.count(...)' with arguments", "no arguments"]),
        ("approvers.contains()", ["unsupported construct '.contains()'"]),
        ("'a\\q'", ["unsupported construct '\\q' at 2", "escape"]),
    ],
)
def test_refused_constructs(text: str, fragments: list[str]) -> None:
    message = refusal(text)
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("activity.type == 'X' # comment", "unexpected character '#' at 21"),
        ("activity.type == @x", "unexpected character '@' at 17"),
        ("activity.type == 'X", "unterminated string literal starting at 17"),
        ("(true", "expected ')' to close the '(' at 0 at 5, found end of expression"),
        ("[1, 2", "expected ']' to close the list opened at 0 at 5"),
        ("true true", "unexpected bool true at 5"),
        ("activity.", "expected a member name after '.' at 9, found end of expression"),
        ("activity.0", "expected a member name after '.' at 9, found int 0"),
        ("approvers.any(u)", "expected ',' after the variable of '.any'"),
        ("approvers.any('u', true)", "expected a variable name as the first argument of '.any'"),
        ("approvers.any(u, true", "expected ')' to close '.any(...)'"),
        ("x[]", "unexpected ']' at 2"),
        ("x[1", "expected ']' to close the index at 3"),
        ("==", "unexpected '==' at 0"),
        ("a..b", "unexpected '..' at 1"),
        ("activity.type ==", "unexpected end of expression at 16"),
    ],
)
def test_syntax_errors_name_the_position(text: str, fragment: str) -> None:
    assert fragment in refusal(text)


def test_syntax_error_carries_the_position() -> None:
    with pytest.raises(PolicySyntaxError) as caught:
        compile_expression("true && #")
    assert caught.value.position == 8
    assert isinstance(caught.value, ValueError)


def test_a_lambda_variable_named_like_a_parser_keyword_is_just_a_variable() -> None:
    assert run("[1, 2].any(eth, eth == 2)") is True


def test_deep_nesting_is_refused_cleanly() -> None:
    assert "nested too deeply" in refusal("(" * 200 + "true" + ")" * 200)
    assert "nested too deeply" in refusal("!" * 200 + "true")
    assert run("(" * 30 + "true" + ")" * 30) is True


def test_non_string_text_is_refused() -> None:
    with pytest.raises(PolicySyntaxError, match="must be a string"):
        compile_expression(None)  # type: ignore[arg-type]


# -- the compiled object ----------------------------------------------------------------------------------


def test_expression_is_immutable_and_reusable() -> None:
    expression = compile_expression("approvers.count() >= 2")
    assert isinstance(expression, Expression)
    assert expression.text == "approvers.count() >= 2"
    assert expression.evaluate(CONTEXT) is True
    assert expression.evaluate({"approvers": [{"id": "x"}]}) is False
    with pytest.raises(AttributeError):
        expression.text = "true"  # type: ignore[misc]
    assert compile_expression("approvers.count() >= 2") is expression
