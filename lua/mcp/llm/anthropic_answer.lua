--- mcp.llm.anthropic_answer: an Anthropic message, whole or streamed
--- (message_start, content_block_start / _delta / _stop, message_delta,
--- message_stop, ping, error), read into the neutral reply. What is not as
--- documented is an EPROTO error saying what and where. No I/O.
local core = require "mcp.core"
local errors = require "mcp.errors"
local reply = require "mcp.llm.reply"

local M = {}
local PROVIDER = "anthropic"

-- The HTTP status an error type stands for (a stream's error event has none).
local STATUS = { invalid_request_error = 400, authentication_error = 401,
  permission_error = 403, not_found_error = 404, request_too_large = 413,
  rate_limit_error = 429, api_error = 500, overloaded_error = 529 }

local function str(v) return type(v) == "string" and v or nil end

local function is_list(v)
  return type(v) == "table" and getmetatable(v) == core.array_mt
end

local function usage_of(u, into)
  into = into or {}
  if type(u) ~= "table" then return into end
  if math.type(u.input_tokens) then into.input_tokens = u.input_tokens end
  if math.type(u.output_tokens) then into.output_tokens = u.output_tokens end
  for _, k in ipairs { "cache_creation_input_tokens", "cache_read_input_tokens" } do
    if math.type(u[k]) then into[k] = u[k] end
  end
  return into
end

local function error_event(doc)
  local e = type(doc.error) == "table" and doc.error or {}
  return errors.new("EHTTP", ("anthropic: %s: %s"):format(str(e.type) or "error",
    str(e.message) or "no message"),
    { provider = PROVIDER, type = str(e.type), status = STATUS[e.type] or 500 })
end

--- syntax: reply, err = anthropic_answer.message(doc)
function M.message(doc)
  local bad = function(what) return nil, reply.malformed(PROVIDER, "the answer", what) end
  if type(doc) ~= "table" then return bad("not a JSON object") end
  if doc.type == "error" then return nil, error_event(doc) end
  if doc.type ~= "message" then return bad("type is not \"message\"") end
  if not is_list(doc.content) then return bad("content is not an array") end
  local content = {}
  for i, b in ipairs(doc.content) do
    if type(b) ~= "table" then return bad(("content[%d] is not an object"):format(i - 1)) end
    if b.type == "text" then
      if not str(b.text) then return bad(("content[%d].text is not a string"):format(i - 1)) end
      content[#content + 1] = { type = "text", text = b.text }
    elseif b.type == "tool_use" then
      if not str(b.id) or not str(b.name) or type(b.input) ~= "table" or is_list(b.input) then
        return bad(("content[%d]: tool_use %s (%s): a tool_use block needs id, name and an input object")
          :format(i - 1, tostring(b.name), tostring(b.id)))
      end
      content[#content + 1] = { type = "tool_call", id = b.id, name = b.name, arguments = b.input }
    end   -- thinking and other block types are not part of the neutral reply
  end
  return reply.build{ content = content, stop_reason = str(doc.stop_reason),
    usage = usage_of(doc.usage), model = str(doc.model), id = str(doc.id) }
end

--- syntax: stream = anthropic_answer.stream(on_delta?)
--- stream.on_event(ev) -> nil | err; stream.reply() -> reply, err.
function M.stream(on_delta)
  local s = { blocks = {}, order = {}, calls = 0, n = 0, usage = {} }
  local emit = on_delta or function() end

  local function bad(what, ev)
    return reply.malformed(PROVIDER, ("stream event %d (%s)"):format(s.n, ev.event), what)
  end

  local handlers = {}

  function handlers.message_start(doc, ev)
    local m = doc.message
    if type(m) ~= "table" then return bad("no message object", ev) end
    s.started, s.id, s.model = true, str(m.id), str(m.model)
    usage_of(m.usage, s.usage)
  end

  function handlers.content_block_start(doc, ev)
    local index, b = math.tointeger(doc.index), doc.content_block
    if not index or type(b) ~= "table" then return bad("needs index and content_block", ev) end
    if s.blocks[index] then return bad(("block %d started twice"):format(index), ev) end
    local block = { type = b.type, parts = {} }
    if b.type == "text" then
      block.parts[1] = str(b.text) or ""
    elseif b.type == "tool_use" then
      if not str(b.id) or not str(b.name) then return bad("a tool_use block needs id and name", ev) end
      s.calls = s.calls + 1
      block.id, block.name, block.ordinal = b.id, b.name, s.calls
      emit{ type = "tool_call", index = block.ordinal, id = b.id, name = b.name, arguments = "" }
    end
    s.blocks[index] = block
    s.order[#s.order + 1] = index
  end

  function handlers.content_block_delta(doc, ev)
    local index, d = math.tointeger(doc.index), doc.delta
    local block = index and s.blocks[index]
    if not block then return bad(("a delta for block %s, which was not started"):format(tostring(doc.index)), ev) end
    if type(d) ~= "table" then return bad("no delta object", ev) end
    if d.type == "text_delta" then
      if block.type ~= "text" or not str(d.text) then return bad("a text_delta needs a text block and text", ev) end
      block.parts[#block.parts + 1] = d.text
      emit{ type = "text", text = d.text }
    elseif d.type == "input_json_delta" then
      if block.type ~= "tool_use" or not str(d.partial_json) then
        return bad("an input_json_delta needs a tool_use block and partial_json", ev)
      end
      block.parts[#block.parts + 1] = d.partial_json
      emit{ type = "tool_call", index = block.ordinal, arguments = d.partial_json }
    end   -- thinking_delta, signature_delta, citations_delta: not kept
  end

  function handlers.content_block_stop(doc, ev)
    local block = s.blocks[math.tointeger(doc.index) or -1]
    if not block then return bad("a stop for a block that was not started", ev) end
    block.stopped = true
  end

  function handlers.message_delta(doc, ev)
    if type(doc.delta) ~= "table" then return bad("no delta object", ev) end
    s.stop_reason = str(doc.delta.stop_reason) or s.stop_reason
    usage_of(doc.usage, s.usage)   -- cumulative counts
  end

  function handlers.message_stop() s.done = true end
  function handlers.ping() end
  function handlers.error(doc) return error_event(doc) end

  function s.on_event(ev)
    if s.done then return nil end
    s.n = s.n + 1
    local doc, jerr = core.json_decode(ev.data)
    if type(doc) ~= "table" then
      return bad(("not a JSON object (%s): %s"):format(
        jerr and jerr.message or type(doc), reply.excerpt(ev.data)), ev)
    end
    local kind = ev.event ~= "" and ev.event ~= "message" and ev.event or str(doc.type)
    local handler = handlers[kind]
    if not handler then return nil end   -- new event types are to be ignored
    if kind ~= "message_start" and kind ~= "ping" and kind ~= "error" and not s.started then
      return bad("an event before message_start", ev)
    end
    return handler(doc, ev)
  end

  function s.reply()
    if not s.done then
      return nil, reply.malformed(PROVIDER, "the stream",
        ("it ended after %d events without message_stop"):format(s.n))
    end
    local content = {}
    for _, index in ipairs(s.order) do
      local b = s.blocks[index]
      if b.type == "text" then
        content[#content + 1] = { type = "text", text = table.concat(b.parts) }
      elseif b.type == "tool_use" then
        local call = { type = "tool_call", id = b.id, name = b.name }
        reply.set_arguments(PROVIDER, call, table.concat(b.parts))
        content[#content + 1] = call
      end
    end
    return reply.build{ content = content, stop_reason = s.stop_reason, usage = s.usage,
                        model = s.model, id = s.id }
  end

  return s
end

return M
