// Bundles tests/frames/src/page.js (@turnkey/sdk-browser) and src/kit.jsx (@turnkey/react-wallet-kit)
// into the directory given as argument, for tests/frames/test_frames_browser.py. Run once per test module;
// nothing built is kept.
// Usage: node build.js OUTDIR
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { ROOT, MODULES, pageBuild, outdirFromArgv, run } = require(path.join(__dirname, "..", "webapp", "harness.js"));

const esbuild = require(path.join(MODULES, "esbuild"));
const { walletSimulatorTrust } = require(path.join(ROOT, "js", "lib", "trust", "esbuild.js"));

const outdir = outdirFromArgv("build.js");
const common = pageBuild(outdir);

run(async () => {
  fs.mkdirSync(outdir, { recursive: true });
  await Promise.all([
    esbuild.build({ ...common, entryPoints: { page: path.join(__dirname, "src", "page.js") } }),
    // the kit's e-mail OTP login encrypts to the simulator's key: the JS helper's trust plugin, as an app's test build would
    esbuild.build({ ...common, entryPoints: { kit: path.join(__dirname, "src", "kit.jsx") },
                    plugins: [walletSimulatorTrust({ quiet: true })] }),
  ]);
  for (const page of ["page.html", "kit.html"]) fs.copyFileSync(path.join(__dirname, "src", page), path.join(outdir, page));
  process.stdout.write(JSON.stringify({ outdir }) + "\n");
});
