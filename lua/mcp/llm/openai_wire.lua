--- mcp.llm.openai_wire: neutral messages, tools and tool_choice in the
--- OpenAI Chat Completions request format. No I/O.
local core = require "mcp.core"
local reply = require "mcp.llm.reply"
local strict_schema = require "mcp.llm.strict"

local M = {}
local array = reply.array

local function text_of(blocks)
  if type(blocks) == "string" then return blocks end
  local parts = {}
  for _, b in ipairs(blocks or {}) do
    if b.type == "text" then parts[#parts + 1] = b.text end
  end
  return table.concat(parts)
end

local function image_part(block)
  return { type = "image_url", image_url = {
    url = ("data:%s;base64,%s"):format(block.mimeType or "image/png", block.data) } }
end

-- A tool result becomes a "tool" message (text only: the API takes no
-- images there); its images go in a user message after the tool messages.
-- OpenAI has no error flag on a tool message: an error says so in its text.
local function tool_message(block, images)
  local text = text_of(block.content)
  if block.is_error then text = "Error: " .. text end
  for _, b in ipairs(type(block.content) == "table" and block.content or {}) do
    if b.type == "image" then images[#images + 1] = image_part(b) end
  end
  return { role = "tool", tool_call_id = block.tool_call_id, content = text }
end

local function user_messages(msg, out)
  if type(msg.content) == "string" then
    out[#out + 1] = { role = "user", content = msg.content }
    return
  end
  local parts, images = array(), {}
  for _, b in ipairs(msg.content) do
    if b.type == "tool_result" then out[#out + 1] = tool_message(b, images)
    elseif b.type == "text" then parts[#parts + 1] = { type = "text", text = b.text }
    elseif b.type == "image" then parts[#parts + 1] = image_part(b) end
  end
  if #images > 0 then
    table.insert(parts, 1, { type = "text", text = "Images returned by the tools:" })
    for i, part in ipairs(images) do table.insert(parts, i + 1, part) end
  end
  if #parts > 0 then out[#out + 1] = { role = "user", content = parts } end
end

local function assistant_message(msg)
  if type(msg.content) == "string" then
    return { role = "assistant", content = msg.content }
  end
  local calls = array()
  for _, b in ipairs(msg.content) do
    if b.type == "tool_call" then
      calls[#calls + 1] = { id = b.id, type = "function",
        ["function"] = { name = b.name,
                         arguments = b.arguments_text or core.json_encode(b.arguments or {}) } }
    end
  end
  local text = text_of(msg.content)
  local out = { role = "assistant" }
  if #calls > 0 then
    out.tool_calls = calls
    out.content = text ~= "" and text or core.null
  else
    out.content = text
  end
  return out
end

--- syntax: list = openai_wire.messages(messages, system?)
function M.messages(messages, system)
  local out = array()
  if system and system ~= "" then out[1] = { role = "system", content = system } end
  for i, msg in ipairs(messages) do
    if msg.role == "user" then user_messages(msg, out)
    elseif msg.role == "assistant" then out[#out + 1] = assistant_message(msg)
    elseif msg.role == "system" then
      out[#out + 1] = { role = "system", content = text_of(msg.content) }
    else
      error(("bad message #%d (role 'user' or 'assistant' expected, got %s)")
        :format(i, tostring(msg.role)), 3)
    end
  end
  return out
end

local EMPTY_OBJECT_SCHEMA = { type = "object", properties = {} }

--- syntax: defs = openai_wire.tools(tools, strict)
--- Function definitions. With strict, each schema is converted as strict
--- mode requires (mcp.llm.strict); one that cannot be stays non-strict.
function M.tools(tools, strict)
  local defs = array()
  for _, tool in ipairs(tools) do
    reply.check_tool_name("openai", tool.name)
    local fn = { name = tool.name, description = tool.description,
                 parameters = tool.input_schema or tool.inputSchema or EMPTY_OBJECT_SCHEMA }
    if strict then
      local converted = strict_schema.convert(fn.parameters)
      if converted then
        fn.parameters, fn.strict = converted, true
      else
        fn.strict = false
      end
    end
    defs[#defs + 1] = { type = "function", ["function"] = fn }
  end
  return defs
end

--- syntax: value = openai_wire.tool_choice(choice)
function M.tool_choice(choice)
  if type(choice) == "table" then
    return { type = "function", ["function"] = { name = choice.name } }
  end
  return choice   -- "auto" | "none" | "required"
end

return M
