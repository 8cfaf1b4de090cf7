// What the web-app and frames browser tests share (tests/webapp, tests/frames): where the pinned
// packages are, esbuild's settings for a page, Chromium's flags, and the runner that runs every
// flow side by side in one browser and prints one JSON report for the Python test to read.
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const MODULES = path.join(ROOT, "tests", "js", "node_modules");
// headless, and nothing that reaches beyond loopback (this machine's network is closed)
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** esbuild's options for a browser page written outside tests/js (its packages are installed there). */
function pageBuild(outdir, extra = {}) {
  return {
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    outdir,
    nodePaths: [MODULES],
    // No polyfills: the kit, core 2.x, sdk-browser and @turnkey/crypto bundle for the browser as
    // they are, and esbuild defines process.env.NODE_ENV itself.
    loader: { ".svg": "dataurl", ".png": "dataurl", ".woff": "dataurl", ".woff2": "dataurl" },
    jsx: "automatic",
    minify: true, // a third of the size: less for Chromium to parse in every fresh context
    logLevel: "warning",
    ...extra,
  };
}

/** The output directory from argv, or exit 2 with the usage line. */
function outdirFromArgv(script) {
  if (!process.argv[2]) {
    process.stderr.write(`usage: node ${script} OUTDIR (a directory outside the repository: the bundle is not kept)\n`);
    process.exit(2);
  }
  return path.resolve(process.argv[2]);
}

/**
 * Run `flows` (name -> async (browser) => what it saw; `only` names a subset) side by side in one
 * headless Chromium, each its own context, and print the report: name -> {ok, ...seen} or
 * {ok: false, error, page}, with the time each took (for a person; nothing asserts on it).
 */
async function runFlows(flows, { chromiumPath, only } = {}) {
  const { chromium } = require(path.join(MODULES, "playwright-core"));
  const browser = await chromium.launch({ executablePath: chromiumPath || "/usr/bin/chromium", args: CHROMIUM_ARGS,
                                          headless: true, timeout: 90000 });
  const report = {};
  try {
    await Promise.all((only || Object.keys(flows)).map(async (name) => {
      const started = Date.now();
      try {
        report[name] = { ok: true, ...(await flows[name](browser)) };
      } catch (error) {
        report[name] = { ok: false, error: String(error.stack || error).slice(0, 2000), page: error.page || null };
      }
      report[name].ms = Date.now() - started;
    }));
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(report) + "\n");
}

/** Run `main`; a failure outside the flows is printed and exits 1. */
function run(main) {
  main().catch((error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  });
}

module.exports = { ROOT, MODULES, CHROMIUM_ARGS, pageBuild, outdirFromArgv, runFlows, run };
