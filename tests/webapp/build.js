// Bundles the test web app (src/kit.jsx with @turnkey/react-wallet-kit, src/core.js with
// @turnkey/core 2.x) into the directory given as argument, with the JS helper's esbuild plugin
// (wallet-simulator-testing/esbuild) so that @turnkey/crypto in the bundle trusts the simulator's
// signing keys. Run once per test session by tests/browser/test_webapp_browser.py; nothing built is kept.
// Usage: node build.js OUTDIR
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { ROOT, MODULES, pageBuild, outdirFromArgv, run } = require("./harness.js");

const esbuild = require(path.join(MODULES, "esbuild"));
const { walletSimulatorTrust } = require(path.join(ROOT, "js", "lib", "trust", "esbuild.js"));

const outdir = outdirFromArgv("build.js");
const common = pageBuild(outdir, { plugins: [walletSimulatorTrust({ quiet: true })] });

run(async () => {
  fs.mkdirSync(outdir, { recursive: true });
  await Promise.all([
    esbuild.build({ ...common, entryPoints: { kit: path.join(__dirname, "src", "kit.jsx") } }),
    // The plain page imports "@turnkey/core" as an app would; tests/js installs 2.8.1 as turnkey-core-v2.
    esbuild.build({ ...common, entryPoints: { core: path.join(__dirname, "src", "core.js") },
                    alias: { "@turnkey/core": "turnkey-core-v2" } }),
  ]);
  for (const page of ["kit.html", "core.html"]) fs.copyFileSync(path.join(__dirname, "src", page), path.join(outdir, page));
  process.stdout.write(JSON.stringify({ outdir }) + "\n");
});
