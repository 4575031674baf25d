--- mcp.llm.openai_answer: an OpenAI chat completion, whole or streamed as
--- chat.completion.chunk events, read into the neutral reply. Every field
--- used is checked: what is not as documented is an EPROTO error saying
--- what and where. No I/O.
local core = require "mcp.core"
local errors = require "mcp.errors"
local reply = require "mcp.llm.reply"

local M = {}
local PROVIDER = "openai"

M.STOP_REASONS = {
  stop = "end_turn", tool_calls = "tool_use", function_call = "tool_use",
  length = "max_tokens", content_filter = "refusal",
}

local function stop_reason(finish)
  if finish == nil or finish == core.null then return nil end
  return M.STOP_REASONS[finish] or finish
end

local function usage_of(u)
  if type(u) ~= "table" then return nil end
  return { input_tokens = u.prompt_tokens, output_tokens = u.completion_tokens }
end

local function is_list(v)
  return type(v) == "table" and getmetatable(v) == core.array_mt
end

local function str(v) return type(v) == "string" and v or nil end

-- An error object in a 200 answer or a stream (vLLM and OpenRouter send them).
local function embedded_error(doc)
  local e = doc.error
  if type(e) ~= "table" then return nil end
  return errors.new("EHTTP", ("openai: %s"):format(str(e.message) or "error"),
    { provider = PROVIDER, status = tonumber(e.code) or 200, type = str(e.type) })
end

--- syntax: reply, err = openai_answer.completion(doc)
function M.completion(doc)
  local bad = function(what) return nil, reply.malformed(PROVIDER, "the answer", what) end
  if type(doc) ~= "table" then return bad("not a JSON object") end
  local e = embedded_error(doc)
  if e then return nil, e end
  if not is_list(doc.choices) or #doc.choices == 0 then return bad("no choices") end
  local msg = doc.choices[1].message
  if type(msg) ~= "table" then return bad("choices[0] has no message") end
  local content = {}
  if msg.content ~= nil and msg.content ~= core.null then
    if type(msg.content) ~= "string" then return bad("choices[0].message.content is not a string") end
    if msg.content ~= "" then content[1] = { type = "text", text = msg.content } end
  end
  if msg.tool_calls ~= nil and msg.tool_calls ~= core.null then
    if not is_list(msg.tool_calls) then return bad("choices[0].message.tool_calls is not an array") end
    for i, c in ipairs(msg.tool_calls) do
      local fn = type(c) == "table" and c["function"]
      if type(fn) ~= "table" or not str(fn.name) or not str(c.id) then
        return bad(("tool_calls[%d] lacks id, function.name or function.arguments"):format(i - 1))
      end
      local call = { type = "tool_call", id = c.id, name = fn.name }
      reply.set_arguments(PROVIDER, call, str(fn.arguments) or "")
      content[#content + 1] = call
    end
  end
  local r = reply.build{ content = content, stop_reason = stop_reason(doc.choices[1].finish_reason),
    usage = usage_of(doc.usage), model = str(doc.model), id = str(doc.id) }
  r.refusal = str(msg.refusal)
  return r
end

--- syntax: stream = openai_answer.stream(on_delta?)
--- stream.on_event(ev) -> nil | err, for each SSE event as it arrives;
--- stream.reply() -> reply, err once the answer has ended.
function M.stream(on_delta)
  local s = { text = {}, calls = {}, n = 0, count = 0 }
  local emit = on_delta or function() end

  local function bad(what)
    return reply.malformed(PROVIDER, ("stream chunk %d"):format(s.n), what)
  end

  local function tool_delta(tc)
    if type(tc) ~= "table" then return bad("a tool_calls entry is not an object") end
    local index = math.tointeger(tc.index)
    if not index then
      -- Some servers leave index out: a new id starts a call, else the last.
      index = (str(tc.id) or not s.last) and #s.calls or s.last
    end
    local call = s.calls[index + 1]
    if not call then
      call = { parts = {} }
      s.calls[index + 1] = call
      s.count = math.max(s.count, index + 1)
    end
    s.last = index
    local fn = tc["function"]
    if fn ~= nil and type(fn) ~= "table" then return bad("tool_calls[].function is not an object") end
    fn = fn or {}
    if str(tc.id) then call.id = tc.id end
    if str(fn.name) then call.name = (call.name or "") .. fn.name end
    local fragment = str(fn.arguments) or ""
    call.parts[#call.parts + 1] = fragment
    emit{ type = "tool_call", index = index + 1, id = str(tc.id), name = str(fn.name),
          arguments = fragment }
  end

  function s.on_event(ev)
    if s.done then return nil end
    s.n = s.n + 1
    if ev.data == "[DONE]" then
      s.done = true
      return nil
    end
    local doc, jerr = core.json_decode(ev.data)
    if type(doc) ~= "table" then
      return bad(("not a JSON object (%s): %s"):format(
        jerr and jerr.message or type(doc), reply.excerpt(ev.data)))
    end
    local e = embedded_error(doc)
    if e then return e end
    s.id, s.model = s.id or str(doc.id), s.model or str(doc.model)
    if type(doc.usage) == "table" then s.usage = usage_of(doc.usage) end
    if doc.choices == nil or doc.choices == core.null then return nil end
    if not is_list(doc.choices) then return bad("choices is not an array") end
    local choice = doc.choices[1]
    if choice == nil then return nil end   -- the usage chunk
    local delta = choice.delta
    if delta ~= nil and type(delta) ~= "table" then return bad("choices[0].delta is not an object") end
    delta = delta or {}
    if str(delta.content) and delta.content ~= "" then
      s.text[#s.text + 1] = delta.content
      emit{ type = "text", text = delta.content }
    elseif delta.content ~= nil and delta.content ~= core.null and not str(delta.content) then
      return bad("choices[0].delta.content is not a string")
    end
    if str(delta.refusal) then s.refusal = (s.refusal or "") .. delta.refusal end
    if delta.tool_calls ~= nil and delta.tool_calls ~= core.null then
      if not is_list(delta.tool_calls) then return bad("choices[0].delta.tool_calls is not an array") end
      for _, tc in ipairs(delta.tool_calls) do
        local err = tool_delta(tc)
        if err then return err end
      end
    end
    s.finish = stop_reason(choice.finish_reason) or s.finish
    return nil
  end

  function s.reply()
    if not s.done and not s.finish then
      return nil, reply.malformed(PROVIDER, "the stream",
        ("it ended after %d chunks without a finish_reason or [DONE]"):format(s.n))
    end
    local content = {}
    if #s.text > 0 then content[1] = { type = "text", text = table.concat(s.text) } end
    for i = 1, s.count do
      local c = s.calls[i]
      if c then
        if not c.name then
          return nil, reply.malformed(PROVIDER, "the stream", ("tool call %d has no name"):format(i - 1))
        end
        local call = { type = "tool_call", id = c.id or ("call_" .. i), name = c.name }
        reply.set_arguments(PROVIDER, call, table.concat(c.parts))
        content[#content + 1] = call
      end
    end
    local r = reply.build{ content = content, stop_reason = s.finish, usage = s.usage,
                           model = s.model, id = s.id }
    r.refusal = s.refusal
    return r
  end

  return s
end

return M
