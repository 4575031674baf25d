--- llm_fixture.lua: the examples' way to a model without a network. It
--- starts spec/fixtures/llm.js (a scripted model speaking the OpenAI and
--- Anthropic wire formats, on 127.0.0.1 only) with a script of turns, and
--- stops it. Or, when OPENAI_API_KEY / ANTHROPIC_API_KEY is set, the
--- examples use that provider instead (llm_fixture.model does the choice).
---
--- Examples find this file through examples.path(): they add
--- examples/lib to package.path from their own location.
local mcp = require "mcp"
local core = require "mcp.core"

local M = {}

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function slurp(path)
  local f = io.open(path, "r")
  if not f then return "" end
  local text = f:read("a")
  f:close()
  return text
end

local function alive(pid)
  local f = io.open("/proc/" .. tostring(pid) .. "/stat", "r")
  if not f then return false end
  local state = f:read("a"):match("^%d+ %b() (%a)")
  f:close()
  return state ~= nil and state ~= "Z" and state ~= "X"
end

local function own_pid()
  local f = assert(io.open("/proc/self/stat", "r"))
  local pid = tonumber(f:read("a"):match("^(%d+)"))
  f:close()
  return pid
end

-- Waits (in a task) until pid is gone, up to `within` seconds.
local function wait_dead(pid, within)
  local deadline = core.now() + within * 1000
  while alive(pid) do
    if core.now() > deadline then return false end
    mcp.sleep(0.02)
  end
  return true
end

--- syntax: root = llm_fixture.root() -- the repository (examples/..)
function M.root()
  local here = debug.getinfo(1, "S").source:match("^@(.*)/lib/[^/]*$") or "examples"
  if here:sub(1, 1) ~= "/" then here = core.cwd() .. "/" .. here end
  return (here:gsub("/examples$", ""))
end

--- syntax: fixture = llm_fixture.start(turns, vars?) -- inside a task
--- Starts the fixture with a script: turns (a Lua list, or a path of a
--- JSON file) in which every "${NAME}" is replaced by vars.NAME (a demo's
--- temporary directory, say). Returns { url = "http://127.0.0.1:P",
--- port, pid, stop(), requests() } (also a to-be-closed value); raises
--- with the fixture's stderr when it does not start within 10 s.
function M.start(turns, vars)
  local text = type(turns) == "string" and slurp(turns) or mcp.json.encode(turns)
  if text == "" then error("llm_fixture: cannot read the script " .. tostring(turns), 2) end
  text = text:gsub("%${([%w_]+)}", function(name)
    local v = (vars or {})[name]
    if v == nil then return nil end
    -- Inside a JSON string: escape what JSON would.
    return (mcp.json.encode(tostring(v)):sub(2, -2))
  end)
  local script, out, err, pidfile = os.tmpname(), os.tmpname(), os.tmpname(), os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(text)
  f:close()
  -- In the background, so that the loop goes on; its pid comes back in a
  -- file. The fixture exits by itself when this process dies
  -- (LUAMCP_TEST_PID: spec/fixtures/lib/watch_parent.js).
  assert(os.execute(("LUAMCP_TEST_PID=%d node %s --script %s >%s 2>%s </dev/null & echo $! >%s")
    :format(own_pid(), q(M.root() .. "/spec/fixtures/llm.js"), q(script), q(out), q(err),
      q(pidfile))))
  local pid = tonumber(slurp(pidfile):match("%d+"))
  local fixture = setmetatable({ pid = pid }, { __close = function(s) s.stop() end })
  function fixture.stop()
    if fixture.stopped then return end
    fixture.stopped = true
    if pid then
      os.execute("kill " .. pid .. " 2>/dev/null")
      if not wait_dead(pid, 5) then os.execute("kill -9 " .. pid .. " 2>/dev/null") end
    end
    for _, p in ipairs { script, out, err, pidfile } do os.remove(p) end
  end
  --- The request bodies the fixture received (GET /requests).
  function fixture.requests()
    local res = assert(mcp.http.request{ url = fixture.url .. "/requests" })
    return assert(mcp.json.decode(res.body))
  end
  local deadline = core.now() + 10000
  while true do
    local port = ("\n" .. slurp(out)):match("\nREADY (%d+)\n")
    if port then
      fixture.port = tonumber(port)
      fixture.url = "http://127.0.0.1:" .. port
      return fixture
    end
    if core.now() > deadline or (pid and not alive(pid)) then
      local stderr = slurp(err)
      fixture.stop()
      error("the LLM fixture did not start: " .. stderr, 2)
    end
    mcp.sleep(0.02)
  end
end

local function set(name)
  local v = os.getenv(name)
  return v ~= nil and v ~= ""
end

--- syntax: llm, fixture, label = llm_fixture.model(turns, opts?) -- in a task
--- The model an example talks to: a real provider when OPENAI_API_KEY or
--- ANTHROPIC_API_KEY is set, or OPENAI_BASE_URL alone (a local server
--- that needs no key), and opts.real ~= false; otherwise the
--- fixture started with turns (the OpenAI wire format, or Anthropic's
--- with opts.provider = "anthropic"). label says which, for people.
--- opts: provider, model, vars (for the script), stream, real.
function M.model(turns, opts)
  opts = opts or {}
  local llm_mod = require "mcp.llm"
  if opts.real ~= false and (set("OPENAI_API_KEY") or set("OPENAI_BASE_URL")
      or set("ANTHROPIC_API_KEY")) then
    local llm = assert(llm_mod.from_env{ model = opts.model, stream = opts.stream })
    return llm, nil, ("%s, model %s at %s (from the environment)"):format(
      llm.provider, tostring(llm.model), tostring(llm.base_url or "its default URL"))
  end
  local fixture = M.start(turns, opts.vars)
  local provider = opts.provider or "openai"
  local llm
  if provider == "anthropic" then
    llm = llm_mod.anthropic{ base_url = fixture.url, api_key = "fixture",
      model = "claude-fixture", stream = opts.stream }
  else
    llm = llm_mod.openai{ base_url = fixture.url .. "/v1", api_key = "fixture",
      model = "gpt-fixture", stream = opts.stream }
  end
  return llm, fixture, ("the scripted LLM fixture (spec/fixtures/llm.js, %s wire format) at %s; "
    .. "set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real model"):format(provider, fixture.url)
end

return M
