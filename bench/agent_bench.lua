--- agent_bench.lua: the agent loop's own cost per turn (issue 15), with
--- the tools of several servers offered: everything mcp.agent and the
--- provider do in a turn but the model's time and the tool's.
---
--- Usage: build/luamcp run bench/agent_bench.lua
---          --server build/bench/fixture_server [--servers 5] [--tools 20]
---          [--runs 300] [--calls-per-run 4] [--cpath build/bench]
---
--- The servers: --servers copies of the C fixture server over stdio with
--- --tools tools each (100 tools by default), in one mcp.host. The model:
--- an mcp.llm.openai object whose chat does all of its own work but the
--- HTTP exchange: it builds the request body (the conversation, the
--- system prompt and the 100 tool definitions) and encodes it as JSON as
--- it would send it, then decodes and parses a canned answer from JSON
--- text: a tool call (to a different server's tool each turn) for the
--- first --calls-per-run turns of a run, then a final answer. The tool
--- answers at once (the C fixture echoes).
---
--- A run is one agent:run of calls-per-run + 1 turns on a fresh
--- conversation. Figures (one JSON object on stdout):
---   turn_us        median run time / turns: the loop, the provider's
---                  request and answer, and the tool round trips
---   tool_call_us   median of a direct client:call_tool to the same
---                  servers (the tool's share: the server and the pipe)
---   own_turn_us    (median run - calls-per-run * tool_call_us) / turns:
---                  the agent's own overhead per turn (tool list
---                  conversion, message building, JSON, routing)
---   request_kb     the size of the last request body built
local mcp = require "mcp"
local core = require "mcp.core"

-- ---- arguments ------------------------------------------------------------------

local opts = { server = nil, servers = 5, tools = 20, runs = 300, calls_per_run = 4,
               cpath = "build/bench", warmup = 20 }
do
  local i = 1
  while arg[i] do
    local key = arg[i]:match("^%-%-(.+)$")
    if not key or arg[i + 1] == nil then
      error("bad argument '" .. arg[i] .. "' (see the usage in the header)")
    end
    key = key:gsub("%-", "_")
    if type(opts[key]) == "number" then
      opts[key] = assert(tonumber(arg[i + 1]), "--" .. key .. " needs a number")
    else
      opts[key] = arg[i + 1]
    end
    i = i + 2
  end
end
assert(opts.server, "--server PATH (the C fixture server) is required")
package.cpath = opts.cpath .. "/?.so;" .. package.cpath
local now_ns = require("benchclock").now_ns

local function median(list)
  local sorted = table.move(list, 1, #list, 1, {})
  table.sort(sorted)
  local n = #sorted
  if n % 2 == 1 then return sorted[(n + 1) // 2] end
  return (sorted[n // 2] + sorted[n // 2 + 1]) / 2
end

-- ---- the servers ------------------------------------------------------------------

local servers, names = {}, {}
for i = 1, opts.servers do
  local name = ("s%d"):format(i)
  names[i] = name
  servers[name] = { command = { opts.server, "--tools", tostring(opts.tools) } }
end
local host <close> = assert(mcp.host{ servers = servers })
for _, name in ipairs(names) do
  local s = host:status()[name]
  assert(s.state == "connected", ("server %s: %s %s"):format(name, s.state, tostring(s.error)))
end
local ntools = #host:tools()
assert(ntools == opts.servers * opts.tools, ("%d tools, expected %d"):format(ntools,
  opts.servers * opts.tools))

-- ---- the model: the provider's work without the HTTP exchange ---------------------

local ARGS_JSON = mcp.json.encode{ message = "hello" }
local function tool_name(i)
  local server = names[(i - 1) % #names + 1]
  return ("%s_tool-%d"):format(server, (i - 1) % (opts.tools - 1) + 1)
end
local function answer_text(i, final)
  local message
  if final then
    message = { role = "assistant", content = "Done: every tool answered." }
  else
    message = { role = "assistant", content = mcp.null, tool_calls = mcp.array{ {
      id = "call_" .. i, type = "function",
      ["function"] = { name = tool_name(i), arguments = ARGS_JSON } } } }
  end
  return mcp.json.encode{ id = "chatcmpl-bench", object = "chat.completion", created = 0,
    model = "bench", choices = mcp.array{ { index = 0, message = message,
      finish_reason = final and "stop" or "tool_calls" } },
    usage = { prompt_tokens = 1, completion_tokens = 1, total_tokens = 2 } }
end

local real = mcp.llm.openai{ model = "bench", api_key = "unused",
  base_url = "http://127.0.0.1:9/v1" }
local turn, request_bytes = 0, 0
local answers = {}
for i = 1, opts.calls_per_run do answers[i] = answer_text(i, false) end
answers[opts.calls_per_run + 1] = answer_text(0, true)

local fake = setmetatable({}, { __index = real })
function fake:chat(req)
  turn = turn + 1
  request_bytes = #core.json_encode(real:body(req, false))
  local doc = assert(core.json_decode(answers[turn]))
  return real.completion(doc)
end

local agent = mcp.agent{ host = host, llm = fake, max_turns = opts.calls_per_run + 2 }

local function one_run()
  agent:reset()
  turn = 0
  local t0 = now_ns()
  local answer, err = agent:run("Call the tools.")
  local dt = now_ns() - t0
  assert(answer, err)
  assert(agent.turns == opts.calls_per_run + 1, "turns: " .. tostring(agent.turns))
  -- Every tool answered (the fixture echoes), nothing was an error.
  for _, m in ipairs(agent.messages) do
    for _, b in ipairs(type(m.content) == "table" and m.content or {}) do
      assert(not b.is_error, "a tool call failed: " .. mcp.json.encode(b))
    end
  end
  return dt
end

for _ = 1, opts.warmup do one_run() end
local runs = {}
for i = 1, opts.runs do runs[i] = one_run() end

-- The tools' share: the same calls, straight to the servers.
local calls = {}
local n_calls = math.max(opts.runs * opts.calls_per_run // 2, 50)
for i = 1, n_calls do
  local server, tool = tool_name(i):match("^(s%d+)_(.+)$")
  local client = host:client(server)
  local t0 = now_ns()
  assert(client:call_tool(tool, { message = "hello" }))
  calls[i] = now_ns() - t0
end

local turns = opts.calls_per_run + 1
local run_ns, call_ns = median(runs), median(calls)
io.stdout:write(mcp.json.encode{
  servers = opts.servers, tools = ntools, runs = opts.runs, turns_per_run = turns,
  calls_per_run = opts.calls_per_run,
  turn_us = run_ns / turns / 1e3,
  tool_call_us = call_ns / 1e3,
  own_turn_us = (run_ns - opts.calls_per_run * call_ns) / turns / 1e3,
  request_kb = request_bytes / 1024,
}, "\n")
