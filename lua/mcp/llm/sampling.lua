--- mcp.llm.sampling: a sampling handler answered by a model. It converts
--- a server's sampling/createMessage (messages, systemPrompt, maxTokens,
--- temperature, stopSequences, tools, toolChoice, modelPreferences) to
--- llm:chat and the reply back to the specification's CreateMessageResult.
--- Whether to ask the model at all is the script's call (approve); the
--- checks of the request and of the result are mcp.handlers'.
--- Exposed as mcp.handlers.sampling_from.
local handlers = require "mcp.handlers"
local agent = require "mcp.agent"

local M = {}

-- ---- the request: MCP sampling -> neutral -----------------------------------

local function list_of(content)
  if type(content) ~= "table" then return {} end
  if content.type ~= nil then return { content } end
  return content
end

-- One sampling content block as neutral blocks.
local function neutral_blocks(b)
  if b.type == "text" then return { { type = "text", text = b.text } } end
  if b.type == "image" then return { { type = "image", data = b.data, mimeType = b.mimeType } } end
  if b.type == "tool_use" then
    return { { type = "tool_call", id = b.id, name = b.name, arguments = b.input or {} } }
  end
  if b.type == "tool_result" then
    -- A tool result's content is a CallToolResult's: the agent's conversion.
    return { { type = "tool_result", tool_call_id = b.toolUseId,
      content = agent.result_blocks(b), is_error = b.isError == true } }
  end
  -- audio: no provider takes it in this shape; the model is told it was there.
  return { { type = "text", text = ("[%s content not shown]"):format(tostring(b.type)) } }
end

local function neutral_messages(messages)
  local out = {}
  for i, m in ipairs(messages) do
    local blocks = {}
    for _, b in ipairs(list_of(m.content)) do
      for _, n in ipairs(neutral_blocks(b)) do blocks[#blocks + 1] = n end
    end
    out[i] = { role = m.role, content = blocks }
  end
  return out
end

local function neutral_tools(tools)
  if type(tools) ~= "table" or #tools == 0 then return nil end
  local out = {}
  for i, t in ipairs(tools) do
    out[i] = { name = t.name, description = t.description,
      input_schema = t.inputSchema or { type = "object", properties = {} } }
  end
  return out
end

-- toolChoice { mode = "auto" | "required" | "none" } as llm:chat takes it.
local function tool_choice(choice)
  if type(choice) ~= "table" then return nil end
  return choice.mode
end

--- syntax: request = mcp.llm.sampling.chat_request(params, opts?)
--- The llm:chat request for sampling/createMessage params. opts.model_map
--- (modelPreferences) -> model name or nil picks the model.
function M.chat_request(params, opts)
  opts = opts or {}
  return {
    messages = neutral_messages(params.messages),
    system = params.systemPrompt,
    max_tokens = params.maxTokens,
    temperature = params.temperature,
    stop_sequences = params.stopSequences,
    tools = neutral_tools(params.tools),
    tool_choice = tool_choice(params.toolChoice),
    model = opts.model_map and params.modelPreferences
      and opts.model_map(params.modelPreferences) or nil,
  }
end

-- ---- the answer: neutral reply -> CreateMessageResult ----------------------------

local STOP_REASONS = { end_turn = "endTurn", tool_use = "toolUse",
                       max_tokens = "maxTokens", stop_sequence = "stopSequence" }

--- syntax: result = mcp.llm.sampling.create_message_result(reply, model)
--- A model's reply as the specification's CreateMessageResult: text and
--- tool_use blocks, one block alone as a block (what servers of every
--- protocol version take), stopReason in the specification's words.
function M.create_message_result(reply, model)
  local content, has_use = {}, false
  for _, b in ipairs(list_of(reply.message and reply.message.content)) do
    if b.type == "text" then
      content[#content + 1] = { type = "text", text = b.text }
    elseif b.type == "tool_call" then
      has_use = true
      content[#content + 1] = { type = "tool_use", id = b.id, name = b.name,
        input = type(b.arguments) == "table" and b.arguments or {} }
    end
  end
  if #content == 0 then content[1] = { type = "text", text = reply.text or "" } end
  local stop = STOP_REASONS[reply.stop_reason] or reply.stop_reason
  if has_use then stop = "toolUse" end   -- the specification ties the two
  return {
    role = "assistant",
    content = #content == 1 and content[1] or content,
    model = reply.model or model or "unknown",
    stopReason = stop,
  }
end

-- ---- the handler ---------------------------------------------------------------

--- syntax: handler = mcp.handlers.sampling_from(llm, opts?)
--- A sampling handler (declaring sampling.tools) that asks llm. opts:
--- approve(params, ctx) -> true | false | "reason" (false or a reason
--- rejects with mcp.reject: the server gets "user rejected", -1);
--- model_map(modelPreferences) -> model name | nil (nil: the llm's own);
--- max_tokens (a cap on the server's maxTokens).
function M.sampling_from(llm, opts)
  if type(llm) ~= "table" or type(llm.chat) ~= "function" then
    error("bad argument #1 to 'sampling_from' (an mcp.llm model expected)", 2)
  end
  opts = opts or {}
  return { tools = true, handler = function(params, ctx)
    if opts.approve then
      local verdict = opts.approve(params, ctx)
      if verdict ~= true then
        return handlers.reject(type(verdict) == "string" and verdict or nil)
      end
    end
    local request = M.chat_request(params, opts)
    if opts.max_tokens and request.max_tokens and request.max_tokens > opts.max_tokens then
      request.max_tokens = opts.max_tokens
    end
    local reply, err = llm:chat(request)
    if not reply then return nil, err end
    return M.create_message_result(reply, request.model or llm.model)
  end }
end

return M
