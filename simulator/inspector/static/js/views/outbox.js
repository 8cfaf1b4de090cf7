// Outbox: every OTP and recovery message the simulator "sent", newest first, code ready to copy.
import { CONTROL, getJson } from "../api.js";
import { copyButton, empty, facts, h, json, panel, strip, time, timeOf } from "../dom.js";

export function mount(root, ctx) {
  const contact = h("input", { id: "outbox-contact", type: "search", placeholder: "e-mail or phone", size: 28 });
  contact.addEventListener("input", () => ctx.refresh());
  const list = h("div", { id: "outbox-list" });
  root.append(h("div", { class: "toolbar" }, h("label", {}, "Contact", contact)), list);
  let last = "";
  return {
    async update() {
      const query = contact.value.trim() ? `?${new URLSearchParams({ contact: contact.value.trim() })}` : "";
      const { messages } = await getJson(`${CONTROL}/outbox${query}`);
      const key = JSON.stringify(messages);
      if (key !== last) { ctx.swap(list, listView(messages.slice().reverse())); last = key; }
    },
  };
}

function listView(messages) {
  if (!messages.length) return panel("", empty("Nothing sent yet: an init_otp (or an e-mail recovery) lands here with its code."));
  return h("div", { class: "cards" }, messages.map((m) => h("section", { class: "panel otp", dataset: { otpId: m.otpId || "", contact: m.contact } },
    h("div", { class: "muted" }, `${strip(m.channel || "", "OTP_TYPE_")} to `, h("strong", {}, m.contact)),
    h("div", { class: "code-line" }, h("span", { class: "code mono otp-code" }, m.code), copyButton(m.code, "Copy code")),
    facts([
      ["Sent", time(timeOf(m.sentAt))],
      ["OTP id", h("span", { class: "mono" }, m.otpId || "—")],
      ["Organization", h("a", { href: `#organizations/${m.organizationId}` }, m.organizationId)],
      ["App name", m.appName || "—"],
    ]),
    m.customization && Object.keys(m.customization).length ? h("details", { class: "item", dataset: { key: `custom-${m.otpId}` } },
      h("summary", {}, "Customization"), h("div", { class: "body" }, json(m.customization))) : null)));
}
