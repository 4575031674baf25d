// host_list.mjs: the host phase of the benchmark (issue 14). `luamcp list`
// over N configured stdio servers (bench/fixture_server, the C fixture:
// it starts in a few milliseconds, so the figures are luamcp's), timed
// against `luamcp list` over one of them: the servers are all alike, so
// that one is the slowest single server's start, and with a parallel
// start N servers should cost little more. Plus luamcp's peak RSS with N
// servers and with one, per connected server.
//
// Wall times: bench/coldtime (one untimed round, then reps runs, the two
// configs taking turns; the best of them is kept). Peak RSS:
// bench/peakrss (wait4's ru_maxrss, luamcp alone: its servers are not
// counted). `luamcp list` exits non-zero when a server failed, so a run
// counts only when every server connected. No timing assertion: the
// figures are reported, never checked against a bound.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// A luamcp.json with n servers s01..sNN, each the C fixture over stdio.
export function configText(n, fixture) {
  const servers = {};
  for (let i = 1; i <= n; i++) {
    servers[`s${String(i).padStart(2, "0")}`] = { type: "local", command: [fixture] };
  }
  return JSON.stringify({ mcp: servers }, null, 2) + "\n";
}

// Runs a bench helper that prints JSON; returns it, or null and records
// the failure.
function runJson(what, cmd, args, cwd, failures) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"] });
  let out = null;
  try {
    out = JSON.parse(r.stdout);
  } catch (e) {
    failures.push(`${what}: ${r.error ? r.error.message : "no JSON output (" + e.message + ")"}`);
    return null;
  }
  const list = Array.isArray(out) ? out : [out];
  if (r.status !== 0 || list.some((x) => !x || x.status !== 0)) {
    failures.push(`${what}: exit status ${list.map((x) => x && x.status).join(", ")}` +
      " (luamcp list exits non-zero when a server failed)");
    return null;
  }
  return out;
}

// opts: { root, luamcp, fixture, coldtime, peakrss, servers, reps,
// failures }. Returns the figures, or null when a run failed (the
// failures list says which).
export function hostListPhase(opts) {
  const { root, luamcp, fixture, coldtime, peakrss, failures } = opts;
  const n = opts.servers;
  const reps = opts.reps;
  const dir = mkdtempSync(path.join(os.tmpdir(), "luamcp-bench-host-"));
  try {
    const many = path.join(dir, "many.json");
    const one = path.join(dir, "one.json");
    writeFileSync(many, configText(n, fixture));
    writeFileSync(one, configText(1, fixture));
    const list = (file) => [luamcp, "list", "--config", file];
    const times = runJson(`host list (${n} servers and 1)`, coldtime,
      [String(reps), "--", ...list(many), "--", ...list(one)], root, failures);
    const rssMany = runJson(`host list peak RSS (${n} servers)`, peakrss,
      [String(reps), "--", ...list(many)], root, failures);
    const rssOne = runJson("host list peak RSS (1 server)", peakrss,
      [String(reps), "--", ...list(one)], root, failures);
    process.stderr.write("  host list: done\n");
    if (!times || !rssMany || !rssOne) return null;
    const [t, t1] = times;
    return {
      servers: n,
      reps,
      list_ms: { min: t.min_ms, median: t.median_ms },
      one_server_ms: { min: t1.min_ms, median: t1.median_ms },
      // How many single starts the N parallel ones cost (1 is ideal).
      vs_one_server: t.min_ms / t1.min_ms,
      peak_rss_kb: rssMany.peak_rss_kb,
      one_server_peak_rss_kb: rssOne.peak_rss_kb,
      peak_rss_kb_per_server: rssMany.peak_rss_kb / n,
      // What each server beyond the first adds.
      added_rss_kb_per_server: n > 1 ? (rssMany.peak_rss_kb - rssOne.peak_rss_kb) / (n - 1) : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
