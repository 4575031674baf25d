--- mcp.llm.anthropic_wire: neutral messages, tools and tool_choice in the
--- Anthropic Messages request format (tool_use / tool_result blocks, the
--- system prompt at the top level). No I/O.
local reply = require "mcp.llm.reply"

local M = {}
local array = reply.array

local function image_block(b)
  return { type = "image", source = { type = "base64",
    media_type = b.mimeType or "image/png", data = b.data } }
end

-- Text and image blocks (what a tool result may hold).
local function plain_blocks(content)
  if type(content) == "string" then
    return array{ { type = "text", text = content } }
  end
  local out = array()
  for _, b in ipairs(content or {}) do
    if b.type == "text" then out[#out + 1] = { type = "text", text = b.text }
    elseif b.type == "image" then out[#out + 1] = image_block(b) end
  end
  return out
end

local function block(b)
  if b.type == "text" then return { type = "text", text = b.text } end
  if b.type == "image" then return image_block(b) end
  if b.type == "tool_call" then
    return { type = "tool_use", id = b.id, name = b.name, input = b.arguments or {} }
  end
  if b.type == "tool_result" then
    local out = { type = "tool_result", tool_use_id = b.tool_call_id,
                  content = plain_blocks(b.content) }
    if b.is_error then out.is_error = true end
    return out
  end
  return nil
end

local function message(msg)
  if type(msg.content) == "string" then
    return { role = msg.role, content = msg.content }
  end
  -- The API wants a user message's tool_result blocks before anything else.
  local results, others = array(), {}
  for _, b in ipairs(msg.content) do
    local wire = block(b)
    if wire and wire.type == "tool_result" then results[#results + 1] = wire
    elseif wire then others[#others + 1] = wire end
  end
  for _, wire in ipairs(others) do results[#results + 1] = wire end
  return { role = msg.role, content = results }
end

--- syntax: list, system = anthropic_wire.messages(messages, system?)
--- A "system" message in the list joins the top-level system prompt.
function M.messages(messages, system)
  local out, systems = array(), {}
  if system and system ~= "" then systems[1] = system end
  for i, msg in ipairs(messages) do
    if msg.role == "user" or msg.role == "assistant" then out[#out + 1] = message(msg)
    elseif msg.role == "system" then
      local text = type(msg.content) == "string" and msg.content or ""
      if type(msg.content) == "table" then
        for _, b in ipairs(msg.content) do
          if b.type == "text" then text = text .. b.text end
        end
      end
      systems[#systems + 1] = text
    else
      error(("bad message #%d (role 'user' or 'assistant' expected, got %s)")
        :format(i, tostring(msg.role)), 3)
    end
  end
  return out, #systems > 0 and table.concat(systems, "\n\n") or nil
end

--- syntax: defs = anthropic_wire.tools(tools)
function M.tools(tools)
  local defs = array()
  for _, tool in ipairs(tools) do
    reply.check_tool_name("anthropic", tool.name)
    defs[#defs + 1] = { name = tool.name, description = tool.description,
      input_schema = tool.input_schema or tool.inputSchema or { type = "object", properties = {} } }
  end
  return defs
end

local CHOICES = { auto = "auto", none = "none", required = "any" }

--- syntax: value = anthropic_wire.tool_choice(choice)
function M.tool_choice(choice)
  if choice == nil then return nil end
  if type(choice) == "table" then return { type = "tool", name = choice.name } end
  return { type = CHOICES[choice] or choice }
end

return M
