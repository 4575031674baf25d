--- mcp.llm.anthropic: the Anthropic Messages API (POST {base_url}/v1/messages,
--- anthropic-version 2023-06-01). The wire format is in anthropic_wire
--- (requests) and anthropic_answer (answers).
local provider = require "mcp.llm.provider"
local wire = require "mcp.llm.anthropic_wire"
local answer = require "mcp.llm.anthropic_answer"

local M = {
  name = "anthropic",
  env_key = "ANTHROPIC_API_KEY",
  env_base_url = "ANTHROPIC_BASE_URL",
  default_base_url = "https://api.anthropic.com",
  default_model = "claude-sonnet-4-5",
  -- max_tokens is required by the API: this is sent when none is given.
  defaults = { max_tokens = 4096 },
}
M.__index = M

M.VERSION = "2023-06-01"

--- syntax: llm = mcp.llm.anthropic(opts)
--- opts: model, base_url ($ANTHROPIC_BASE_URL, else
--- https://api.anthropic.com), api_key ($ANTHROPIC_API_KEY), headers,
--- timeout (seconds, retries included; 120), max_retries (3), stream
--- (false), max_tokens (4096), temperature, connect_timeout.
function M.new(opts)
  local llm = provider.new(M, opts)   -- not a tail call: errors name the caller's line
  return llm
end

M.chat = provider.chat
M.completion = answer.message
M.stream_reader = answer.stream

function M:url() return self.base_url .. "/v1/messages" end

function M:request_headers(key)
  local h = { ["Content-Type"] = "application/json", Accept = "application/json",
              ["anthropic-version"] = M.VERSION }
  for k, v in pairs(self.headers) do h[k] = v end
  if key then h["x-api-key"] = key end
  return h
end

--- syntax: defs = llm:tool_definitions(tools)
--- The tools as Anthropic tool definitions ({ name, description, input_schema }).
function M:tool_definitions(tools)
  return wire.tools(tools)
end

function M:body(req, stream)
  local messages, system = wire.messages(req.messages, req.system)
  local body = {
    model = req.model or self.model,
    messages = messages,
    system = system,
    max_tokens = req.max_tokens or self.max_tokens,
    temperature = req.temperature or self.temperature,
    stop_sequences = req.stop_sequences,
  }
  if req.tools and #req.tools > 0 then
    body.tools = self:tool_definitions(req.tools)
    body.tool_choice = wire.tool_choice(req.tool_choice)
  end
  if stream then body.stream = true end
  for k, v in pairs(req.extra_body or {}) do body[k] = v end
  return body
end

--- The message and type of an error body: { type = "error", error = { type, message } }.
function M.error_message(doc)
  local e = doc.error
  if type(e) == "table" and type(e.message) == "string" then
    return e.message, type(e.type) == "string" and e.type or nil
  end
  return type(doc.message) == "string" and doc.message or nil
end

return M
