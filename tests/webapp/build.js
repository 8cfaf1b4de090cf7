// Bundles the test web app (src/kit.jsx with @turnkey/react-wallet-kit, src/core.js with
// @turnkey/core 2.x) into the directory given as argument, with the JS helper's esbuild plugin
// (wallet-simulator-testing/esbuild) so that @turnkey/crypto in the bundle trusts the simulator's
// signing keys. Run once per test session by tests/test_webapp_browser.py; nothing built is kept.
// Usage: node build.js OUTDIR
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const MODULES = path.join(ROOT, "tests", "js", "node_modules");
const esbuild = require(path.join(MODULES, "esbuild"));
const { walletSimulatorTrust } = require(path.join(ROOT, "js", "esbuild.js"));

if (!process.argv[2]) {
  process.stderr.write("usage: node build.js OUTDIR (a directory outside the repository: the bundle is not kept)\n");
  process.exit(2);
}
const outdir = path.resolve(process.argv[2]);

const common = {
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  outdir,
  nodePaths: [MODULES], // the sources live outside tests/js; their packages are installed there
  // No polyfills: the kit, core 2.x and @turnkey/crypto bundle for the browser as they are (the kit
  // brings its own `buffer` package), and esbuild defines process.env.NODE_ENV itself.
  loader: { ".svg": "dataurl", ".png": "dataurl", ".woff": "dataurl", ".woff2": "dataurl" },
  jsx: "automatic",
  minify: true, // a third of the size: less for Chromium to parse in every fresh context
  logLevel: "warning",
  plugins: [walletSimulatorTrust({ quiet: true })],
};

async function main() {
  fs.mkdirSync(outdir, { recursive: true });
  await Promise.all([
    esbuild.build({ ...common, entryPoints: { kit: path.join(__dirname, "src", "kit.jsx") } }),
    // The plain page imports "@turnkey/core" as an app would; tests/js installs 2.8.1 as turnkey-core-v2.
    esbuild.build({ ...common, entryPoints: { core: path.join(__dirname, "src", "core.js") },
                    alias: { "@turnkey/core": "turnkey-core-v2" } }),
  ]);
  for (const page of ["kit.html", "core.html"]) fs.copyFileSync(path.join(__dirname, "src", page), path.join(outdir, page));
  process.stdout.write(JSON.stringify({ outdir }) + "\n");
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
