// Every copy of @turnkey/crypto installed (top level and nested under other packages, any version),
// required and imported, opens a simulator export bundle with no signer override once
// wallet-simulator-testing/register is loaded. The first copy is required *before* the preload, to
// show that copies already loaded are patched too.
// Usage: node nested.cjs '{"register": "<js/register.js>", "copies": ["<dir of a copy>", ...],
//                          "exportBundle", "embeddedKey", "organizationId"}'
// Prints {"before": <first copy, before the preload>, "copies": [{"dir", "version", "cjs", "esm"}]},
// each result "ok" or the error message.
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const given = JSON.parse(process.argv[2]);

async function opens(crypto) {
  try {
    await crypto.decryptExportBundle({ exportBundle: given.exportBundle, embeddedKey: given.embeddedKey,
                                       organizationId: given.organizationId, returnMnemonic: true });
    return "ok";
  } catch (e) {
    return e.message;
  }
}

async function main() {
  const [first] = given.copies;
  const early = require(path.join(first, "dist", "index.js"));
  const before = await opens(early);
  require(given.register);
  const copies = [];
  for (const dir of given.copies) {
    const version = require(path.join(dir, "package.json")).version;
    const cjs = await opens(require(path.join(dir, "dist", "index.js")));
    const esm = await opens(await import(pathToFileURL(path.join(dir, "dist", "index.mjs")).href));
    copies.push({ dir, version, cjs, esm });
  }
  console.log(JSON.stringify({ before, copies }));
}

main().catch((e) => { console.error(e); process.exit(1); });
