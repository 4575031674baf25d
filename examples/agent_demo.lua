-- agent_demo.lua - `make demo`: an agent in a few lines of Lua. A model
-- gets the tools of three real MCP servers (server-everything,
-- server-filesystem on a temporary folder, server-memory with its
-- knowledge graph in that folder; examples/demo/luamcp.json) and does a
-- task of several steps: list the folder, read the notes, record the
-- people in the knowledge graph while adding up their hours, write a
-- summary, answer. Each tool call is printed as it happens.
--
-- The model: the scripted LLM fixture (spec/fixtures/llm.js, on
-- 127.0.0.1, following examples/demo/script.json) unless OPENAI_API_KEY
-- or ANTHROPIC_API_KEY (and OPENAI_BASE_URL / ANTHROPIC_BASE_URL) is set;
-- the demo says which it uses.
--
-- Usage: luamcp run examples/agent_demo.lua [--anthropic] [--model M]
--   --anthropic   the fixture speaks the Anthropic wire format (default OpenAI)
--   --model M     the model of a real provider
local mcp = require "mcp"
local core = require "mcp.core"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "examples"
package.path = here .. "/lib/?.lua;" .. package.path
local llm_fixture = require "llm_fixture"
local config = require "mcp.host.config"

local opts = {}
do
  local i = 1
  while arg[i] do
    if arg[i] == "--anthropic" then opts.provider = "anthropic"
    elseif arg[i] == "--model" then opts.model, i = arg[i + 1], i + 1
    else error("usage: luamcp run examples/agent_demo.lua [--anthropic] [--model M]", 0) end
    i = i + 1
  end
end

local root = llm_fixture.root()
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- A temporary folder with a copy of the notes; removed at the end.
local tmp = assert(io.popen("mktemp -d /tmp/luamcp-demo-XXXXXX")):read("l")
local _ <close> = setmetatable({}, { __close = function()
  os.execute("rm -rf " .. q(tmp))
end })
local dir = tmp .. "/notes"
assert(os.execute(("cp -r %s %s"):format(q(root .. "/examples/demo/notes"), q(dir))))

-- The config file is read as it is; its {env:...} variables come from here.
local vars = {
  LUAMCP_NODE_MODULES = os.getenv("LUAMCP_NODE_MODULES") or root .. "/.deps/npm/node_modules",
  DEMO_DIR = dir,
  DEMO_MEMORY_FILE = tmp .. "/memory.jsonl",
}
local cfg = assert(config.load(root .. "/examples/demo/luamcp.json", {
  env = function(name) return vars[name] or os.getenv(name) end,
}))

local llm, fixture, label = llm_fixture.model(root .. "/examples/demo/script.json", {
  provider = opts.provider, model = opts.model, vars = vars,
})
local _ <close> = fixture
print("Model: " .. label)

local host <close> = assert(mcp.host{
  servers = cfg.servers,
  on_stderr = function() end,        -- the servers' banners would hide the demo
})
for _, name in ipairs(host:names()) do
  local s = host:status()[name]
  print(("Server %-10s %s, %d tools"):format(name, s.state, s.tools or 0))
end

local function one_line(text, max)
  text = tostring(text):gsub("%s+", " ")
  if #text > max then text = text:sub(1, max - 3) .. "..." end
  return text
end

local agent = mcp.agent{
  host = host,
  llm = llm,
  system = "You are a careful assistant. Use the tools; say what you did.",
  max_turns = 8,
  timeout = 120,
  on_turn = function(_, turn, reply)
    if reply.tool_calls and #reply.tool_calls > 0 and reply.text ~= "" then
      print(("\n[turn %d] %s"):format(turn, one_line(reply.text, 200)))
    end
  end,
  on_tool_call = function(call)
    print(("  -> %s %s"):format(call.name, one_line(mcp.json.encode(call.arguments), 160)))
  end,
  on_tool_result = function(call, result)
    local text = {}
    for _, b in ipairs(result.content or {}) do text[#text + 1] = b.text or ("[" .. b.type .. "]") end
    print(("  <- %s%s: %s"):format(call.name, result.isError and " (error)" or "",
      one_line(table.concat(text, " "), 160)))
  end,
}

local task = ("The folder %s has notes about a team. Read them, record each person "
  .. "in the knowledge graph with what they work on and their hours, add up the "
  .. "hours with the get-sum tool, write a short summary to summary.md in that "
  .. "folder, and tell me what you did."):format(dir)
print("\nTask: " .. task)

local started = core.now()
local answer, err = agent:run(task)
if not answer then error("the agent failed: " .. tostring(err), 0) end
print(("\nAnswer (%d turns, %d ms):\n%s"):format(agent.turns, core.now() - started, answer))

-- What the tools left behind: the proof that they really ran.
local summary = io.open(dir .. "/summary.md")
if summary then
  print("\nsummary.md:\n" .. summary:read("a"))
  summary:close()
end
local graph = io.open(vars.DEMO_MEMORY_FILE)
if graph then
  local n = 0
  for _ in graph:lines() do n = n + 1 end
  graph:close()
  print(("The knowledge graph (%s) holds %d records."):format(vars.DEMO_MEMORY_FILE, n))
end
