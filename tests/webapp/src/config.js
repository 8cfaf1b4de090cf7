// The simulator's addresses, read from the page's query string (the test opens
// /kit.html?url=...&proxyUrl=...&configId=...&organizationId=...), so one bundle serves any simulator.
const query = new URLSearchParams(window.location.search);

export const simulator = {
  url: query.get("url"),
  proxyUrl: query.get("proxyUrl"),
  configId: query.get("configId"),
  organizationId: query.get("organizationId"),
};
