--- mcp.llm: language models for agents, over mcp.http. One interface for
--- the OpenAI Chat Completions API (and the servers that speak it) and the
--- Anthropic Messages API:
---
---   local llm = mcp.llm.openai{ model = "gpt-4o-mini" }   -- or mcp.llm.anthropic{...}
---   local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } } }
---
--- Messages are neutral (close to MCP's sampling messages):
---   { role = "user" | "assistant", content = "text" | { block, ... } }
---   block: { type = "text", text } | { type = "image", data, mimeType }
---        | { type = "tool_call", id, name, arguments }            (assistant)
---        | { type = "tool_result", tool_call_id, content = { text/image
---            blocks } | "text", is_error }                        (user)
---   tool: { name, description, input_schema }
--- llm:chat{ messages, system?, tools?, tool_choice? ("auto" | "none" |
--- "required" | { name = "x" }), max_tokens?, temperature?, stop_sequences?,
--- stream? (default llm.stream), on_delta? (fn(delta): { type = "text", text }
--- or { type = "tool_call", index (1-based, as in reply.tool_calls), id?,
--- name?, arguments = a JSON fragment }), timeout?, model?, extra_body? }
--- returns reply = { message = { role = "assistant", content = { text and
--- tool_call blocks } }, text, tool_calls, stop_reason ("end_turn",
--- "tool_use", "max_tokens", "stop_sequence", "refusal" or the provider's
--- own), usage = { input_tokens, output_tokens }, model, id }, or nil and
--- an mcp.error: EHTTP (err.status, err.provider, err.type, err.body; 429
--- and 5xx are retried first, max_retries times, with backoff honoring
--- Retry-After, within timeout), EPROTO (an answer or chunk not as
--- documented, saying what and where), ETIMEDOUT, ECONNECT, EIO.
--- The API key is never part of an error, nor a field of the llm.
local M = {}

--- syntax: llm = mcp.llm.openai(opts) -- see mcp.llm.openai
function M.openai(opts) return require("mcp.llm.openai").new(opts) end

--- syntax: llm = mcp.llm.anthropic(opts) -- see mcp.llm.anthropic
function M.anthropic(opts) return require("mcp.llm.anthropic").new(opts) end

--- syntax: llm, err = mcp.llm.from_env(opts?)
--- OpenAI when $OPENAI_API_KEY or $OPENAI_BASE_URL is set (a local server
--- may need no key), else Anthropic when $ANTHROPIC_API_KEY is, else nil
--- and ENOENT. opts go to the constructor.
function M.from_env(opts)
  local function set(name)
    local v = os.getenv(name)
    return v ~= nil and v ~= ""
  end
  if set("OPENAI_API_KEY") or set("OPENAI_BASE_URL") then return M.openai(opts) end
  if set("ANTHROPIC_API_KEY") then return M.anthropic(opts) end
  return nil, require("mcp.errors").new("ENOENT",
    "no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL) or ANTHROPIC_API_KEY")
end

return M
