// Bundles tests/frames/src/page.js (@turnkey/sdk-browser) and src/kit.jsx (@turnkey/react-wallet-kit) into the directory given as argument, for
// tests/test_frames_browser.py. Run once per test module; nothing built is kept.
// Usage: node build.js OUTDIR
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const MODULES = path.join(ROOT, "tests", "js", "node_modules");
const esbuild = require(path.join(MODULES, "esbuild"));
const { walletSimulatorTrust } = require(path.join(ROOT, "js", "esbuild.js"));

const outdir = path.resolve(process.argv[2] || "");
if (!process.argv[2]) {
  process.stderr.write("usage: node build.js OUTDIR\n");
  process.exit(2);
}

const common = {
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  outdir,
  nodePaths: [MODULES], // the sources live outside tests/js; their packages are installed there
  loader: { ".svg": "dataurl", ".png": "dataurl", ".woff": "dataurl", ".woff2": "dataurl" },
  jsx: "automatic",
  minify: true,
  logLevel: "warning",
};

Promise.all([
  esbuild.build({ ...common, entryPoints: { page: path.join(__dirname, "src", "page.js") } }),
  // the kit's e-mail OTP login encrypts to the simulator's key: the JS helper's trust plugin, as an app's test build would
  esbuild.build({ ...common, entryPoints: { kit: path.join(__dirname, "src", "kit.jsx") }, plugins: [walletSimulatorTrust({ quiet: true })] }),
])
  .then(() => {
    for (const page of ["page.html", "kit.html"]) fs.copyFileSync(path.join(__dirname, "src", page), path.join(outdir, page));
    process.stdout.write(JSON.stringify({ outdir }) + "\n");
  })
  .catch((error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  });
