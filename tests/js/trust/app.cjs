// The bundler tests' app with require(): bundlers take @turnkey/crypto's CommonJS build (dist/*.js).
const run = require("./run.cjs");

run(require("@turnkey/crypto")).catch((e) => { console.error(e); process.exit(1); });
