// Clock and scenarios: the simulated time and moving it, reset, shipped scenarios, snapshots, the state export.
import { CONTROL, download, post } from "../api.js";
import { empty, h, panel, time, toast } from "../dom.js";

export function mount(root, ctx) {
  const seconds = h("input", { id: "advance-seconds", type: "number", min: "0", step: "any", value: "60", size: 8 });
  const now = h("div", { class: "big-clock", id: "clock-now" });
  const about = h("div", { class: "muted", id: "clock-about" });
  const scenarios = h("div", { id: "scenario-list" });
  const snapshots = h("div", { id: "snapshot-list" });
  const act = (label, call) => async () => {
    try { await call(); toast(label); } catch (error) { toast(error.message, true); }
    ctx.refresh();
  };
  const advance = (s) => act(`Clock moved ${s} s`, () => post(`${CONTROL}/clock/advance`, { seconds: Number(s) }));
  root.append(h("div", { class: "cards" },
    panel("Simulated clock", now, about,
      h("div", { class: "toolbar" },
        h("label", {}, "Seconds", seconds),
        h("button", { type: "button", class: "primary", id: "advance", onclick: () => advance(seconds.value)() }, "Advance"),
        h("button", { type: "button", onclick: advance(60) }, "+1 min"),
        h("button", { type: "button", onclick: advance(3600) }, "+1 h"),
        h("button", { type: "button", onclick: advance(86400) }, "+1 day"))),
    panel("Reset and state",
      h("p", { class: "muted" }, "Reset puts back the loaded scenarios: state, random source, clock; the journal and webhook log are emptied."),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "danger", id: "reset", onclick: act("Reset to the loaded scenarios", () => post(`${CONTROL}/reset`, {})) }, "Reset"),
        h("button", { type: "button", id: "download-state", onclick: act("State export downloaded", () => download(`${CONTROL}/state`, "simulator-state.json")) }, "Download state export")),
      h("p", { class: "muted" }, "The export holds every private key, mnemonic and passkey key in the clear: keep it private.")),
    panel("Snapshots",
      h("div", { class: "toolbar" }, h("button", { type: "button", id: "take-snapshot", onclick: act("Snapshot taken", () => post(`${CONTROL}/snapshots`, {})) }, "Take snapshot")),
      snapshots)),
  panel("Shipped scenarios", scenarios));
  let last = "";
  return {
    async update() {
      const o = ctx.overview;
      now.textContent = time(o.nowMs);
      about.textContent = `${o.frozen ? "frozen" : "running"} · seed ${o.seed} · loaded: ${o.loadedScenarios.join(", ")}`;
      const key = JSON.stringify([o.scenarios, o.snapshots, o.loadedScenarios]);
      if (key === last) return;
      last = key;
      ctx.swap(snapshots, o.snapshots.length ? h("ul", {}, o.snapshots.map((id) => h("li", {}, h("span", { class: "mono" }, id), " ",
        h("button", { type: "button", class: "small", dataset: { snapshot: id }, onclick: act(`Restored ${id}`, () => post(`${CONTROL}/snapshots/${id}/restore`, {})) }, "Restore")))) : empty("None taken yet."));
      ctx.swap(scenarios, h("table", {}, h("tbody", {}, o.scenarios.map((s) => h("tr", {},
        h("td", { class: "mono" }, s.name), h("td", {}, s.description),
        h("td", {}, h("button", { type: "button", class: "small", dataset: { scenario: s.name }, onclick: act(`Loaded ${s.name}`, () => post(`${CONTROL}/scenarios`, { paths: [s.name], replace: true })) }, "Load")))))));
    },
  };
}
