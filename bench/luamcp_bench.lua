--- luamcp_bench.lua: the client-side phases of the benchmark, through
--- luamcp's public Lua API (what users use). Prints one JSON object on
--- stdout; tools/bench/run.sh runs it and bench/ts_sdk_bench.mjs, which
--- measures the same phases with the TypeScript SDK, and compares them.
---
--- Usage: build/luamcp run bench/luamcp_bench.lua --target stdio
---          --server build/bench/fixture_server [--calls N]
---        build/luamcp run bench/luamcp_bench.lua --target http
---          --url http://127.0.0.1:P/mcp --big-url http://127.0.0.1:Q/mcp
---          [--inflight-calls N] [--concurrency K] [--connect-reps N]
---          [--tools N] [--list-reps N] [--cpath DIR]
---
--- Phases (keys of the JSON object):
---   connect_ms  spawn + initialize, connect only (close is not timed)
---   seq         N sequential tools/call echo: calls/s, p50, p99 (µs)
---   inflight    N calls by K tasks, each calling in a loop
---   list_tools  list_tools() of a server with --tools tools: the first
---               call on a new connection, then warm (median of reps),
---               the conversion to Lua tables included
---   peak_rss_kb VmHWM of this process at the end
local mcp = require "mcp"
local task = require "mcp.task"       -- task.await: the join of the K tasks

-- ---- arguments -------------------------------------------------------------

local opts = {
  target = "stdio",
  server = nil,
  calls = 20000,
  inflight_calls = 20000,
  concurrency = 64,
  connect_reps = 20,
  tools = 2000,
  list_reps = 10,
  cpath = "build/bench",
}
do
  local i = 1
  while arg[i] do
    local key = arg[i]:match("^%-%-(.+)$")
    if not key or arg[i + 1] == nil then
      error("bad argument '" .. arg[i] .. "' (see the usage in the header)")
    end
    key = key:gsub("%-", "_")
    if opts[key] ~= nil and type(opts[key]) == "number" then
      opts[key] = assert(tonumber(arg[i + 1]), "--" .. key .. " needs a number")
    else
      opts[key] = arg[i + 1]
    end
    i = i + 2
  end
end
package.cpath = opts.cpath .. "/?.so;" .. package.cpath
local clock = require "benchclock"
local now_ns = clock.now_ns

-- ---- targets ------------------------------------------------------------------

-- A target turns "a server with N tools" into mcp.connect options, so that
-- the phases below do not know which transport they use.
local targets = {}

function targets.stdio(ntools)
  assert(opts.server, "--server PATH is required for --target stdio")
  local command = { opts.server }
  if ntools then
    command[2], command[3] = "--tools", tostring(ntools)
  end
  return {
    name = "bench",
    command = command,
    on_stderr = function(line) io.stderr:write("[fixture] ", line, "\n") end,
  }
end

-- Streamable HTTP: the driver starts the HTTP fixture twice (one tool at
-- --url, --tools N at --big-url) in the response mode it measures.
function targets.http(ntools)
  local url = ntools and opts.big_url or opts.url
  assert(url, "--url and --big-url are required for --target http")
  return { name = "bench", url = url, transport = "streamable-http" }
end

local make_target = targets[opts.target]
if not make_target then error("unknown --target " .. tostring(opts.target)) end

-- ---- statistics --------------------------------------------------------------

local function percentile(sorted, p)
  local n = #sorted
  local idx = math.floor(n * p) + 1
  if idx > n then idx = n end
  return sorted[idx]
end

local function median(list)
  local sorted = {}
  for i, v in ipairs(list) do sorted[i] = v end
  table.sort(sorted)
  local n = #sorted
  if n % 2 == 1 then return sorted[(n + 1) // 2] end
  return (sorted[n // 2] + sorted[n // 2 + 1]) / 2
end

-- lat: latencies in ns; elapsed: ns for the whole phase.
local function summary(lat, elapsed, concurrency)
  table.sort(lat)
  return {
    calls = #lat,
    concurrency = concurrency,
    seconds = elapsed / 1e9,
    calls_per_s = #lat / (elapsed / 1e9),
    p50_us = percentile(lat, 0.5) / 1e3,
    p99_us = percentile(lat, 0.99) / 1e3,
  }
end

local ARGS = { message = "hello" }

local function check_echo(result, err)
  if not result then error("tools/call failed: " .. tostring(err), 2) end
  local item = result.content[1]
  if item == nil or item.text ~= "hello" then
    error("tools/call: unexpected result", 2)
  end
end

-- ---- phases ------------------------------------------------------------------

local transport                  -- client.transport of the first connect

local function phase_connect()
  local samples = {}
  for i = 1, opts.connect_reps do
    local t0 = now_ns()
    local client = assert(mcp.connect(make_target()))
    samples[i] = (now_ns() - t0) / 1e6
    if i == 1 then transport = client.transport end
    client:close()
  end
  return { median = median(samples), min = math.min(table.unpack(samples)),
    reps = #samples }
end

local function phase_seq(client)
  local lat = {}
  local n = opts.calls
  for _ = 1, math.min(500, n) do                 -- warm-up, untimed
    check_echo(client:call_tool("echo", ARGS))
  end
  local start = now_ns()
  for i = 1, n do
    local t0 = now_ns()
    local result, err = client:call_tool("echo", ARGS)
    lat[i] = now_ns() - t0
    check_echo(result, err)
  end
  return summary(lat, now_ns() - start, 1)
end

local function phase_inflight(client)
  local lat = {}
  local n, k = opts.inflight_calls, opts.concurrency
  local issued, running = 0, k
  local finished                                 -- the main task's resume
  local start = now_ns()
  for _ = 1, k do
    mcp.spawn(function()
      while issued < n do
        issued = issued + 1
        local t0 = now_ns()
        local result, err = client:call_tool("echo", ARGS)
        lat[#lat + 1] = now_ns() - t0
        check_echo(result, err)
      end
      running = running - 1
      if running == 0 and finished then finished() end
    end)
  end
  if running > 0 then
    task.await(function(done) finished = done; return true end)
  end
  return summary(lat, now_ns() - start, k)
end

local function phase_list()
  local client <close> = assert(mcp.connect(make_target(opts.tools)))
  local t0 = now_ns()
  local tools = assert(client:list_tools())
  local first = (now_ns() - t0) / 1e6
  assert(#tools == opts.tools, "tools/list: wrong count")
  local warm = {}
  for i = 1, opts.list_reps do
    t0 = now_ns()
    tools = assert(client:list_tools())
    warm[i] = (now_ns() - t0) / 1e6
    assert(#tools == opts.tools and tools[opts.tools].inputSchema.type == "object")
  end
  return { tools = opts.tools, first_ms = first, warm_ms = median(warm),
    warm_min_ms = math.min(table.unpack(warm)), reps = #warm }
end

local function peak_rss_kb()
  local f = io.open("/proc/self/status", "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return tonumber(text:match("VmHWM:%s*(%d+)"))
end

-- ---- main ---------------------------------------------------------------------

local out = { client = "luamcp", version = mcp.version, target = opts.target }
out.connect_ms = phase_connect()
out.transport = transport
do
  local client <close> = assert(mcp.connect(make_target()))
  out.seq = phase_seq(client)
  out.inflight = phase_inflight(client)
end
out.list_tools = phase_list()
collectgarbage()
out.peak_rss_kb = peak_rss_kb()
io.stdout:write(mcp.json.encode(out), "\n")
