// Building the page: every value goes in as text (names and bodies come from API clients), never as HTML.
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    // styles through the CSSOM: the page's CSP (style-src 'self') blocks every inline style="" attribute
    else if (key === "style") Object.assign(node.style, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Simulated times in UTC; to the millisecond where requests a moment apart must be told apart.
export function time(ms, withMillis = false) {
  if (ms === undefined || ms === null || ms === "") return "—";
  const date = new Date(Number(ms));
  if (Number.isNaN(date.getTime())) return String(ms);
  const text = date.toISOString().replace("T", " ");
  return withMillis ? text : text.replace(/\.\d+Z$/, "Z");
}

export function timeOf(stamp) {
  return stamp ? Number(stamp.seconds) * 1000 + Math.floor(Number(stamp.nanos) / 1e6) : null;
}

export const short = (id) => (id && id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id || "—");
export const pretty = (value) => JSON.stringify(value, null, 2);
export const strip = (name, prefix) => (name || "").replace(prefix, "");

const STATUS_TONES = { COMPLETED: "ok", FAILED: "bad", REJECTED: "bad", CONSENSUS_NEEDED: "warn", PENDING: "info", CREATED: "info" };

export function statusBadge(status) {
  const name = strip(status, "ACTIVITY_STATUS_");
  return h("span", { class: `badge ${STATUS_TONES[name] || ""}`, dataset: { status } }, name);
}

export function codeBadge(code) {
  const tone = code === null || code === undefined ? "bad" : code < 300 ? "ok" : code < 500 ? "warn" : "bad";
  return h("span", { class: `badge ${tone}` }, code === null || code === undefined ? "no answer" : String(code));
}

export function json(value) {
  return h("pre", {}, pretty(value));
}

export function facts(pairs) {
  return h("dl", { class: "facts" }, pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v ?? "—")]));
}

export function panel(title, ...children) {
  return h("section", { class: "panel" }, title ? h("h3", {}, title) : null, ...children);
}

export function empty(text) {
  return h("div", { class: "empty" }, text);
}

export function options(select, values, labels = {}) {
  const wanted = ["", ...values];
  const have = [...select.options].map((o) => o.value);
  if (wanted.join("\n") === have.join("\n")) return;
  const chosen = select.value;
  select.replaceChildren(...wanted.map((v) => h("option", { value: v }, v ? labels[v] || v : "all")));
  select.value = wanted.includes(chosen) ? chosen : "";
}

let toastTimer = null;
export function toast(message, isError = false) {
  const node = document.getElementById("toast");
  node.textContent = message;
  node.className = `toast show${isError ? " error" : ""}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.className = "toast"; }, isError ? 6000 : 2500);
}

export async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const area = h("textarea", { style: { position: "fixed", opacity: "0" } }, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  toast(`Copied ${text.length > 40 ? "to the clipboard" : text}`);
}

export function copyButton(text, label = "Copy") {
  return h("button", { class: "small", type: "button", title: "Copy to the clipboard", onclick: () => copy(text) }, label);
}

export function ident(id) {
  return h("span", { class: "mono", title: id }, short(id), " ", copyButton(id, "copy"));
}
