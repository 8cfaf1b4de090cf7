// The benchmark's load generator in node: keep-alive HTTP/1.1 on raw sockets, requests stamped
// with real P-256 signatures (node's crypto, OpenSSL) and serialised before the clock starts.
//
//     node bench/nodeload.js   (driven by bench/nodeclient.py: one JSON command per stdin line,
//                               one JSON answer per stdout line)
//
// Why node and not autocannon: autocannon sends a fixed request or calls back per request in
// its own loop; here every body is made and stamped once up front (each activity its own
// timestampMs, so nothing is answered from the idempotency cache) and the same bytes go to the
// simulator, the echo and Prism. It needs nothing but node's standard library, so there is
// nothing to install. One event loop drives every connection: per request it costs a write, a
// read and a scan for the end of the headers, far less than the server's work.
//
// Commands:
//   {"cmd": "build", "name": N, "op": OP, "count": C, "signer": ADDR, "activity": ID}
//       makes C stamped requests of OP and keeps them under the name N
//   {"cmd": "run", "name": N, "port": P, "conns": K, "path": PATH|null}
//       sends them over K connections (PATH replaces each request's path, for the echo)
//       -> {"rps", "p50_ms", "p99_ms", "cpu_us": node's CPU per request, "failed": first non-200 answer or null}
//   {"cmd": "send", "op": OP, "port": P, "signer": ..., "activity": ...}
//       one request, -> {"status", "body"}
"use strict";

const crypto = require("crypto");
const net = require("net");
const readline = require("readline");

const KEY_HEX = "b0".repeat(32); // the bench scenario's API key (bench/workload.py KEY)
const NODE_ORG_BASE = 60; // create_wallet here fills bench-60..99; the Python client fills bench-0..58
const ETH = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
};

const ecdh = crypto.createECDH("prime256v1");
ecdh.setPrivateKey(Buffer.from(KEY_HEX, "hex"));
const point = ecdh.getPublicKey(null, "uncompressed");
const publicHex = ecdh.getPublicKey("hex", "compressed");
const privateKey = crypto.createPrivateKey({
  format: "jwk",
  key: {
    kty: "EC",
    crv: "P-256",
    d: Buffer.from(KEY_HEX, "hex").toString("base64url"),
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33, 65).toString("base64url"),
  },
});

function stamp(body) {
  const signature = crypto.sign("sha256", body, { key: privateKey, dsaEncoding: "der" });
  const fields = { publicKey: publicHex, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: signature.toString("hex") };
  return Buffer.from(JSON.stringify(fields)).toString("base64url");
}

let serial = 0;
let wallets = 0;

function activity(type, org, parameters) {
  serial += 1;
  const timestampMs = String(Date.now() + (serial % 1000));
  return { type, timestampMs, organizationId: org, parameters };
}

