--- mcp.llm.reply: the neutral reply both providers return, built from the
--- content blocks they read, and the checks they share (tool call
--- arguments are a JSON object). No I/O, no provider wire format.
local core = require "mcp.core"
local errors = require "mcp.errors"

local M = {}

--- syntax: t = reply.array(t?) -- a list that encodes as [] when empty.
function M.array(t)
  return setmetatable(t or {}, core.array_mt)
end

--- syntax: reply = reply.build{ content, stop_reason, usage, model, id }
--- content: the assistant's text and tool_call blocks, in order.
--- Adds message, text (the text blocks joined) and tool_calls.
function M.build(t)
  local texts, calls = {}, M.array()
  for _, block in ipairs(t.content) do
    if block.type == "text" then texts[#texts + 1] = block.text
    elseif block.type == "tool_call" then calls[#calls + 1] = block end
  end
  return {
    message = { role = "assistant", content = M.array(t.content) },
    text = table.concat(texts),
    tool_calls = calls,
    stop_reason = t.stop_reason,
    usage = t.usage or {},
    model = t.model,
    id = t.id,
  }
end

--- syntax: reply.set_arguments(provider, call, text)
--- Sets call.arguments from their JSON text (an object; "" is {}). Text
--- that is not a JSON object leaves call.arguments nil, with the reason in
--- call.arguments_error and the text in call.arguments_text: the one call
--- is wrong, not the reply, and an agent tells the model so (small
--- models do write broken JSON now and then).
function M.set_arguments(provider, call, text)
  local args, err = M.arguments(provider, call, text)
  call.arguments = args
  if not args then
    call.arguments_error, call.arguments_text = err.message, text
  end
end

--- syntax: args, err = reply.arguments(provider, call, text)
--- A tool call's arguments from their JSON text: an object ("" is {}).
--- call = { id, name } names the call in the EPROTO error.
function M.arguments(provider, call, text)
  if text == nil or text:match("^%s*$") then return {} end
  local value, err = core.json_decode(text)
  if type(value) ~= "table" or getmetatable(value) == core.array_mt then
    return nil, errors.new("EPROTO", ("%s: the arguments of tool call %s (%s) are not a JSON object%s: %s")
      :format(provider, tostring(call.name), tostring(call.id),
              err and " (" .. err.message .. ")" or "", text:sub(1, 200)),
      { provider = provider, arguments = text })
  end
  return value
end

--- syntax: reply.check_tool_name(provider, name)
--- Raises unless name is a function name both APIs take:
--- ^[a-zA-Z0-9_-]{1,64}$ (mcp.host's server_tool names are).
function M.check_tool_name(provider, name)
  if type(name) ~= "string" or #name < 1 or #name > 64 or name:find("[^%w_%-]") then
    error(("bad tool name %q for %s (1 to 64 of a-z A-Z 0-9 _ -)"):format(tostring(name), provider), 4)
  end
end

--- syntax: err = reply.malformed(provider, where, what)
--- The EPROTO error of an answer or chunk that is not as documented.
function M.malformed(provider, where, what)
  return errors.new("EPROTO", ("%s: %s: %s"):format(provider, where, what),
    { provider = provider })
end

--- syntax: text = reply.excerpt(text) -- a short excerpt for a message.
function M.excerpt(text)
  text = tostring(text)
  return #text > 120 and text:sub(1, 120) .. "..." or text
end

return M
