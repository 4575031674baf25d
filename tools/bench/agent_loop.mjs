// agent_loop.mjs: the agent phase of the benchmark (issue 15). The agent
// loop's own cost per turn with 100 tools from 5 servers (the C fixture
// server over stdio, --tools each): bench/agent_bench.lua runs mcp.agent
// with a model that does all of a provider's work but the HTTP exchange
// (request body built and encoded, a canned answer decoded and parsed)
// and subtracts the tools' own round trips; see its header.
//
// Runs it `rounds` times and keeps the best of each figure (the lowest:
// they are all times or sizes). No timing assertion: the figures are
// reported, never checked against a bound.
import { spawnSync } from "node:child_process";
import path from "node:path";

// opts: { root, luamcp, fixture, cpath, servers, tools, runs, rounds,
// failures }. Returns the figures, or null when a run failed (the
// failures list says why).
export function agentLoopPhase(opts) {
  const { root, luamcp, fixture, cpath, failures } = opts;
  const results = [];
  for (let i = 1; i <= opts.rounds; i++) {
    const r = spawnSync(luamcp, ["run", path.join(root, "bench", "agent_bench.lua"),
      "--server", fixture, "--cpath", cpath, "--servers", String(opts.servers),
      "--tools", String(opts.tools), "--runs", String(opts.runs)],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    if (r.error || r.status !== 0) {
      failures.push(`agent loop: ${r.error ? r.error.message : "exit status " + r.status}`);
      return null;
    }
    try {
      results.push(JSON.parse(r.stdout));
    } catch (e) {
      failures.push(`agent loop: bad JSON output (${e.message})`);
      return null;
    }
  }
  process.stderr.write("  agent loop: done\n");
  const best = { ...results[0] };
  for (const key of ["turn_us", "tool_call_us", "own_turn_us", "request_kb"]) {
    best[key] = Math.min(...results.map((x) => x[key]));
  }
  best.rounds = results;
  return best;
}
