// Activities: a live list (newest first, filtered by status, type and organization) and the chosen
// one's whole story, with approve and reject buttons (the control API's votes) while it waits.
import { CONTROL, INSPECTOR, getJson, post } from "../api.js";
import { empty, facts, h, ident, json, options, panel, statusBadge, strip, time, toast } from "../dom.js";

export function mount(root, ctx) {
  const status = h("select", { id: "filter-status" });
  const type = h("select", { id: "filter-type" });
  const org = h("select", { id: "filter-org" });
  for (const select of [status, type, org]) select.addEventListener("change", () => ctx.refresh());
  const list = h("div", { class: "panel", id: "activity-list" });
  const story = h("div", { id: "activity-story" });
  root.append(
    h("div", { class: "toolbar" }, h("label", {}, "Status", status), h("label", {}, "Type", type), h("label", {}, "Organization", org)),
    h("div", { class: "split" }, list, story));
  let lastList = "";
  let lastStory = "";
  return {
    async update(route) {
      const query = new URLSearchParams({ status: status.value, type: type.value, organizationId: org.value });
      const data = await getJson(`${INSPECTOR}/activities?${query}`);
      options(status, data.statuses, Object.fromEntries(data.statuses.map((s) => [s, strip(s, "ACTIVITY_STATUS_")])));
      options(type, data.types, Object.fromEntries(data.types.map((t) => [t, strip(t, "ACTIVITY_TYPE_")])));
      options(org, data.organizations, orgLabels(data.activities));
      const listKey = JSON.stringify([data, route.arg]);
      if (listKey !== lastList) { ctx.swap(list, listView(data, route.arg, ctx)); lastList = listKey; }
      if (!route.arg) { story.replaceChildren(panel("", empty("Choose an activity to see its request, stamp, votes, policy evaluations and result."))); lastStory = ""; return; }
      const found = await getJson(`${INSPECTOR}/activities/${encodeURIComponent(route.arg)}`).catch((e) => ({ missing: e.message }));
      const storyKey = JSON.stringify(found);
      if (storyKey !== lastStory) { ctx.swap(story, found.missing ? panel("", empty(found.missing)) : storyView(found, ctx)); lastStory = storyKey; }
    },
  };
}

function orgLabels(rows) {
  return Object.fromEntries(rows.map((a) => [a.organizationId, a.organizationName || a.organizationId]));
}

function listView(data, chosen, ctx) {
  if (!data.activities.length) return empty("No activities yet. They appear here as your app makes requests.");
  const more = data.total > data.activities.length ? h("div", { class: "muted" }, `showing the newest ${data.activities.length} of ${data.total}`) : null;
  return h("div", { class: "rows" }, more, data.activities.map((a) => h("div", {
    class: `row${a.id === chosen ? " selected" : ""}`, role: "button", tabindex: "0",
    dataset: { activityId: a.id, type: a.type }, onclick: () => ctx.navigate(`#activities/${a.id}`),
    onkeydown: (e) => { if (e.key === "Enter") ctx.navigate(`#activities/${a.id}`); },
  },
  h("div", {}, statusBadge(a.status)),
  h("div", {}, h("div", { class: "title" }, strip(a.type, "ACTIVITY_TYPE_")),
    h("div", { class: "sub" }, `${a.requester ? a.requester.userName || a.requester.userId : "—"} · ${a.organizationName || a.organizationId}`)),
  h("div", { class: "sub" }, time(a.createdMs)))));
}

function storyView(s, ctx) {
  const a = s.activity;
  return h("div", {},
    h("section", { class: "panel" },
      h("h2", {}, strip(a.type, "ACTIVITY_TYPE_"), " ", statusBadge(a.status)),
      facts([
        ["Activity id", ident(a.id)],
        ["Organization", h("a", { href: `#organizations/${a.organizationId}` }, s.organizationName || a.organizationId)],
        ["Requested by", s.requester ? `${s.requester.userName || "?"} (${s.requester.userId})` : "—"],
        ["Stamped with", s.stamp ? `${strip(s.stamp.scheme || "", "SIGNATURE_SCHEME_")} key ${s.stamp.publicKey || s.stamp.credentialId || "?"}` : "— (no stamp)"],
        ["Fingerprint", h("span", { class: "mono" }, a.fingerprint)],
        ["Created", time(s.timings.createdMs)],
        ["Updated", time(s.timings.updatedMs)],
        ["Request took", s.timings.requestDurationMs === null ? "— (not timed)" : `${s.timings.requestDurationMs} ms`],
        ["Decided by", s.explanation.decidedBy || "—"],
      ])),
    a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? voteBox(s, ctx) : null,
    s.rule ? panel("Scripted rule that applied", json(s.rule)) : null,
    waitingPanel(s),
    panel("Votes", votesTable(a.votes)),
    evaluationsPanel(s),
    panel("Request body", s.request ? [h("div", { class: "muted" }, s.request.source === "journal" ? "from the journal" : "the stamped body (the requester's vote)"), json(s.request.body)] : empty("Not known.")),
    a.failure ? panel("Failure", json(a.failure)) : null,
    panel("Result", Object.keys(a.result || {}).length ? json(withoutEcho(a.result)) : empty("No result (yet).")),
    s.explanation.steps.length ? panel("Steps", h("ol", {}, s.explanation.steps.map((step) => h("li", {}, step)))) : null);
}

function withoutEcho(result) {
  const { activity, ...rest } = result;  // the service repeats the activity inside its result
  return rest;
}

