// The bundler tests' app, as an ES module: bundlers take @turnkey/crypto's ESM build (dist/*.mjs).
import * as crypto from "@turnkey/crypto";
import run from "./run.cjs";

run(crypto).catch((e) => { console.error(e); process.exit(1); });
