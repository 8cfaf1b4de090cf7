// Bundles app.mjs or app.cjs with esbuild, vite or webpack (those in tests/js/node_modules), with
// or without wallet-simulator-testing's plugin, into one file node can run.
// Usage: node build.cjs '{"bundler": "esbuild"|"vite"|"webpack", "entry", "outDir", "plugin": bool,
//                         "helper": "<path of js/lib/trust>"}'
// Prints {"file": "<the bundle>"}.
const path = require("node:path");

const given = JSON.parse(process.argv[2]);
const entry = path.resolve(given.entry);
const outDir = path.resolve(given.outDir);

async function esbuild() {
  const { walletSimulatorTrust } = require(path.join(given.helper, "esbuild.js"));
  const file = path.join(outDir, "bundle.cjs");
  await require("esbuild").build({
    entryPoints: [entry], bundle: true, platform: "node", format: "cjs", outfile: file, logLevel: "error",
    plugins: given.plugin ? [walletSimulatorTrust()] : [],
  });
  return file;
}

async function vite() {
  const { walletSimulatorTrust } = require(path.join(given.helper, "vite.js"));
  const { build } = await import("vite");
  await build({
    configFile: false, root: path.dirname(entry), logLevel: "error",
    plugins: given.plugin ? [walletSimulatorTrust()] : [],
    ssr: { noExternal: true },  // bundle node_modules too: the copy of @turnkey/crypto is in the output
    build: { ssr: entry, outDir, emptyOutDir: true, rolldownOptions: { output: { entryFileNames: "bundle.mjs" } } },
  });
  return path.join(outDir, "bundle.mjs");
}

async function webpack() {
  const { WalletSimulatorTrustPlugin } = require(path.join(given.helper, "webpack.js"));
  const compiler = require("webpack")({
    mode: "development", devtool: false, target: "node", entry, context: path.dirname(entry),
    output: { path: outDir, filename: "bundle.js" },
    plugins: given.plugin ? [new WalletSimulatorTrustPlugin()] : [],
  });
  const stats = await new Promise((resolve, reject) =>
    compiler.run((err, result) => (err ? reject(err) : compiler.close(() => resolve(result)))));
  if (stats.hasErrors()) throw new Error(stats.toString("errors-only"));
  return path.join(outDir, "bundle.js");
}

({ esbuild, vite, webpack })[given.bundler]()
  .then((file) => console.log(JSON.stringify({ file })))
  .catch((e) => { console.error(e); process.exit(1); });
