// Journal: the requests the simulator answered, newest first, with status, duration and error; by operation.
import { INSPECTOR, getJson } from "../api.js";
import { codeBadge, empty, h, json, options, panel, time } from "../dom.js";

export function mount(root, ctx) {
  const op = h("select", { id: "journal-op" });
  op.addEventListener("change", () => ctx.refresh());
  const list = h("div", { id: "journal-list", class: "panel" });
  root.append(h("div", { class: "toolbar" }, h("label", {}, "Operation", op),
    h("span", { class: "muted" }, "The main port's API calls and the control calls that change state (timed), and the auth proxy's calls (from the journal).")), list);
  let last = "";
  return {
    async update() {
      const data = await getJson(`${INSPECTOR}/requests${op.value ? `?${new URLSearchParams({ op: op.value })}` : ""}`);
      options(op, data.operations);
      const key = JSON.stringify(data.entries);
      if (key !== last) { ctx.swap(list, listView(data.entries)); last = key; }
    },
  };
}

function listView(entries) {
  if (!entries.length) return empty("No requests yet.");
  return h("div", {},
    h("div", { class: "journal-head muted" }, h("div", { class: "journal-row" }, ["Time (simulated)", "Kind", "Operation", "Status", "Duration", "Error"].map((t) => h("strong", {}, t)))),
    entries.map((e) => h("details", { class: "item", dataset: { key: `req-${e.kind}-${e.seq || e.timeMs}-${e.op}`, op: e.op } },
      h("summary", {}, h("div", { class: "journal-row" },
        h("span", { class: "mono" }, time(e.timeMs, true)),
        h("span", { class: "badge" }, e.kind),
        h("span", { class: "mono" }, e.op),
        h("span", {}, codeBadge(e.status)),
        h("span", { class: "num" }, e.durationMs === null || e.durationMs === undefined ? "—" : `${e.durationMs} ms`),
        h("span", { class: "error-text" }, e.error ? `${e.errorCode ? `${e.errorCode}: ` : ""}${e.error}` : (e.warnings && e.warnings.length ? h("span", { class: "warning-text" }, `${e.warnings.length} warning(s)`) : "")))),
      h("div", { class: "body" },
        (e.warnings || []).map((w) => h("p", { class: "warning-text" }, "Warning: ", w)),
        e.activityId ? h("p", {}, "Activity ", h("a", { href: `#activities/${e.activityId}` }, e.activityId), e.activityStatus ? ` (${e.activityStatus})` : "") : null,
        e.request && Object.keys(e.request).length ? [h("div", { class: "muted" }, "Request body"), json(e.request)] : h("p", { class: "muted" }, "No body.")))));
}
