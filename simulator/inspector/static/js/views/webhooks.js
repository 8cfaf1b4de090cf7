// Webhooks: every event and each delivery attempt (status, latency, error, the signature headers it
// carried), newest first, with a resend button (the control API's resend: same event id, same body).
import { CONTROL, INSPECTOR, getJson, post } from "../api.js";
import { codeBadge, empty, facts, h, json, panel, pretty, time, toast } from "../dom.js";

const STATE_TONES = { delivered: "ok", failed: "bad", dropped: "bad", pending: "warn" };

export function mount(root, ctx) {
  const list = h("div", { id: "webhook-list" });
  root.append(list);
  let last = "";
  return {
    async update() {
      const data = await getJson(`${INSPECTOR}/webhooks`);
      const key = JSON.stringify(data);
      if (key !== last) { ctx.swap(list, listView(data, ctx)); last = key; }
    },
  };
}

function listView(data, ctx) {
  const chaos = Object.keys(data.chaos || {}).length ? panel("Chaos in effect", json(data.chaos)) : null;
  if (!data.deliveries.length) {
    return h("div", {}, chaos, panel("", empty("No deliveries yet. Set an organization's FEATURE_NAME_WEBHOOK (or a webhook endpoint) and make a request.")));
  }
  return h("div", {}, chaos, data.deliveries.map((d, index) => delivery(d, index, ctx)));
}

function delivery(d, index, ctx) {
  const last = d.attempts[d.attempts.length - 1];
  const body = parse(d.body);
  return h("details", { class: "item", dataset: { key: `delivery-${index}-${d.eventId}-${d.reason}`, eventId: d.eventId, state: d.state } },
    h("summary", {},
      h("span", { class: `badge ${STATE_TONES[d.state] || ""}` }, d.state),
      h("strong", {}, body && body.type ? body.type.replace("ACTIVITY_TYPE_", "") : "event"),
      body && body.status ? h("span", { class: "muted" }, body.status.replace("ACTIVITY_STATUS_", "")) : null,
      h("span", { class: "badge" }, d.reason),
      h("span", { class: "mono muted" }, d.eventId),
      h("span", { class: "muted" }, `→ ${d.url}`),
      h("span", {}, `${d.attempts.length} attempt${d.attempts.length === 1 ? "" : "s"}`, last ? [" · last ", codeBadge(last.status)] : null)),
    h("div", { class: "body" },
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", dataset: { action: "resend", eventId: d.eventId }, onclick: () => resend(d.eventId, ctx) }, "Resend"),
        d.state === "pending" ? h("span", { class: "muted" }, `next attempt at ${time(d.nextAttemptMs)} (simulated clock)`) : null),
      facts([["Organization", d.organizationId], ["Event type", d.eventType]]),
      d.attempts.length ? attempts(d.attempts, `${index}-${d.eventId}`) : empty("Not attempted yet."),
      h("div", { class: "muted" }, "Body"), h("pre", {}, body ? pretty(body) : d.body)));
}

function attempts(list, keyPrefix) {
  return h("table", {},
    h("thead", {}, h("tr", {}, ["#", "When", "Response", "Latency", "Signature header"].map((t) => h("th", {}, t)))),
    h("tbody", {}, list.map((a, i) => h("tr", {},
      h("td", {}, String(i + 1)),
      h("td", {}, time(a.timeMs)),
      h("td", {}, codeBadge(a.status), a.error ? h("div", { class: "error-text" }, a.error) : null,
        a.response ? h("pre", {}, a.response) : null),
      h("td", { class: "num" }, `${a.latencyMs} ms`),
      h("td", {}, h("details", { class: "item", dataset: { key: `sig-${keyPrefix}-${i}` } }, h("summary", { class: "mono" }, `X-Turnkey-Signature: ${a.headers["X-Turnkey-Signature"].slice(0, 16)}…`),
        h("pre", {}, Object.entries(a.headers).map(([k, v]) => `${k}: ${v}`).join("\n"))))))));
}

function parse(text) {
  try { return JSON.parse(text); } catch (_) { return null; }
}

async function resend(eventId, ctx) {
  try {
    await post(`${CONTROL}/webhooks/${encodeURIComponent(eventId)}/resend`, {});
    toast(`Resent event ${eventId}`);
  } catch (error) {
    toast(error.message, true);
  }
  ctx.refresh();
}
