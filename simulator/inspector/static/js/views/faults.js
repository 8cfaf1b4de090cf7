// Faults: the transport faults in effect (the control API's GET /_simulator/faults), each with its match,
// how many requests it matched and hit, the requests it hit (newest last), and a button that stops it.
import { CONTROL, getJson, remove } from "../api.js";
import { empty, facts, h, json, panel, time, toast } from "../dom.js";

export function mount(root, ctx) {
  const list = h("div", { id: "fault-list" });
  root.append(list);
  let last = "";
  return {
    async update() {
      const data = await getJson(`${CONTROL}/faults`);
      const key = JSON.stringify(data);
      if (key !== last) { ctx.swap(list, listView(data.faults, ctx)); last = key; }
    },
  };
}

function listView(faults, ctx) {
  if (!faults.length) {
    return panel("", empty("No faults. Add one with POST /_simulator/faults, a scenario's faults: key, or simulator.fault(...) in a test."));
  }
  return h("div", {}, faults.map((f) => fault(f, ctx)));
}

function fault(f, ctx) {
  const options = Object.fromEntries(Object.entries(f).filter(([k]) => !["name", "kind", "match", "matched", "hits", "requests"].includes(k)));
  return h("details", { class: "item", open: true, dataset: { key: `fault-${f.name}`, fault: f.name } },
    h("summary", {},
      h("span", { class: "badge warn" }, f.kind),
      h("strong", {}, f.name),
      h("span", { class: "muted" }, `${f.hits} hit${f.hits === 1 ? "" : "s"} of ${f.matched} matched`)),
    h("div", { class: "body" },
      h("div", { class: "toolbar" },
        h("button", { type: "button", dataset: { action: "remove-fault", fault: f.name }, onclick: () => stop(f.name, ctx) }, "Remove")),
      facts([["Match", json(f.match)], ["Options", json(options)]]),
      f.requests.length ? hits(f.requests) : empty("No request hit yet.")));
}

function hits(list) {
  return h("table", {},
    h("thead", {}, h("tr", {}, ["When", "Interface", "Operation", "Organization", "Fault"].map((t) => h("th", {}, t)))),
    h("tbody", {}, list.map((r) => h("tr", { class: "fault-hit" },
      h("td", {}, time(r.timeMs)),
      h("td", {}, r.interface),
      h("td", { class: "mono" }, r.operation),
      h("td", { class: "mono" }, r.organizationId || ""),
      h("td", { class: "mono" }, JSON.stringify(r.fault))))));
}

async function stop(name, ctx) {
  try {
    await remove(`${CONTROL}/faults/${encodeURIComponent(name)}`);
    toast(`Removed fault ${name}`);
  } catch (error) {
    toast(error.message, true);
  }
  ctx.refresh();
}
