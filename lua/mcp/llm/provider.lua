--- mcp.llm.provider: what both providers share: their options (explicit
--- or from the environment), where the API key is kept, and llm:chat's
--- course (build the body, post it with retries, read the answer whole or
--- streamed). A dialect (mcp.llm.openai, mcp.llm.anthropic) supplies the
--- wire format.
local core = require "mcp.core"
local request = require "mcp.llm.request"

local M = {}

-- API keys live here, not on the object, so that printing or dumping an
-- llm (a debug view, an error's fields) never shows one.
local secrets = setmetatable({}, { __mode = "k" })

local function check(opts, name, kind)
  local v = opts[name]
  if v ~= nil and type(v) ~= kind then
    error(("bad option '%s' (%s expected, got %s)"):format(name, kind, type(v)), 4)
  end
  return v
end

--- syntax: llm = provider.new(dialect, opts)
--- dialect: { name, env_key, env_base_url, default_base_url, default_model,
--- defaults = {...} } plus the methods chat needs (see M.chat).
function M.new(dialect, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #1 (table of options expected)", 3) end
  for _, name in ipairs { "model", "base_url", "api_key" } do check(opts, name, "string") end
  for _, name in ipairs { "timeout", "max_retries", "max_tokens", "temperature",
                          "max_size" } do
    check(opts, name, "number")
  end
  check(opts, "headers", "table")
  local env_base = os.getenv(dialect.env_base_url)
  local llm = setmetatable({
    provider = dialect.name,
    model = opts.model or dialect.default_model,
    base_url = ((opts.base_url or (env_base ~= "" and env_base) or dialect.default_base_url)
      :gsub("/+$", "")),
    headers = opts.headers or {},
    timeout = opts.timeout or 120,
    max_retries = opts.max_retries or 3,
    stream = opts.stream == true,
    max_tokens = opts.max_tokens,
    temperature = opts.temperature,
    connect_timeout = opts.connect_timeout,
    max_size = opts.max_size,     -- bytes of one answer (request.MAX_ANSWER)
  }, dialect)
  for k, v in pairs(dialect.defaults or {}) do
    if opts[k] ~= nil then llm[k] = opts[k] else llm[k] = v end
  end
  local key = opts.api_key or os.getenv(dialect.env_key)
  if key == "" then key = nil end
  secrets[llm] = key
  return llm
end

--- syntax: key = provider.key(llm) -- the API key (nil when none).
function M.key(llm) return secrets[llm] end

local function check_request(req)
  if type(req) ~= "table" then error("bad argument #1 to 'chat' (table expected)", 3) end
  if type(req.messages) ~= "table" then
    error("bad option 'messages' (list of messages expected)", 3)
  end
  if req.tools ~= nil and type(req.tools) ~= "table" then
    error("bad option 'tools' (list of tools expected)", 3)
  end
  if req.on_delta ~= nil and type(req.on_delta) ~= "function" then
    error("bad option 'on_delta' (function expected)", 3)
  end
end

--- syntax: reply, err = llm:chat(req) -- see mcp.llm (init.lua).
--- The dialect gives: url(llm), request_headers(llm, key),
--- body(llm, req, stream) -> table, completion(doc) -> reply, err,
--- stream(on_delta) -> { on_event, reply }, error_message(doc) -> msg, type.
function M.chat(llm, req)
  check_request(req)
  local stream = req.stream
  if stream == nil then stream = llm.stream end
  local key = secrets[llm]
  local assembler = stream and llm.stream_reader(req.on_delta) or nil
  local kind, doc = request.post{
    provider = llm.provider,
    url = llm:url(),
    headers = llm:request_headers(key),
    body = core.json_encode(llm:body(req, stream)),
    secret = key,
    timeout = req.timeout or llm.timeout,
    connect_timeout = llm.connect_timeout,
    max_size = llm.max_size,
    max_retries = req.max_retries or llm.max_retries,
    error_message = llm.error_message,
    on_event = assembler and assembler.on_event,
    on_retry = req.on_retry or llm.on_retry,
  }
  if not kind then return nil, doc end
  if kind == "stream" then return assembler.reply() end
  -- Streaming was asked for and the server answered in one piece: the
  -- caller still hears of the text.
  local r, err = llm.completion(doc)
  if r and stream and req.on_delta and r.text ~= "" then
    req.on_delta{ type = "text", text = r.text }
  end
  return r, err
end

return M
