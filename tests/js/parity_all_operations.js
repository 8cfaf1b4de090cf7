// Every main-interface operation and auth proxy endpoint, sent by the official clients, unmodified, to a URL
// (tests/parity/test_recorder.py points it at `parity record` in front of a simulator): @turnkey/http's
// TurnkeyClient (its 2.x release for the operations 6.x dropped) stamps with @turnkey/api-key-stamper;
// @turnkey/core's TurnkeySDKClientBase sends the auth proxy's requests (proxy* methods).
// Usage: node parity_all_operations.js '<JSON: url, proxyUrl, authProxyConfigId, organizationId, apiPublicKey,
// apiPrivateKey, bodies: {"/public/v1/...": body}, proxyBodies: {"/v1/...": body}>'
// Prints {path: {method, sent, error}} for every path: `sent` is the body the client serialized.
const { TurnkeyClient } = require("@turnkey/http");
const { TurnkeyClient: OldClient } = require("turnkey-http-v2");
const { ApiKeyStamper } = require("@turnkey/api-key-stamper");
const { TurnkeySDKClientBase } = require("@turnkey/core/dist/__generated__/sdk-client-base.js");

const given = JSON.parse(process.argv[2]);
const stamper = new ApiKeyStamper({ apiPublicKey: given.apiPublicKey, apiPrivateKey: given.apiPrivateKey });

// path -> [client, method]: each client's stamp methods say which URL each method calls
async function methodsByPath(client, prefix, base) {
  const found = {};
  for (const name of Object.keys(client).filter((k) => k.startsWith(prefix))) {
    try {
      const signed = await client[name]({});
      if (signed && signed.url) found[signed.url.slice(base.length)] = [client, name[prefix.length].toLowerCase() + name.slice(prefix.length + 1)];
    } catch {
      // a stamp method that refuses an empty input names no URL here
    }
  }
  return found;
}

async function outcome(call) {
  try {
    await call();
    return null;
  } catch (e) {
    return String(e.message || e).slice(0, 300);
  }
}

async function main() {
  const newer = new TurnkeyClient({ baseUrl: given.url }, stamper);
  const older = new OldClient({ baseUrl: given.url }, stamper);
  const methods = { ...(await methodsByPath(older, "stamp", given.url)), ...(await methodsByPath(newer, "stamp", given.url)) };
  const core = new TurnkeySDKClientBase({
    apiBaseUrl: given.url,
    authProxyUrl: given.proxyUrl,
    authProxyConfigId: given.authProxyConfigId,
    organizationId: given.organizationId,
    apiKeyStamper: stamper,
  });
  const proxyMethods = {};
  for (const name of Object.keys(core).filter((k) => k.startsWith("proxy"))) {
    const source = core[name].toString().match(/authProxyRequest\("([^"]+)"/);
    if (source) proxyMethods[source[1]] = name;
  }
  const out = {};
  for (const [path, body] of Object.entries(given.bodies)) {
    const found = methods[path];
    if (!found) {
      out[path] = { method: null };
      continue;
    }
    const [client, method] = found;
    out[path] = { method, sent: JSON.stringify(body), error: await outcome(() => client[method](body)) };
  }
  for (const [path, body] of Object.entries(given.proxyBodies)) {
    const method = proxyMethods[path];
    out[path] = method
      ? { method, sent: JSON.stringify(body), error: await outcome(() => core[method](body)) }
      : { method: null };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e.stack || e));
  process.exit(1);
});
