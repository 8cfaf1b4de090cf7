"""The threaded server under concurrent writers: nothing lost, every id unique."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from conftest import ok

THREADS, EACH = 8, 6


def test_concurrent_wallets_and_tags_lose_nothing(client):
    def work(worker: int) -> list[str]:
        ids = []
        for i in range(EACH):
            wallet = client.submit(
                "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {"walletName": f"w-{worker}-{i}", "accounts": []}
            )
            tag = client.submit(
                "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", {"userTagName": f"t-{worker}-{i}", "userIds": []}
            )
            ids += [ok(wallet)["activity"]["id"], ok(tag)["activity"]["id"]]
        return ids

    with ThreadPoolExecutor(THREADS) as pool:
        activity_ids = [i for ids in pool.map(work, range(THREADS)) for i in ids]
    assert len(set(activity_ids)) == THREADS * EACH * 2
    wallets = ok(client.query("list_wallets"))["wallets"]
    tags = ok(client.query("list_user_tags"))["userTags"]
    assert len({w["walletId"] for w in wallets}) == len(wallets) == THREADS * EACH
    assert len({t["tagId"] for t in tags}) == len(tags) == THREADS * EACH
    listed = ok(client.query("list_activities", paginationOptions={"limit": "100"}))["activities"]
    assert len(listed) == THREADS * EACH * 2
