"""Client strings that are numbers but not finite ("NaN", "Infinity", "sNaN") are refused with a 400
naming the field, never a 500, whether or not the body breaks something else too (issue 34)."""

from __future__ import annotations

import pytest
from conftest import DEFAULTS
from support import assert_error

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
