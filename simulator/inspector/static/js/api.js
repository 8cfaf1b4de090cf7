// Talking to the simulator: the inspector's JSON (/_simulator/ui/api) and the control API (/_simulator),
// with the control token, when one is set, on every request.
const TOKEN_KEY = "wallet-simulator-control-token";
export const CONTROL = "/_simulator";
export const INSPECTOR = "/_simulator/ui/api";

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// A token given as ?token=... is kept for this tab and taken out of the address bar.
export function adoptTokenFromAddress() {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token");
  if (token) {
    setToken(token);
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra) {
  const out = { Accept: "application/json", ...extra };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) out["X-Simulator-Control-Token"] = token;
  return out;
}

async function send(method, path, body) {
  // every call that changes something says JSON, an empty DELETE included: the control API refuses other types,
  // which a page on another site could send without a preflight
  const init = { method, headers: headers(method === "GET" ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { message: text }; }
  if (!response.ok) {
    const message = (data && data.message) || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, data);
  }
  return data;
}

export const getJson = (path) => send("GET", path);
export const post = (path, body = {}) => send("POST", path, body);
export const remove = (path) => send("DELETE", path);

// The state export, saved as a file: fetched with the token, then handed to the browser as a download.
export async function download(path, filename) {
  const response = await fetch(path, { headers: headers({}) });
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`, null);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}
