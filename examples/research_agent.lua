-- research_agent.lua - an agent that gathers facts from several servers
-- at once and keeps its findings in Lua:
--
--   * server-filesystem (read-only tools only: the agent's filter keeps
--     the tools annotated readOnlyHint) over a copy of examples/demo/notes,
--   * server-memory, a knowledge graph that already knows a milestone,
--   * server-everything, whose instructions and one of its documents
--     (a resource) go into the system prompt,
--   * and a tool of the script's own, save_finding, a Lua function.
--
-- The model asks for several tools in one turn; they run in parallel,
-- each on its own server. The answer comes with the findings the model
-- saved, the turns and the tokens.
--
-- The model: the scripted LLM fixture unless OPENAI_API_KEY or
-- ANTHROPIC_API_KEY is set.
--
-- Usage: luamcp run examples/research_agent.lua ["question"]
local mcp = require "mcp"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "examples"
package.path = here .. "/lib/?.lua;" .. package.path
local llm_fixture = require "llm_fixture"

local root = llm_fixture.root()
local modules = os.getenv("LUAMCP_NODE_MODULES") or root .. "/.deps/npm/node_modules"
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local tmp = assert(io.popen("mktemp -d /tmp/luamcp-research-XXXXXX")):read("l")
local _ <close> = setmetatable({}, { __close = function() os.execute("rm -rf " .. q(tmp)) end })
local dir = tmp .. "/notes"
assert(os.execute(("cp -r %s %s"):format(q(root .. "/examples/demo/notes"), q(dir))))
-- What the knowledge graph knows before the agent starts.
local memory_file = tmp .. "/memory.jsonl"
do
  local f = assert(io.open(memory_file, "w"))
  f:write(mcp.json.encode{ type = "entity", name = "Release 0.3", entityType = "milestone",
    observations = mcp.array{ "waits for the parser to handle comments" } }, "\n")
  f:close()
end

local question = arg[1] or "Who works on what, and what does release 0.3 wait for?"

local llm, fixture, label = llm_fixture.model({
  { text = "I will look at the notes and the knowledge graph at once.",
    tool_calls = {
      { name = "filesystem_search_files", arguments = { path = dir, pattern = "*.md" } },
      { name = "memory_search_nodes", arguments = { query = "0.3" } },
    }, expect_tool = "save_finding" },
  { tool_calls = {
      { name = "filesystem_read_multiple_files",
        arguments = { paths = { dir .. "/team.md", dir .. "/todo.md" } } },
    } },
  { tool_calls = {
      { name = "save_finding", arguments = { topic = "people",
        finding = "Ada works on the parser, Grace on the compiler." } },
      { name = "save_finding", arguments = { topic = "release 0.3",
        finding = "Release 0.3 waits for the parser to handle comments: Ada's work." } },
    } },
  { text = "Ada works on the parser and Grace on the compiler; release 0.3 waits for "
      .. "the parser to handle comments, so it waits for Ada. ({{last_tool_result}})" },
})
local _ <close> = fixture
print("Model: " .. label)

local host <close> = assert(mcp.host{
  servers = {
    everything = { command = { "node", modules
      .. "/@modelcontextprotocol/server-everything/dist/index.js", "stdio" } },
    filesystem = { command = { "node", modules
      .. "/@modelcontextprotocol/server-filesystem/dist/index.js", dir } },
    memory = { command = { "node", modules .. "/@modelcontextprotocol/server-memory/dist/index.js" },
      env = { MEMORY_FILE_PATH = memory_file } },
  },
  on_stderr = function() end,
})

local findings = {}
local agent = mcp.agent{
  host = host,
  llm = llm,
  system = "You research questions with the tools you have. Save each finding with "
    .. "save_finding before you answer.",
  resources = { { server = "everything", uri = "demo://resource/static/document/features.md" } },
  tools = {
    { name = "save_finding", description = "Keep a finding for the final report.",
      input_schema = { type = "object", required = { "topic", "finding" }, properties = {
        topic = { type = "string" }, finding = { type = "string" } } },
      handler = function(args)
        findings[#findings + 1] = args
        return ("saved: %d findings so far"):format(#findings)
      end },
  },
  -- Only tools that promise not to change anything, and the script's own.
  filter = function(tool)
    if tool.server == nil then return true end
    if tool.server == "everything" then return false end
    return (tool.annotations or {}).readOnlyHint == true
  end,
  on_turn = function(_, turn, reply)
    local names = {}
    for _, call in ipairs(reply.tool_calls or {}) do names[#names + 1] = call.name end
    print(("[turn %d] %s"):format(turn, #names > 0 and table.concat(names, ", ") or "answer"))
  end,
  on_tool_result = function(call, result)
    local text = (result.content and result.content[1] and result.content[1].text or "")
      :gsub("%s+", " ")
    print(("  %s: %s"):format(call.name, #text > 120 and text:sub(1, 117) .. "..." or text))
  end,
}

print(("%d tools offered, question: %s"):format(#agent:tool_list(), question))
local answer = assert(agent:run(question))
print("\nAnswer: " .. answer)
print("\nFindings:")
for _, f in ipairs(findings) do print(("  [%s] %s"):format(f.topic, f.finding)) end
print(("\n%d turns, %d tokens in, %d out"):format(agent.turns, agent.usage.input_tokens,
  agent.usage.output_tokens))
