// Organizations: the tree on the left; the chosen one's users, wallets, keys, policies and settings.
import { INSPECTOR, getJson } from "../api.js";
import { empty, facts, h, ident, json, panel, strip, time, timeOf } from "../dom.js";

export function mount(root, ctx) {
  const tree = h("nav", { class: "panel", "aria-label": "Organizations" });
  const details = h("div", { id: "org-details" });
  root.append(h("div", { class: "grid-2" }, tree, details));
  let lastTree = "";
  let lastDetails = "";
  return {
    async update(route) {
      const { organizations } = await getJson(`${INSPECTOR}/organizations`);
      const chosen = organizations.some((o) => o.organizationId === route.arg) ? route.arg : organizations[0]?.organizationId;
      const treeKey = JSON.stringify([organizations, chosen]);
      if (treeKey !== lastTree) { ctx.swap(tree, treeView(organizations, chosen, ctx)); lastTree = treeKey; }
      if (!chosen) { details.replaceChildren(empty("No organizations: load a scenario (Clock & scenarios).")); return; }
      const org = await getJson(`${INSPECTOR}/organizations/${encodeURIComponent(chosen)}`);
      const key = JSON.stringify(org);
      if (key !== lastDetails) { ctx.swap(details, orgView(org, ctx)); lastDetails = key; }
    },
  };
}

function treeView(organizations, chosen, ctx) {
  return h("div", {},
    h("h3", {}, `Organizations (${organizations.length})`),
    h("ul", { class: "tree" }, organizations.map((o) => h("li", {},
      h("button", {
        type: "button", class: o.organizationId === chosen ? "selected" : "",
        style: { paddingLeft: `${8 + o.depth * 16}px` }, dataset: { org: o.organizationId },
        onclick: () => ctx.navigate(`#organizations/${o.organizationId}`),
      }, o.depth ? "↳ " : "", o.name, o.detached ? " (deleted)" : "",
      h("span", { class: "count", title: "users · wallets · activities" },
        `${o.counts.users} · ${o.counts.wallets} · ${o.counts.activities}`))))));
}

function orgView(org, ctx) {
  return h("div", {},
    h("section", { class: "panel" },
      h("h2", {}, org.name),
      facts([
        ["Organization id", ident(org.organizationId)],
        ["Parent", org.parentId ? h("a", { href: `#organizations/${org.parentId}` }, org.parentName || org.parentId) : "— (top level)"],
        ["Sub-organizations", org.children.length ? org.children.map((c, i) => [i ? ", " : "", h("a", { href: `#organizations/${c.organizationId}` }, c.name)]) : "none"],
        ["Created", time(org.createdMs)],
        ["Root quorum", `${org.rootQuorum.threshold} of ${org.rootQuorum.users.length}: ${org.rootQuorum.users.map((u) => u.userName || u.userId).join(", ") || "nobody"}`],
        ["Features", org.features.length ? org.features.map((f) => `${strip(f.name, "FEATURE_NAME_")}${f.value ? ` = ${f.value}` : ""}`).join("; ") : "none"],
      ])),
    usersPanel(org.users),
    walletsPanel(org.wallets),
    privateKeysPanel(org.privateKeys),
    policiesPanel(org.policies),
    settingsPanels(org));
}

function usersPanel(users) {
  return panel(`Users (${users.length})`, users.length ? h("table", {},
    h("thead", {}, h("tr", {}, ["Name", "Contact", "Tags", "API keys", "Authenticators"].map((t) => h("th", {}, t)))),
    h("tbody", {}, users.map((u) => h("tr", { dataset: { user: u.userName } },
      h("td", {}, h("strong", {}, u.userName), h("div", { class: "muted mono" }, u.userId)),
      h("td", {}, [u.userEmail, u.userPhoneNumber].filter(Boolean).join(" · ") || "—"),
      h("td", {}, u.tagNames.join(", ") || "—"),
      h("td", {}, u.apiKeys.length ? u.apiKeys.map((k) => h("div", {},
        `${k.apiKeyName} `, h("span", { class: "badge" }, strip(k.credential.type, "CREDENTIAL_TYPE_")),
        h("div", { class: "mono muted wrap" }, k.credential.publicKey))) : "—"),
      h("td", {}, u.authenticators.length ? u.authenticators.map((a) => h("div", {},
        a.authenticatorName, h("div", { class: "mono muted wrap" }, a.credentialId))) : "—"))))) : empty("No users."));
}

