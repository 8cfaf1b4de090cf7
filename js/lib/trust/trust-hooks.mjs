// ESM load hooks for register.js (registered with module.register, run on Node's loader thread):
// @turnkey/crypto's dist/constants.mjs, and any constants file loaded with its source through the
// ESM loader, is rewritten by trust.js before it is evaluated. CommonJS loads whose source Node
// leaves to require() are rewritten by register.js's Module.prototype._compile hook instead.
import { fileURLToPath } from "node:url";
import trust from "./trust.js";

let keys = trust.trustedKeys();

export async function initialize(data) {
  if (data && data.keys) keys = data.keys;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.startsWith("file:") || !trust.isConstantsFile(url) || result.source == null) return result;
  const source = typeof result.source === "string" ? result.source : new TextDecoder().decode(result.source);
  const code = trust.rewriteConstants(source, fileURLToPath(url), { keys, announce: false });
  return code === null ? result : { ...result, source: code };
}