function voteBox(s, ctx) {
  const eligible = s.voters.filter((v) => v.canVote);
  const voters = [...eligible, ...s.voters.filter((v) => !v.canVote)];
  const select = h("select", { id: "vote-user", dataset: { key: `voter-${s.activity.id}` } }, voters.map((v) => h("option", { value: v.userId },
    `${v.userName}${v.voted ? ` (voted ${strip(v.voted, "VOTE_SELECTION_").toLowerCase()})` : v.canVote ? "" : " (not eligible)"}`)));
  const vote = (action) => async () => {
    try {
      const result = await post(`${CONTROL}/activities/${encodeURIComponent(s.activity.id)}/${action}`, { userId: select.value });
      toast(`${action === "approve" ? "Approved" : "Rejected"}: ${strip(result.activity ? result.activity.status : result.status, "ACTIVITY_STATUS_")}`);
    } catch (error) {
      toast(error.message, true);
    }
    ctx.refresh();
  };
  return h("section", { class: "vote-box" },
    h("strong", {}, "Waiting for consensus."), h("label", {}, "Vote as ", select),
    h("button", { type: "button", class: "primary", dataset: { action: "approve" }, onclick: vote("approve") }, "Approve"),
    h("button", { type: "button", class: "danger", dataset: { action: "reject" }, onclick: vote("reject") }, "Reject"),
    h("span", { class: "muted" }, eligible.length ? `${eligible.length} user(s) may still vote` : "nobody eligible is left to vote"));
}

function waitingPanel(s) {
  const waiting = s.explanation.waitingFor || {};
  if (s.activity.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED" || !Object.keys(waiting).length) return null;
  const names = Object.fromEntries(s.voters.map((v) => [v.userId, v.userName]));
  const list = (ids) => (ids && ids.length ? ids.map((id) => names[id] || id).join(", ") : undefined);
  return panel("Waiting for", facts([
    ["Decided by", waiting.by === "root" ? "the root quorum" : waiting.by],
    ["Threshold", waiting.threshold ?? waiting.approvals],
    ["Eligible", list(waiting.eligible) || "anyone in the organization"],
    ["Named approvers", list(waiting.approvers)],
    ["App proofs", waiting.proofs ? "requested" : undefined],
  ]));
}

function votesTable(votes) {
  if (!votes.length) return empty("No votes.");
  return h("table", {},
    h("thead", {}, h("tr", {}, ["User", "Selection", "Key", "Scheme", "When"].map((t) => h("th", {}, t)))),
    h("tbody", {}, votes.map((v) => h("tr", {},
      h("td", {}, (v.user && v.user.userName) || v.userId),
      h("td", {}, h("span", { class: `badge ${v.selection === "VOTE_SELECTION_APPROVED" ? "ok" : "bad"}` }, strip(v.selection, "VOTE_SELECTION_"))),
      h("td", { class: "mono wrap" }, v.publicKey || "—"),
      h("td", {}, strip(v.scheme || "", "SIGNATURE_SCHEME_")),
      h("td", {}, v.createdAt ? time(Number(v.createdAt.seconds) * 1000) : "—")))));
}

function evaluationsPanel(s) {
  const evaluations = s.explanation.policyEvaluations || [];
  const byId = Object.fromEntries(s.policies.map((p) => [p.policyId, p]));
  const outcomes = evaluations.flatMap((e) => e.policyEvaluations.map((o) => ({ ...o, voteId: e.voteId })));
  // each policy considered for a denied or errored activity: the clause that errored, and warnings
  const considered = Object.fromEntries((s.explanation.policies || []).map((p) => [p.policyId, p]));
  const notes = (o) => {
    const c = considered[o.policyId];
    if (!c) return [];
    return [c.clause ? h("div", { class: "mono muted wrap" }, c.clause) : null,
      ...(c.warnings || []).map((w) => h("div", { class: "warn wrap" }, `warning: ${w}`))];
  };
  return panel("Policy evaluations", outcomes.length ? [
    h("table", {}, h("thead", {}, h("tr", {}, ["Policy", "Outcome", "Vote"].map((t) => h("th", {}, t)))),
      h("tbody", {}, outcomes.map((o) => h("tr", {},
        h("td", {}, o.policyId ? (byId[o.policyId] ? byId[o.policyId].policyName || o.policyId : o.policyId) : h("span", { class: "muted" }, "(root quorum / no policy)")),
        h("td", {}, h("span", { class: `badge ${/ALLOW/.test(o.outcome) ? "ok" : /DENY|REJECT/.test(o.outcome) ? "bad" : "warn"}` }, strip(o.outcome, "OUTCOME_")),
          o.reason ? h("div", { class: "muted wrap" }, o.reason) : null, ...notes(o)),
        h("td", { class: "mono muted" }, o.voteId ? o.voteId.slice(0, 8) : "—"))))),
    s.policies.map((p) => h("details", { class: "item", dataset: { key: `story-policy-${p.policyId}` }, open: true },
      h("summary", {}, h("strong", {}, p.policyName || p.policyId), p.effect ? h("span", { class: "badge" }, strip(p.effect, "EFFECT_")) : null,
        p.deleted ? h("span", { class: "badge bad" }, "deleted since") : null),
      h("div", { class: "body" }, h("div", { class: "muted" }, "condition"), h("pre", {}, p.condition || "(none)"),
        h("div", { class: "muted" }, "consensus"), h("pre", {}, p.consensus || "(none)"),
        p.time ? [h("div", { class: "muted" }, "time"), h("pre", {}, p.time)] : null))),
  ] : empty("No policy evaluations recorded."));
}