const builders = {
  create_wallet() {
    const org = `bench-${NODE_ORG_BASE + Math.floor(wallets / 100)}`;
    wallets += 1;
    const body = activity("ACTIVITY_TYPE_CREATE_WALLET", org, { walletName: `n${wallets}`, accounts: [ETH] });
    return ["/public/v1/submit/create_wallet", body];
  },
  sign_raw_payload(job) {
    serial += 1;
    const parameters = {
      signWith: job.signer,
      payload: serial.toString(16).padStart(64, "0"),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    };
    return ["/public/v1/submit/sign_raw_payload", activity("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "bench-59", parameters)];
  },
  get_activity(job) {
    return ["/public/v1/query/get_activity", { organizationId: "bench-59", activityId: job.activity }];
  },
  whoami() {
    return ["/public/v1/query/whoami", { organizationId: "bench-59" }];
  },
  setup() {
    const body = activity("ACTIVITY_TYPE_CREATE_WALLET", "bench-59", { walletName: "node-signer", accounts: [ETH] });
    return ["/public/v1/submit/create_wallet", body];
  },
};

function build(job) {
  const [path, object] = builders[job.op](job);
  const body = Buffer.from(JSON.stringify(object));
  return { path, body, stamp: stamp(body) };
}

function wire(request, port, path) {
  const head =
    `POST ${path || request.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${request.body.length}\r\nX-Stamp: ${request.stamp}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), request.body]);
}

// One connection: sends the next request when the previous answer is complete.
function connection(port, onAnswer) {
  const state = { socket: null, buffer: Buffer.alloc(0), pending: null, expected: -1, status: 0, headEnd: -1 };
  function open() {
    state.closed = false;
    state.socket = net.createConnection({ port, host: "127.0.0.1", noDelay: true });
    state.socket.on("data", receive);
    state.socket.on("error", () => {});
    state.socket.on("close", () => {
      state.closed = true; // by the server while idle (granian closes a kept-alive connection idle past its header timeout)
      if (state.pending) {
        const again = state.pending; // closed with a request under way (a server that closes after each answer)
        state.buffer = Buffer.alloc(0);
        open();
        state.socket.write(again);
      }
    });
  }
  function receive(chunk) {
    state.buffer = state.buffer.length ? Buffer.concat([state.buffer, chunk]) : chunk;
    if (state.headEnd < 0) {
      state.headEnd = state.buffer.indexOf("\r\n\r\n");
      if (state.headEnd < 0) return;
      const head = state.buffer.subarray(0, state.headEnd).toString("latin1");
      state.status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      state.expected = length ? Number(length[1]) : -1;
      state.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      state.close = /\r\nconnection:\s*close/i.test(head) || head.startsWith("HTTP/1.0");
    }
    const bodyStart = state.headEnd + 4;
    let end;
    if (state.expected >= 0) {
      end = bodyStart + state.expected;
      if (state.buffer.length < end) return;
    } else if (state.chunked) {
      const last = state.buffer.indexOf("0\r\n\r\n", bodyStart);
      if (last < 0) return;
      end = last + 5;
    } else {
      return; // read to close: not used by the servers measured
    }
    const body = state.buffer.subarray(bodyStart, end);
    state.buffer = state.buffer.subarray(end);
    state.headEnd = -1;
    state.pending = null;
    if (state.close) {
      state.socket.removeAllListeners("close");
      state.socket.destroy();
      open();
    }
    onAnswer(state.status, body);
  }
  open();
  return {
    send(bytes) {
      state.pending = bytes;
      if (state.closed) open(); // the next request opens a new connection, as a client's pool does
      state.socket.write(bytes);
    },
    end() {
      state.pending = null;
      state.socket.removeAllListeners("close");
      state.socket.destroy();
    },
  };
}

function run(requests, port, conns, path) {
  const wires = requests.map((r) => wire(r, port, path));
  return new Promise((resolve) => {
    const latencies = [];
    let next = 0;
    let done = 0;
    let failed = null;
    let start = 0;
    const clients = [];
    const t0 = new Array(conns).fill(0n);
    function issue(i) {
      if (next >= wires.length) return;
      const bytes = wires[next++];
      t0[i] = process.hrtime.bigint();
      clients[i].send(bytes);
    }
    let cpu = null;
    function finish() {
      const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
      const used = process.cpuUsage(cpu);
      clients.forEach((c) => c.end());
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies[Math.max(0, Math.ceil(latencies.length * q) - 1)];
      const cpu_us = (used.user + used.system) / latencies.length; // this process's CPU per request
      resolve({ rps: latencies.length / elapsed, p50_ms: at(0.5), p99_ms: at(0.99), cpu_us, count: latencies.length, failed });
    }
    for (let i = 0; i < conns; i++) {
      clients.push(
        connection(port, (status, body) => {
          latencies.push(Number(process.hrtime.bigint() - t0[i]) / 1e6);
          if (status !== 200 && !failed) failed = `${status}: ${body.toString("utf8", 0, 300)}`;
          done += 1;
          if (done === wires.length) finish();
          else issue(i);
        }),
      );
    }
    // connect before the clock starts: keep-alive clients connect once
    setTimeout(() => {
      start = process.hrtime.bigint();
      cpu = process.cpuUsage();
      for (let i = 0; i < conns; i++) issue(i);
    }, 20);
  });
}

const batches = new Map();

async function handle(command) {
  if (command.cmd === "build") {
    const made = [];
    for (let i = 0; i < command.count; i++) made.push(build(command));
    batches.set(command.name, made);
    return { built: made.length };
  }
  if (command.cmd === "run") {
    return run(batches.get(command.name), command.port, command.conns, command.path);
  }
  if (command.cmd === "send") {
    const request = build(command);
    return new Promise((resolve) => {
      const client = connection(command.port, (status, body) => {
        client.end();
        resolve({ status, body: body.toString("utf8") });
      });
      client.send(wire(request, command.port, null));
    });
  }
  return { error: `unknown command ${command.cmd}` };
}

const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const answer = await handle(JSON.parse(line));
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