function flags(item) {
  return [item.exported ? h("span", { class: "badge warn" }, "exported") : null,
    item.imported ? h("span", { class: "badge info" }, "imported") : null];
}

function walletsPanel(wallets) {
  return panel(`Wallets (${wallets.length})`, wallets.length ? wallets.map((w) => h("details", {
    class: "item", dataset: { key: `wallet-${w.walletId}`, walletName: w.walletName }, open: wallets.length <= 3,
  },
  h("summary", {}, h("strong", {}, w.walletName), h("span", { class: "mono muted" }, w.walletId),
    `${w.accounts.length} account${w.accounts.length === 1 ? "" : "s"}`, flags(w), h("span", { class: "muted" }, time(timeOf(w.createdAt)))),
  h("div", { class: "body" }, w.accounts.length ? h("table", {},
    h("thead", {}, h("tr", {}, ["Address", "Format", "Curve", "Path", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, w.accounts.map((a) => h("tr", {},
      h("td", { class: "mono wrap" }, a.address),
      h("td", {}, strip(a.addressFormat, "ADDRESS_FORMAT_")),
      h("td", {}, strip(a.curve, "CURVE_")),
      h("td", { class: "mono" }, a.path, h("div", { class: "muted" }, strip(a.pathFormat, "PATH_FORMAT_"))),
      h("td", {}, flags(a)))))) : empty("No accounts.")))) : empty("No wallets."));
}

function privateKeysPanel(keys) {
  return panel(`Private keys (${keys.length})`, keys.length ? h("table", {},
    h("thead", {}, h("tr", {}, ["Name", "Curve", "Addresses", "Tags", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, keys.map((k) => h("tr", {},
      h("td", {}, h("strong", {}, k.privateKeyName), h("div", { class: "mono muted" }, k.privateKeyId)),
      h("td", {}, strip(k.curve, "CURVE_")),
      h("td", { class: "mono wrap" }, k.addresses.map((a) => h("div", {}, `${strip(a.format, "ADDRESS_FORMAT_")}: ${a.address}`))),
      h("td", {}, k.tagNames.join(", ") || "—"),
      h("td", {}, flags(k)))))) : empty("No private keys."));
}

function policiesPanel(policies) {
  return panel(`Policies (${policies.length})`, policies.length ? policies.map((p) => h("details", {
    class: "item", dataset: { key: `policy-${p.policyId}` }, open: policies.length <= 4,
  },
  h("summary", {}, h("strong", {}, p.policyName),
    h("span", { class: `badge ${p.effect === "EFFECT_ALLOW" ? "ok" : "bad"}` }, strip(p.effect, "EFFECT_")),
    h("span", { class: "mono muted" }, p.policyId)),
  h("div", { class: "body" },
    p.notes ? h("p", { class: "muted" }, p.notes) : null,
    h("div", { class: "muted" }, "condition"), h("pre", {}, p.condition || "(none: always applies)"),
    h("div", { class: "muted" }, "consensus"), h("pre", {}, p.consensus || "(none)")))) : empty("No policies."));
}

function settingsPanels(org) {
  return h("div", { class: "cards" },
    panel("Auth proxy", org.authProxy.length ? org.authProxy.map((c) => json(c)) : empty("Not configured (POST /_simulator/auth-proxy).")),
    panel("Webhook endpoints", org.webhookEndpoints.length ? org.webhookEndpoints.map((e) => json(e)) : empty("None.")),
    panel("Tags", org.tags.length ? h("ul", {}, org.tags.map((t) => h("li", {}, `${t.tagName} `, h("span", { class: "badge" }, strip(t.tagType, "TAG_TYPE_"))))) : empty("None.")));
}
