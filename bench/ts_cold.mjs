// ts_cold.mjs: the TypeScript SDK side of the cold-start phase, the same
// work as bench/cold.lua: start node, load the SDK, spawn the server,
// initialize, one tools/call, close, exit. The driver times the process.
//
// Usage: node bench/ts_cold.mjs SERVER [ARGS...]
// The SDK is loaded from $BENCH_SDK_DIR, as in bench/ts_sdk_bench.mjs.
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkDir = process.env.BENCH_SDK_DIR ||
  path.join(here, "..", ".deps", "bench", "node_modules", "@modelcontextprotocol", "sdk");
const sdkUrl = (rel) => pathToFileURL(path.join(sdkDir, "dist", "esm", rel)).href;
const { Client } = await import(sdkUrl("client/index.js"));
const { StdioClientTransport } = await import(sdkUrl("client/stdio.js"));

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: node bench/ts_cold.mjs SERVER [ARGS...]");
const client = new Client({ name: "bench-cold", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args }));
const result = await client.callTool({ name: "echo", arguments: { message: "hello" } });
if (result.content[0].text !== "hello") throw new Error("unexpected tools/call result");
await client.close();
