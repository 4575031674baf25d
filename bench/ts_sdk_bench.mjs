// ts_sdk_bench.mjs: the client-side phases of the benchmark, measured with
// the official TypeScript SDK client (@modelcontextprotocol/sdk 1.x,
// Client + StdioClientTransport or StreamableHTTPClientTransport). Same phases, same options and the same
// JSON shape as bench/luamcp_bench.lua, so tools/bench/run.sh can compare.
//
// Usage: node bench/ts_sdk_bench.mjs --target stdio
//          --server build/bench/fixture_server [--calls N]
//        node bench/ts_sdk_bench.mjs --target http
//          --url http://127.0.0.1:P/mcp --big-url http://127.0.0.1:Q/mcp
//          [--inflight-calls N] [--concurrency K] [--connect-reps N]
//          [--tools N] [--list-reps N]
// The SDK is loaded from $BENCH_SDK_DIR, by default
// .deps/bench/node_modules/@modelcontextprotocol/sdk (make bench installs it).
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { readFileSync } from "node:fs";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkDir = process.env.BENCH_SDK_DIR ||
  path.join(here, "..", ".deps", "bench", "node_modules", "@modelcontextprotocol", "sdk");
const sdkUrl = (rel) => pathToFileURL(path.join(sdkDir, "dist", "esm", rel)).href;
const { Client } = await import(sdkUrl("client/index.js"));
const { StdioClientTransport } = await import(sdkUrl("client/stdio.js"));
const { StreamableHTTPClientTransport } = await import(sdkUrl("client/streamableHttp.js"));
const sdkVersion = JSON.parse(readFileSync(path.join(sdkDir, "package.json"), "utf8")).version;

// ---- arguments --------------------------------------------------------------

const opts = {
  target: "stdio",
  server: null,
  calls: 20000,
  inflightCalls: 20000,
  concurrency: 64,
  connectReps: 20,
  tools: 2000,
  listReps: 10,
};
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const m = /^--(.+)$/.exec(argv[i]);
    if (!m || argv[i + 1] === undefined) throw new Error(`bad argument '${argv[i]}'`);
    const key = m[1].replace(/-(.)/g, (_, c) => c.toUpperCase());
    opts[key] = typeof opts[key] === "number" ? Number(argv[i + 1]) : argv[i + 1];
    if (Number.isNaN(opts[key])) throw new Error(`--${m[1]} needs a number`);
  }
}

// Over HTTP the SDK leaves an abort listener per request on one AbortSignal
// and node then warns once per request past 1,500 (MaxListenersExceeded).
// Counted in the output ("warnings") rather than printed thousands of times.
const warnings = {};
process.removeAllListeners("warning");
process.on("warning", (w) => { warnings[w.name] = (warnings[w.name] || 0) + 1; });

const nowNs = () => process.hrtime.bigint();
const ns = (a, b) => Number(b - a);

// ---- targets ----------------------------------------------------------------

// A target turns "a server with N tools" into a connected transport, so the
// phases below do not know which transport they use.
const targets = {
  stdio(ntools) {
    if (!opts.server) throw new Error("--server PATH is required for --target stdio");
    const args = ntools ? ["--tools", String(ntools)] : [];
    return new StdioClientTransport({ command: opts.server, args, stderr: "inherit" });
  },
  // Streamable HTTP: the driver starts the HTTP fixture twice (one tool at
  // --url, --tools N at --big-url) in the response mode it measures.
  http(ntools) {
    const url = ntools ? opts.bigUrl : opts.url;
    if (!url) throw new Error("--url and --big-url are required for --target http");
    return new StreamableHTTPClientTransport(new URL(url));
  },
};
const makeTransport = targets[opts.target];
if (!makeTransport) throw new Error(`unknown --target ${opts.target}`);

async function connect(ntools) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(makeTransport(ntools));
  return client;
}

// ---- statistics -------------------------------------------------------------

function percentile(sorted, p) {
  const idx = Math.min(Math.floor(sorted.length * p), sorted.length - 1);
  return sorted[idx];
}

function median(list) {
  const s = [...list].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function summary(lat, elapsed, concurrency) {
  const sorted = Float64Array.from(lat).sort();
  return {
    calls: lat.length,
    concurrency,
    seconds: elapsed / 1e9,
    calls_per_s: lat.length / (elapsed / 1e9),
    p50_us: percentile(sorted, 0.5) / 1e3,
    p99_us: percentile(sorted, 0.99) / 1e3,
  };
}

const PARAMS = { name: "echo", arguments: { message: "hello" } };

function checkEcho(result) {
  const item = result.content && result.content[0];
  if (!item || item.text !== "hello") throw new Error("tools/call: unexpected result");
}

// ---- phases -----------------------------------------------------------------

async function phaseConnect() {
  const samples = [];
  for (let i = 0; i < opts.connectReps; i++) {
    const t0 = nowNs();
    const client = await connect();
    samples.push(ns(t0, nowNs()) / 1e6);
    await client.close();
  }
  return { median: median(samples), min: Math.min(...samples), reps: samples.length };
}

async function phaseSeq(client) {
  const n = opts.calls;
  const lat = new Array(n);
  for (let i = 0; i < Math.min(500, n); i++) checkEcho(await client.callTool(PARAMS));
  const start = nowNs();
  for (let i = 0; i < n; i++) {
    const t0 = nowNs();
    const result = await client.callTool(PARAMS);
    lat[i] = ns(t0, nowNs());
    checkEcho(result);
  }
  return summary(lat, ns(start, nowNs()), 1);
}

async function phaseInflight(client) {
  const n = opts.inflightCalls;
  const k = opts.concurrency;
  const lat = [];
  let issued = 0;
  const start = nowNs();
  const worker = async () => {
    while (issued < n) {
      issued++;
      const t0 = nowNs();
      const result = await client.callTool(PARAMS);
      lat.push(ns(t0, nowNs()));
      checkEcho(result);
    }
  };
  await Promise.all(Array.from({ length: k }, worker));
  return summary(lat, ns(start, nowNs()), k);
}

async function phaseList() {
  const client = await connect(opts.tools);
  let t0 = nowNs();
  let res = await client.listTools();
  const first = ns(t0, nowNs()) / 1e6;
  if (res.tools.length !== opts.tools) throw new Error("tools/list: wrong count");
  const warm = [];
  for (let i = 0; i < opts.listReps; i++) {
    t0 = nowNs();
    res = await client.listTools();
    warm.push(ns(t0, nowNs()) / 1e6);
    if (res.tools.length !== opts.tools) throw new Error("tools/list: wrong count");
  }
  await client.close();
  return { tools: opts.tools, first_ms: first, warm_ms: median(warm),
    warm_min_ms: Math.min(...warm), reps: warm.length };
}

// ---- main -------------------------------------------------------------------

const out = { client: "ts-sdk", version: sdkVersion, target: opts.target,
  transport: opts.target === "http" ? "streamable-http" : "stdio" };
out.connect_ms = await phaseConnect();
{
  const client = await connect();
  out.seq = await phaseSeq(client);
  out.inflight = await phaseInflight(client);
  await client.close();
}
out.list_tools = await phaseList();
out.peak_rss_kb = process.resourceUsage().maxRSS;
if (Object.keys(warnings).length > 0) out.warnings = warnings;
process.stdout.write(JSON.stringify(out) + "\n");
