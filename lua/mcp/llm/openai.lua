--- mcp.llm.openai: the OpenAI Chat Completions API (POST
--- {base_url}/chat/completions), and every server that speaks it (vLLM,
--- llama.cpp's server, Ollama, LM Studio, OpenRouter). The wire format is
--- in openai_wire (requests) and openai_answer (answers).
local provider = require "mcp.llm.provider"
local wire = require "mcp.llm.openai_wire"
local answer = require "mcp.llm.openai_answer"

local M = {
  name = "openai",
  env_key = "OPENAI_API_KEY",
  env_base_url = "OPENAI_BASE_URL",
  default_base_url = "https://api.openai.com/v1",
  default_model = "gpt-4o-mini",
  -- strict: function definitions in strict mode (mcp.llm.strict);
  -- max_tokens_field: OpenAI's own API wants max_completion_tokens (it
  -- refuses max_tokens for its newer models), other servers max_tokens.
  defaults = { strict = false, max_tokens_field = false },
}
M.__index = M

--- syntax: llm = mcp.llm.openai(opts)
--- opts: model, base_url ($OPENAI_BASE_URL, else https://api.openai.com/v1),
--- api_key ($OPENAI_API_KEY; none is sent when there is none, for local
--- servers), headers, timeout (seconds, retries included; 120),
--- max_retries (3), stream (false), max_tokens, temperature,
--- strict (false), max_tokens_field, connect_timeout.
function M.new(opts)
  local llm = provider.new(M, opts)
  if not llm.max_tokens_field then
    llm.max_tokens_field = llm.base_url:match("^https://api%.openai%.com")
      and "max_completion_tokens" or "max_tokens"
  end
  return llm
end

M.chat = provider.chat
M.completion = answer.completion
M.stream_reader = answer.stream

function M:url() return self.base_url .. "/chat/completions" end

function M:request_headers(key)
  local h = { ["Content-Type"] = "application/json", Accept = "application/json" }
  for k, v in pairs(self.headers) do h[k] = v end
  if key then h.Authorization = "Bearer " .. key end
  return h
end

--- syntax: defs = llm:tool_definitions(tools)
--- The tools as OpenAI function definitions ({ type = "function",
--- function = { name, description, parameters, strict? } }).
function M:tool_definitions(tools)
  return wire.tools(tools, self.strict)
end

function M:body(req, stream)
  local body = {
    model = req.model or self.model,
    messages = wire.messages(req.messages, req.system),
    temperature = req.temperature or self.temperature,
    stop = req.stop_sequences,
  }
  local max_tokens = req.max_tokens or self.max_tokens
  if max_tokens then body[self.max_tokens_field] = max_tokens end
  if req.tools and #req.tools > 0 then
    body.tools = self:tool_definitions(req.tools)
    body.tool_choice = wire.tool_choice(req.tool_choice)
  end
  if stream then
    body.stream = true
    body.stream_options = { include_usage = true }
  end
  for k, v in pairs(req.extra_body or {}) do body[k] = v end
  return body
end

--- The message and type of an error body: { error = { message, type, code } }
--- (some compatible servers put a string in error).
function M.error_message(doc)
  local e = doc.error
  if type(e) == "string" then return e end
  if type(e) == "table" and type(e.message) == "string" then
    return e.message, type(e.type) == "string" and e.type or nil
  end
  return type(doc.message) == "string" and doc.message or nil
end

return M
