"""Client strings that are numbers but not finite ("NaN", "Infinity", "sNaN") are refused with a 400
naming the field, never a 500, whether or not the body breaks something else too (issue 34)."""

from __future__ import annotations

import json

import pytest
from conftest import DEFAULTS, ROOT
from support import assert_error

from simulator.config import Config
from simulator.core import Simulator
from simulator.web.app import create_app

NOT_FINITE = ["NaN", "nan", "-NaN", "sNaN", "Infinity", "-Infinity", "inf", "-inf", "+Inf"]


@pytest.mark.parametrize("value", NOT_FINITE)
@pytest.mark.parametrize("also_broken", [False, True], ids=["alone", "with-another-violation"])
def test_a_non_finite_limit_is_a_400_naming_the_field(client, value, also_broken):
    extra = {"colour": "red"} if also_broken else {}
    response = client.query(
        "list_suborgs", organizationId=DEFAULTS["organizationId"], paginationOptions={"limit": value}, **extra
    )
    body = assert_error(response, 400, 3, "invalid request body")
    fields = {v["field"] for v in body["details"][1]["fieldViolations"]}
    assert "$.paginationOptions.limit" in fields


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "sNaN"])
def test_a_non_finite_limit_on_activities_is_a_400(client, value):
    response = client.query(
        "list_activities", organizationId=DEFAULTS["organizationId"], paginationOptions={"limit": value}, x=1
    )
    body = assert_error(response, 400, 3, "invalid request body")
    assert "$.paginationOptions.limit" in {v["field"] for v in body["details"][1]["fieldViolations"]}


# str.isdigit() takes "²" (int() refuses it) and "١" (int() reads it as 1); int() refuses 4,300+ digits
ODD_DIGITS = ["²", "١", "1" + "0" * 5000]


@pytest.mark.parametrize("element", ODD_DIGITS, ids=["superscript", "arabic-indic", "5001-digits"])
def test_a_path_element_that_is_not_ascii_digits_is_a_400(client, element):
    account = {
        "curve": "CURVE_SECP256K1",
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": f"m/44'/60'/0'/0/{element}",
        "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
    }
    response = client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": "w", "accounts": [account]})
    assert_error(response, 400, 3, "invalid path format")


@pytest.mark.parametrize("value", ODD_DIGITS, ids=["superscript", "arabic-indic", "5001-digits"])
def test_inspector_list_sizes_that_are_not_ascii_digits_are_a_400(value):
    app = create_app(Simulator(Config(seed=3, inspector=True)))
    with app.test_client().get("/_simulator/ui/api/activities", query_string={"limit": value}) as response:
        assert response.status_code == 400, response.get_data(as_text=True)
        assert "limit must be a whole number" in response.get_json()["message"]


@pytest.mark.parametrize("value", ODD_DIGITS, ids=["superscript", "arabic-indic", "5001-digits"])
@pytest.mark.parametrize(("op", "field"), [("upsert_swap_config", "feeBps"), ("create_swap_quote", "inputAmount")])
def test_swap_amounts_and_fees_that_are_not_ascii_digits_are_a_400(client, op, field, value):
    """standins.longtail.amount and .bps read these with int(): "²" and 4,300+ digits were a 500."""
    body = json.loads((ROOT / "fixtures" / "requests" / "submit" / f"{op}.json").read_text())
    body["parameters"][field] = value
    assert_error(client.submit(op, body["type"], body["parameters"]), 400, 3, field)


@pytest.mark.parametrize("value", ["١٢", "1_0", " 5 ", "5\n", "²"])
def test_a_pagination_limit_int_would_read_but_a_strict_parser_would_not_is_a_400(client, value):
    response = client.query(
        "list_suborgs", organizationId=DEFAULTS["organizationId"], paginationOptions={"limit": value}
    )
    assert_error(response, 400, 3, "pagination limit")


def test_a_pagination_limit_with_a_plus_sign_still_reads(client):
    response = client.query(
        "list_suborgs", organizationId=DEFAULTS["organizationId"], paginationOptions={"limit": "+5"}
    )
    assert response.status == 200, response.body
