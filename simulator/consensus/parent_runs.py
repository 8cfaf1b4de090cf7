"""A parent organization's user running an authentication activity (OTP, OAuth, e-mail auth, sessions)
for one of its sub-organizations: whether the parent's own governance allows it.

The simulator lets every parent user run them (the pipeline's "a parent organization runs
authentication activities for its sub-organizations"), but the pages that describe these flows say
the API user needs a policy in the parent organization for them (email.mdx and sms.mdx,
"Prerequisites": AUTH CREATE, OTP CREATE and VERIFY, ORGANIZATION CREATE), and that the parent's
policies are the ones evaluated (email.mdx's note on a key present in both organizations). Refusing
now would break suites written against the earlier behaviour, so such a request is warned about
(docs/ledger/docs-identity.yaml, parent-runs-need-a-parent-policy); a root user of the parent needs
no policy.
"""

from __future__ import annotations

from simulator.consensus import engine
from simulator.consensus.decisions import Outcome
from simulator.operations.catalogue import Operation
from simulator.state.records import User
from simulator.state.store import Organization
from simulator.wire import Json


def unallowed(
    parent: Organization,
    spec: Operation,
    activity_type: str,
    params: Json,
    user: User,
    used: list[Json],
    now_ms: int,
) -> str | None:
    """The warning for a non-root parent user no parent policy allows to run this activity, else None."""
    if user.user_id in parent.root_user_ids:
        return None
    decision = engine.evaluate_policies(parent, spec, activity_type, params, [user], used, now_ms=now_ms)
    if decision.outcome == Outcome.ALLOW:
        return None
    return (
        f"no policy of the parent organization {parent.organization_id} allows user {user.user_id} to run "
        f"{activity_type} for a sub-organization (outcome {decision.outcome.value}); the service refuses it "
        "403 (email.mdx and sms.mdx, Prerequisites: a policy allowing AUTH CREATE, OTP CREATE and VERIFY, "
        "ORGANIZATION CREATE); the simulator runs it"
    )
