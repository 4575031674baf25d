--- mcp.agent: the tool loop. Sends the conversation and the tools (the
--- host's, named server_tool, plus the script's own Lua tools) to a model
--- (mcp.llm), runs the tool calls of each reply in parallel, feeds the
--- results back, and stops at an answer, max_turns or the deadline. It
--- speaks the neutral message shape of mcp.llm and knows no provider's
--- wire format. Every step is a small function a script may replace:
--- copy this file, or set fields on the agent (on_turn, on_tool_call...).
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"
local skills = require "mcp.agent.skills"

local M = {}

local Agent = {}
local Agent_mt = { __name = "mcp.Agent", __index = Agent }
M.Agent, M.Agent_mt = Agent, Agent_mt

local DEFAULT_MAX_TURNS = 10

local function deadline_error()
  return errors.new("ETIMEDOUT", "the agent's deadline passed")
end

-- ---- MCP results as model input -----------------------------------------------

local function text_block(text) return { type = "text", text = text } end

local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- An embedded resource: text as text (headed by its URI, so the model
-- knows what it reads), an image blob as an image, other blobs described.
local function resource_blocks(r)
  if type(r) ~= "table" then return { text_block("[resource]") } end
  local uri = tostring(r.uri)
  if type(r.text) == "string" then
    return { text_block(("[resource %s]\n%s"):format(uri, r.text)) }
  end
  if type(r.blob) == "string" and type(r.mimeType) == "string"
      and r.mimeType:match("^image/") then
    return { { type = "image", data = r.blob, mimeType = r.mimeType } }
  end
  return { text_block(("[resource %s: %s, %d bytes of base64 not shown]"):format(
    uri, tostring(r.mimeType or "binary"), type(r.blob) == "string" and #r.blob or 0)) }
end

-- One MCP content block as neutral blocks (text and image are what every
-- provider takes in a tool result).
local function content_blocks(block)
  local kind = type(block) == "table" and block.type
  if kind == "text" then return { text_block(block.text) } end
  if kind == "image" then
    return { { type = "image", data = block.data, mimeType = block.mimeType } }
  end
  if kind == "resource" then return resource_blocks(block.resource) end
  if kind == "resource_link" then
    local parts = { ("[resource link %s: %s"):format(tostring(block.name), tostring(block.uri)) }
    if block.mimeType then parts[#parts + 1] = ", " .. block.mimeType end
    if block.description then parts[#parts + 1] = " - " .. block.description end
    return { text_block(table.concat(parts) .. "]") }
  end
  if kind == "audio" then
    return { text_block(("[audio %s not shown]"):format(tostring(block.mimeType))) }
  end
  return { text_block(("[%s content not shown]"):format(tostring(kind))) }
end

-- The only field's value of a one-field object (servers often wrap their
-- text as { content = text } or { entities = [...] }), else nil.
local function only_field(value)
  if type(value) ~= "table" then return nil end
  local key, v = next(value)
  if key == nil or next(value, key) ~= nil then return nil end
  return v
end

-- True when a text block already says what structuredContent says (the
-- specification asks servers to send both), so that it is not repeated:
-- the text is the structured value, or its only field's value, as JSON
-- or as the very text.
local function text_says(blocks, structured)
  local inner = only_field(structured)
  for _, b in ipairs(blocks) do
    if b.type == "text" then
      if b.text == inner then return true end
      local value = core.json_decode(b.text)
      if value ~= nil and (deep_equal(value, structured)
          or (inner ~= nil and deep_equal(value, inner))) then
        return true
      end
    end
  end
  return false
end

--- syntax: blocks = mcp.agent.result_blocks(result)
--- A CallToolResult as the content of a neutral tool_result block: text
--- as text, images as images, resource links and embedded resources as
--- text, structuredContent as JSON text unless a text block says the same.
function M.result_blocks(result)
  local blocks = {}
  for _, block in ipairs(type(result) == "table" and result.content or {}) do
    for _, b in ipairs(content_blocks(block)) do blocks[#blocks + 1] = b end
  end
  local structured = type(result) == "table" and result.structuredContent
  if structured ~= nil and not text_says(blocks, structured) then
    blocks[#blocks + 1] = text_block(core.json_encode(structured))
  end
  -- Some APIs refuse an empty tool result; the model should know it ran.
  if #blocks == 0 then blocks[1] = text_block("(no output)") end
  return blocks
end

local function error_result(message)
  return { content = { text_block(message) }, isError = true }
end

-- What a Lua tool's handler returned, as a CallToolResult.
local function lua_tool_result(value, err)
  if type(value) == "string" then return { content = { text_block(value) } } end
  if type(value) == "table" then return value end
  if value == nil and err ~= nil then return error_result(tostring(err)) end
  return { content = { text_block(value == nil and "" or tostring(value)) } }
end

-- ---- the agent ------------------------------------------------------------------------

--- syntax: agent = mcp.agent(opts)
--- opts: llm (required: an mcp.llm provider, or anything with chat),
--- host (an mcp.host whose tools are offered), system (text), instructions
--- (false: leave the servers' instructions out of the system prompt),
--- resources ({ { server, uri } }: read and put into the system prompt),
--- tools ({ { name, description, input_schema, handler(args, ctx) } }: Lua
--- tools; handler returns text, a CallToolResult, or nil, err), filter
--- (tool) -> keep, on_result(result, call) -> result, max_turns (default
--- 10), timeout (seconds for a whole run), tool_timeout (seconds per host
--- tool call), skills (false: leave the host's skills out; else they are
--- listed in the system prompt and loaded on demand by the tools
--- load_skill and read_skill_file: see mcp.agent.skills), stream, on_delta(delta), max_tokens, temperature, and the
--- hooks on_turn(agent, turn, reply), on_tool_call(call) -> result?
--- (a result replaces running the tool: approve or deny),
--- on_tool_result(call, result), on_progress(call, progress).
function M.new(opts)
  if type(opts) ~= "table" then error("bad argument #1 to 'agent' (table expected)", 2) end
  local llm = opts.llm
  if type(llm) ~= "table" or type(llm.chat) ~= "function" then
    error("mcp.agent: 'llm' must be a model (mcp.llm.openai{...}, mcp.llm.anthropic{...})", 2)
  end
  for i, t in ipairs(opts.tools or {}) do
    if type(t) ~= "table" or type(t.name) ~= "string" or type(t.handler) ~= "function" then
      error(("mcp.agent: tools[%d] needs a name and a handler"):format(i), 2)
    end
  end
  local self = setmetatable({ messages = {} }, Agent_mt)
  for _, key in ipairs { "host", "llm", "system", "instructions", "resources", "tools",
      "filter", "on_result", "max_turns", "skills", "timeout", "tool_timeout", "stream",
      "on_delta", "max_tokens", "temperature", "on_turn", "on_tool_call", "on_tool_result",
      "on_progress" } do
    self[key] = opts[key]
  end
  self.max_turns = self.max_turns or DEFAULT_MAX_TURNS
  return self
end

function Agent_mt.__tostring(self)
  return ("mcp.Agent(%d messages)"):format(#self.messages)
end

--- syntax: text = agent:system_prompt()
--- The system prompt of a run: opts.system, then every server's
--- instructions, then the chosen resources, each under a heading.
function Agent:system_prompt()
  local parts = {}
  if self.system then parts[#parts + 1] = self.system end
  if self.host and self.instructions ~= false then
    local text = self.host:instructions()
    if text ~= "" then parts[#parts + 1] = "# Instructions from the servers\n\n" .. text end
  end
  for _, r in ipairs(self.resources or {}) do
    parts[#parts + 1] = self:_resource_text(r)
  end
  parts[#parts + 1] = skills.prompt_section(self)
  return #parts > 0 and table.concat(parts, "\n\n") or nil
end

-- A chosen resource as a section of the system prompt. One that cannot be
-- read is said so rather than failing the run: the model may do without.
function Agent:_resource_text(r)
  local result, err = self.host:read(r.server, r.uri)
  local head = ("# Resource %s (%s)"):format(r.uri, r.server)
  if not result then return ("%s\n\n(could not be read: %s)"):format(head, tostring(err)) end
  local texts = {}
  for _, c in ipairs(result.contents or {}) do
    if type(c.text) == "string" then      -- the heading already names it
      texts[#texts + 1] = c.text
    else
      texts[#texts + 1] = resource_blocks(c)[1].text or "[image not shown]"
    end
  end
  return head .. "\n\n" .. table.concat(texts, "\n\n")
end

--- syntax: tools, index = agent:tool_list()
--- The tools offered to the model (neutral: name, description,
--- input_schema) and the index name -> { host = tool } | { lua = tool }.
--- A Lua tool shadows a host tool of the same name.
function Agent:tool_list()
  local list, index = {}, {}
  local function add(tool, entry)
    if self.filter and not self.filter(tool) then return end
    if index[tool.name] then
      for i, t in ipairs(list) do
        if t.name == tool.name then table.remove(list, i) break end
      end
    end
    list[#list + 1] = { name = tool.name, description = tool.description,
      input_schema = tool.input_schema or tool.inputSchema
        or { type = "object", properties = {} } }
    index[tool.name] = entry
  end
  if self.host then
    for _, tool in ipairs((self.host:tools())) do add(tool, { host = tool }) end
  end
  for _, tool in ipairs(skills.tools(self)) do add(tool, { lua = tool }) end
  for _, tool in ipairs(self.tools or {}) do add(tool, { lua = tool }) end
  return list, index
end

-- One model reply, within the deadline (the request is cancelled then).
function Agent:_ask(tools, system, deadline)
  local request = { messages = self.messages, system = system,
    tools = #tools > 0 and tools or nil, stream = self.stream, on_delta = self.on_delta,
    max_tokens = self.max_tokens, temperature = self.temperature }
  local outcomes, timed_out = task.all({ function() return self.llm:chat(request) end }, deadline)
  if timed_out then return nil, deadline_error() end
  return outcomes[1][1], outcomes[1][2]
end

-- Runs one tool call to its CallToolResult. handles[i] gets the host
-- request's handle, so that the deadline can cancel it.
function Agent:_run_call(call, entry, handles, i)
  if self.on_tool_call then
    -- Only a result (a table, or text) replaces the call: a hook that
    -- merely logs may return whatever its last call returned.
    local replaced = self.on_tool_call(call)
    if type(replaced) == "table" or type(replaced) == "string" then
      return lua_tool_result(replaced)
    end
  end
  if not entry then
    return error_result(("no tool named %q; use one of the tools offered"):format(
      tostring(call.name)))
  end
  if type(call.arguments) ~= "table" then
    return error_result(call.arguments_error
      or ("the arguments are not a JSON object: " .. tostring(call.arguments)))
  end
  if entry.lua then
    local ok, value, err = pcall(entry.lua.handler, call.arguments,
      { agent = self, call = call })
    if not ok then return error_result(("tool %s failed: %s"):format(call.name, tostring(value))) end
    return lua_tool_result(value, err)
  end
  local req, err = self.host:start_call(call.name, call.arguments, {
    timeout = self.tool_timeout,
    on_progress = self.on_progress and function(p) self.on_progress(call, p) end,
  })
  if not req then return error_result(tostring(err)) end
  handles[i] = req
  local result
  result, err = req:wait()
  if not result then return error_result(("tool %s failed: %s"):format(call.name, tostring(err))) end
  return result
end

-- Runs every tool call of a reply in parallel and returns the user message
-- of their tool_result blocks (in the calls' order), and whether the
-- deadline passed. A call the deadline cut is answered as an error, so
-- that agent.messages stays a valid conversation to continue.
function Agent:_run_calls(calls, index, deadline)
  local handles, jobs = {}, {}
  for i, call in ipairs(calls) do
    jobs[i] = function()
      local result = self:_run_call(call, index[call.name], handles, i)
      if self.on_result then result = self.on_result(result, call) or result end
      if self.on_tool_result then self.on_tool_result(call, result) end
      return result
    end
  end
  local outcomes, timed_out = task.all(jobs, deadline, function()
    for _, req in pairs(handles) do req:cancel("the agent's deadline passed") end
  end)
  local blocks = {}
  for i, call in ipairs(calls) do
    local result = outcomes[i] and outcomes[i][1]
      or error_result("cancelled: the agent's deadline passed")
    blocks[i] = { type = "tool_result", tool_call_id = call.id,
      content = M.result_blocks(result), is_error = result.isError == true }
  end
  return { role = "user", content = blocks }, timed_out
end

-- Adds a prompt (text, one message, or a list of messages) to the
-- conversation.
function Agent:_add(input)
  if input == nil then return end
  if type(input) == "string" then
    self.messages[#self.messages + 1] = { role = "user", content = input }
  elseif type(input) == "table" and input.role then
    self.messages[#self.messages + 1] = input
  elseif type(input) == "table" then
    for _, m in ipairs(input) do self.messages[#self.messages + 1] = m end
  else
    error("bad argument #1 to 'run' (string or messages expected)", 3)
  end
end

--- syntax: answer, err = agent:run(prompt?)
--- prompt: text, a message, a list of messages, or nil (go on with
--- agent.messages as they are). Returns the final answer's text; after
--- max_turns the last reply's text with agent.stopped = "max_turns".
--- agent.stopped: "answer", "max_turns", "timeout" or "error";
--- agent.turns: the model replies of this run; agent.usage: the tokens.
function Agent:run(prompt)
  self:_add(prompt)
  self._skills = nil             -- listed again for each run
  local deadline = self.timeout and core.now() + self.timeout * 1000 or nil
  local system = self:system_prompt()
  self.turns, self.usage, self.stopped = 0, { input_tokens = 0, output_tokens = 0 }, nil
  local text = nil
  while self.turns < self.max_turns do
    local tools, index = self:tool_list()
    local reply, err = self:_ask(tools, system, deadline)
    if not reply then
      self.stopped = errors.is(err, "ETIMEDOUT") and "timeout" or "error"
      return nil, err
    end
    self.turns = self.turns + 1
    self:_count(reply.usage)
    self.messages[#self.messages + 1] = reply.message
    text = reply.text
    if self.on_turn then self.on_turn(self, self.turns, reply) end
    if not reply.tool_calls or #reply.tool_calls == 0 then
      self.stopped = "answer"
      return text
    end
    local results, timed_out = self:_run_calls(reply.tool_calls, index, deadline)
    self.messages[#self.messages + 1] = results
    if timed_out then
      self.stopped = "timeout"
      return nil, deadline_error()
    end
  end
  self.stopped = "max_turns"
  return text
end

function Agent:_count(usage)
  if type(usage) ~= "table" then return end
  self.usage.input_tokens = self.usage.input_tokens + (usage.input_tokens or 0)
  self.usage.output_tokens = self.usage.output_tokens + (usage.output_tokens or 0)
end

--- syntax: answer, err = agent:run_prompt(server, name, args?)
--- Starts from a server's prompt (host:get_prompt's messages), then runs.
function Agent:run_prompt(server, name, args)
  if not self.host then error("run_prompt: the agent has no host", 2) end
  local messages, err = self.host:get_prompt(server, name, args)
  if not messages then return nil, err end
  local list = {}
  for i, m in ipairs(messages) do
    local content = m.content
    if type(content) == "table" then   -- a block host:get_prompt kept as it came
      content = content_blocks(content)
    end
    list[i] = { role = m.role, content = content }
  end
  return self:run(list)
end

--- syntax: agent:reset() -- forgets the conversation
function Agent:reset()
  self.messages = {}
  self._loaded_skills = nil
end

-- mcp.agent{...} is mcp.agent.new{...}.
return setmetatable(M, { __call = function(_, opts) return M.new(opts) end })
