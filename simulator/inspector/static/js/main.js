// The page: tabs routed by the address's #fragment, a short poll that keeps the open view live,
// the token form when the control API asks for one, and the theme switch.
import { ApiError, INSPECTOR, adoptTokenFromAddress, getJson, setToken } from "./api.js";
import { time, toast } from "./dom.js";
import * as organizations from "./views/organizations.js";
import * as activities from "./views/activities.js";
import * as outbox from "./views/outbox.js";
import * as webhooks from "./views/webhooks.js";
import * as clock from "./views/clock.js";
import * as journal from "./views/journal.js";
import * as faults from "./views/faults.js";

const VIEWS = { organizations, activities, outbox, webhooks, faults, clock, journal };
const POLL_MS = 1000;
const THEME_KEY = "wallet-simulator-inspector-theme";
const ctx = { overview: null, refresh: () => tick(), navigate, swap, route: null };
let mounted = null;
let timer = null;
let running = false;

function parseRoute() {
  const [view, ...rest] = window.location.hash.replace(/^#/, "").split("/");
  return { view: VIEWS[view] ? view : "organizations", arg: decodeURIComponent(rest.join("/")) };
}

function navigate(hash) {
  if (window.location.hash === hash) tick();
  else window.location.hash = hash;
}

function show() {
  const route = parseRoute();
  const sameView = mounted && ctx.route && ctx.route.view === route.view;
  ctx.route = route;
  for (const link of document.querySelectorAll("#tabs a")) link.classList.toggle("active", link.dataset.view === route.view);
  if (!sameView) {
    const root = document.getElementById("view");
    root.replaceChildren();
    mounted = VIEWS[route.view].mount(root, ctx);
  }
  tick();
}

// Replace a region's content, keeping what the person had open, chosen or typed (by data-key).
function swap(container, node) {
  const kept = new Map();
  for (const el of container.querySelectorAll("[data-key]")) {
    kept.set(el.dataset.key, el.tagName === "DETAILS" ? el.open : el.value);
  }
  container.replaceChildren(node);
  for (const el of container.querySelectorAll("[data-key]")) {
    if (!kept.has(el.dataset.key)) continue;
    const value = kept.get(el.dataset.key);
    if (el.tagName === "DETAILS") el.open = value;
    else if ([...(el.options || [{ value }])].some((o) => o.value === value)) el.value = value;
  }
}

async function tick() {
  clearTimeout(timer);
  if (running) { timer = setTimeout(tick, 50); return; }
  running = true;
  try {
    ctx.overview = await getJson(`${INSPECTOR}/overview`);
    document.getElementById("sim-clock").textContent = `Simulated time ${time(ctx.overview.nowMs)}`;
    const kept = ctx.overview.dataDir;
    const dataDir = document.getElementById("sim-data-dir");
    dataDir.hidden = !kept;
    if (kept) dataDir.textContent = `Kept in ${kept.path} (${(kept.bytes / 1024).toFixed(1)} kB)`;
    if (mounted) await mounted.update(ctx.route);
    setLive(true, "live");
  } catch (error) {
    handle(error);
  } finally {
    running = false;
    timer = setTimeout(tick, document.hidden ? POLL_MS * 5 : POLL_MS);
  }
}

function handle(error) {
  if (error instanceof ApiError && error.status === 401) {
    document.getElementById("token-panel").hidden = false;
    document.getElementById("view").hidden = true;
    document.getElementById("token-error").textContent = sessionHasToken() ? error.message : "";
    setLive(false, "token needed");
  } else if (error instanceof ApiError) {
    setLive(true, "live");
    toast(error.message, true);
  } else if (error instanceof TypeError && /fetch/i.test(error.message)) {
    setLive(false, "simulator unreachable");
  } else {
    setLive(false, "page error");  // a bug in the page: say what it is rather than blame the network
    toast(`The page failed to show this view: ${error.message}`, true);
  }
}

const sessionHasToken = () => Boolean(sessionStorage.getItem("wallet-simulator-control-token"));

function setLive(ok, text) {
  const node = document.getElementById("live");
  node.textContent = text;
  node.className = `live ${ok ? "ok" : "bad"}`;
  if (ok) {
    document.getElementById("token-panel").hidden = true;
    document.getElementById("view").hidden = false;
  }
}

function setupToken() {
  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setToken(document.getElementById("token-input").value.trim());
    document.getElementById("token-input").value = "";
    tick();
  });
}

function setupTheme() {
  const select = document.getElementById("theme");
  const apply = (theme) => {
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  };
  select.value = localStorage.getItem(THEME_KEY) || "auto";
  apply(select.value);
  select.addEventListener("change", () => { localStorage.setItem(THEME_KEY, select.value); apply(select.value); });
}

// Links to the export, import and auth frame pages (simulator/frames), served beside the inspector:
// the ready line's exportIframeUrl, importIframeUrl and authIframeUrl.
function setupFrameLinks() {
  const nav = document.getElementById("frames");
  nav.append("frames:");
  for (const kind of ["export", "import", "auth"]) {
    const link = document.createElement("a");
    Object.assign(link, { href: `/frames/${kind}`, target: "_blank", rel: "noopener", textContent: kind });
    link.title = `${kind}IframeUrl`;
    nav.append(" ", link);
  }
}

adoptTokenFromAddress();
setupToken();
setupTheme();
setupFrameLinks();
window.addEventListener("hashchange", show);
document.addEventListener("visibilitychange", () => { if (!document.hidden) tick(); });
show();
