--- mcp.handlers: how the client answers the requests a server sends it:
--- roots/list, sampling/createMessage and elicitation/create. Each request
--- runs its handler in a task of its own, so a handler may wait (on an
--- LLM, another server, a person). The capabilities the client declares
--- follow from the handlers it has. Results are checked against the
--- specification before they are sent. Built-in handlers live in
--- mcp.handlers_builtin; checks of elicitation schemas in mcp.elicitation.
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"
local elicitation = require "mcp.elicitation"
local task_receiver = require "mcp.task_receiver"

-- This module's part of the Client (composed in mcp.client): methods,
-- connect hook, capabilities, notification routes, the server requests.
local Client = {}
local routes = {}
local M = {}

local INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603
local METHOD_NOT_FOUND = -32601
local USER_REJECTED = -1

--- syntax: return mcp.handlers.reject(message?)
--- What a sampling or elicitation handler returns to refuse: the server
--- gets the specification's "user rejected" error (-1).
function M.reject(message)
  return nil, errors.new("EREJECTED", message or "User rejected the request",
    { rpc_code = USER_REJECTED })
end

-- ---- declaring handlers -----------------------------------------------------

-- A handler is a function, or a table { handler = fn, <flags> }.
local function unpack_handler(kind, h)
  if h == nil then return nil end
  if type(h) == "function" then return h, {} end
  if type(h) == "table" and type(h.handler) == "function" then return h.handler, h end
  error(("mcp.connect: handlers.%s must be a function or { handler = fn, ... }"):format(kind), 5)
end

local function check_roots(list, level)
  if type(list) ~= "table" then
    error("roots must be a list of { uri = 'file://...', name = ... }", level)
  end
  for i, root in ipairs(list) do
    if type(root) ~= "table" or type(root.uri) ~= "string" then
      error(("roots[%d] needs a uri"):format(i), level)
    end
    if not root.uri:match("^file://") then
      error(("roots[%d]: %q is not a file:// URI"):format(i, root.uri), level)
    end
    if root.name ~= nil and type(root.name) ~= "string" then
      error(("roots[%d].name must be a string"):format(i), level)
    end
  end
  return list
end

-- Reads opts.handlers into the client.
local function install(self, handlers)
  self._handlers = {}
  if handlers == nil then return end
  if type(handlers) ~= "table" then
    error("mcp.connect: 'handlers' must be a table", 4)
  end
  for key in pairs(handlers) do
    if key ~= "roots" and key ~= "sampling" and key ~= "elicitation" then
      error(("mcp.connect: unknown handler '%s'"):format(tostring(key)), 4)
    end
  end
  local roots = handlers.roots
  if roots ~= nil and type(roots) ~= "function" then check_roots(roots, 5) end
  self._handlers.roots = roots
  local fn, flags = unpack_handler("sampling", handlers.sampling)
  -- task = true: a server's request that asks for a task gets one
  -- (mcp.task_receiver).
  if fn then
    self._handlers.sampling = { fn = fn, tools = flags.tools, context = flags.context,
                                task = flags.task == true }
  end
  fn, flags = unpack_handler("elicitation", handlers.elicitation)
  if fn then
    local form = flags.form ~= false
    self._handlers.elicitation = { fn = fn, form = form, url = flags.url == true,
                                   task = flags.task == true }
  end
end

local function on_connect(self, opts)
  install(self, opts.handlers)
  task_receiver.on_connect(self)
  self._inflight = {}            -- request id (as a string key) -> task
  self._elicitation_waiters = {} -- elicitationId -> { done, ... }
  self._completed_elicitations = {}
  self.on_elicitation_complete = opts.on_elicitation_complete
end

-- No handler, no capability; sub-capabilities from the handler's flags.
local function add_capabilities(self, caps)
  local h = self._handlers
  if h.roots ~= nil then caps.roots = { listChanged = true } end
  if h.sampling then
    caps.sampling = {}
    if h.sampling.tools then caps.sampling.tools = {} end
    if h.sampling.context then caps.sampling.context = {} end
  end
  if h.elicitation then
    caps.elicitation = {}
    if h.elicitation.form then caps.elicitation.form = {} end
    if h.elicitation.url then caps.elicitation.url = {} end
  end
  task_receiver.add_capabilities(self, caps)
end

--- syntax: client:set_handler(kind, handler)
--- Replaces the roots, sampling or elicitation handler of a live client.
--- The capabilities were declared at connect time: a kind that was not
--- declared then cannot be added now (the server would not use it).
function Client:set_handler(kind, handler)
  self:_check()
  local declared = self.client_capabilities and self.client_capabilities[kind]
  if declared == nil then
    error(("set_handler: '%s' was not declared at connect time"):format(tostring(kind)), 2)
  end
  if kind == "roots" then
    if type(handler) ~= "function" then check_roots(handler, 3) end
    self._handlers.roots = handler
    return true
  end
  local fn = unpack_handler(kind, handler)
  self._handlers[kind].fn = fn
  return true
end

--- syntax: ok, err = client:set_roots(list)
--- Replaces the roots and tells the server (notifications/roots/list_changed).
function Client:set_roots(list)
  self:_check()
  if self.client_capabilities == nil or self.client_capabilities.roots == nil then
    error("set_roots: the client was connected without a roots handler", 2)
  end
  check_roots(list, 3)
  self._handlers.roots = list
  -- A stateless server asks for the roots with each request that needs
  -- them: there is nobody to tell.
  if self.era == "modern" then return true end
  return self:notify("notifications/roots/list_changed")
end

-- ---- answering ------------------------------------------------------------------

local function rpc_error(code, message, data)
  return errors.new("ERPC", message, { rpc_code = code, data = data })
end

local function respond(self, id, result, err)
  if self._closing or self._lost then return end
  if result ~= nil then
    self._core:respond(id, result)
    return
  end
  local code, message, data = INTERNAL_ERROR, tostring(err), nil
  if errors.is(err) then
    code = err.rpc_code or INTERNAL_ERROR
    message = err.message
    data = err.data
  end
  self._core:respond_error(id, code, message, data)
end

-- Runs handler(params, ctx) in a new task and answers with what it gives.
-- A cancelled request's task is killed and nothing is sent.
local function run_handler(self, id, method, params, check)
  local key = tostring(id)
  local ctx = { client = self, id = id, method = method, server = self.name }
  local co
  co = task.spawn(function()
    local ok, result, err = pcall(check, self, params, ctx)
    self._inflight[key] = nil
    if not ok then                          -- the handler raised
      local message = tostring(result):gsub("\n.*", "")
      if self.on_handler_error then self.on_handler_error(method, result) end
      return respond(self, id, nil, rpc_error(INTERNAL_ERROR,
        ("%s handler failed: %s"):format(method, message)))
    end
    respond(self, id, result, err)
  end)
  if coroutine.status(co) ~= "dead" then self._inflight[key] = co end
  return true
end

-- notifications/cancelled from the server stops the handler's task.
routes["notifications/cancelled"] = function(self, params)
  if type(params) ~= "table" or params.requestId == nil then return end
  local key = tostring(params.requestId)
  local co = self._inflight[key]
  if co then
    self._inflight[key] = nil
    task.kill(co)
  end
end

-- ---- roots ------------------------------------------------------------------------

local function answer_roots(self)
  local roots = self._handlers.roots
  if type(roots) == "function" then
    local list, err = roots()
    if list == nil then return nil, err end
    local ok, problem = pcall(check_roots, list, 1)
    if not ok then
      return nil, rpc_error(INTERNAL_ERROR, "roots handler: " .. tostring(problem))
    end
    roots = list
  end
  local out = {}
  for i, r in ipairs(roots) do out[i] = { uri = r.uri, name = r.name, _meta = r._meta } end
  return { roots = setmetatable(out, core.array_mt) }
end

-- ---- sampling ----------------------------------------------------------------------

-- A request a server sends for one of its tasks names it in _meta; the
-- answer must name it too (2025-11-25 K9).
local RELATED_TASK = "io.modelcontextprotocol/related-task"

local function with_related_task(params, out)
  local related = type(params._meta) == "table" and params._meta[RELATED_TASK] or nil
  if related ~= nil then
    out._meta = type(out._meta) == "table" and out._meta or {}
    out._meta[RELATED_TASK] = related
  end
  return out
end

local SAMPLING_BLOCKS = { text = true, image = true, audio = true,
                          tool_use = true, tool_result = true }

local function blocks_of(content)
  if type(content) ~= "table" then return nil end
  if content.type ~= nil then return { content } end
  return content
end

-- S5: tool_result-only user messages, and every tool_use answered next.
local function check_messages(messages)
  if type(messages) ~= "table" or #messages == 0 then return "messages must be a non-empty list" end
  for i, m in ipairs(messages) do
    if m.role ~= "user" and m.role ~= "assistant" then
      return ("messages[%d].role must be user or assistant"):format(i)
    end
    local blocks = blocks_of(m.content)
    if not blocks then return ("messages[%d] has no content"):format(i) end
    local results, others, uses = 0, 0, {}
    for _, b in ipairs(blocks) do
      if not SAMPLING_BLOCKS[b.type] then
        return ("messages[%d]: content type %q is not allowed in sampling"):format(i, tostring(b.type))
      end
      if b.type == "tool_result" then results = results + 1 else others = others + 1 end
      if b.type == "tool_use" then uses[#uses + 1] = b.id end
    end
    if m.role == "user" and results > 0 and others > 0 then
      return ("messages[%d]: a user message with tool_result may hold only tool_result"):format(i)
    end
    if #uses > 0 then
      local next_msg = messages[i + 1]
      local answered = {}
      for _, b in ipairs(next_msg and blocks_of(next_msg.content) or {}) do
        if b.type == "tool_result" then answered[b.toolUseId] = true end
      end
      for _, use_id in ipairs(uses) do
        if not answered[use_id] then
          return ("messages[%d]: tool_use %q is not answered by the next message"):format(i, tostring(use_id))
        end
      end
    end
  end
  return nil
end

local STOP_REASONS_NEED = { toolUse = true }

local function check_sampling_result(self, result)
  if type(result) ~= "table" then return "the result is not a table" end
  if result.role ~= "assistant" and result.role ~= "user" then
    return "role must be 'assistant'"
  end
  if type(result.model) ~= "string" then return "model (a string) is required" end
  if result.stopReason ~= nil and type(result.stopReason) ~= "string" then
    return "stopReason must be a string"
  end
  local blocks = blocks_of(result.content)
  if not blocks or #blocks == 0 then return "content is required" end
  if result.content.type == nil and self.protocol_version < "2025-11-25" then
    return "array content needs protocol 2025-11-25; the server speaks " .. self.protocol_version
  end
  local has_use = false
  for _, b in ipairs(blocks) do
    if not SAMPLING_BLOCKS[b.type] then
      return ("content type %q is not allowed"):format(tostring(b.type))
    end
    if b.type == "tool_use" then
      has_use = true
      if type(b.id) ~= "string" or type(b.name) ~= "string" or type(b.input) ~= "table" then
        return "tool_use needs id, name and input"
      end
    end
  end
  if has_use and not STOP_REASONS_NEED[result.stopReason] then
    return "tool_use content needs stopReason 'toolUse'"
  end
  return nil
end

local function answer_sampling(self, params, ctx)
  local h = self._handlers.sampling
  if (params.tools ~= nil or params.toolChoice ~= nil) and not h.tools then
    return nil, rpc_error(INVALID_PARAMS, "sampling with tools was not declared by this client")
  end
  local problem = check_messages(params.messages)
  if problem then return nil, rpc_error(INVALID_PARAMS, problem) end
  if math.type(params.maxTokens) ~= "integer" then
    return nil, rpc_error(INVALID_PARAMS, "maxTokens (an integer) is required")
  end
  local result, err = h.fn(params, ctx)
  if result == nil then
    return nil, err or rpc_error(INTERNAL_ERROR, "sampling handler returned nothing")
  end
  problem = check_sampling_result(self, result)
  if problem then
    if self.on_handler_error then self.on_handler_error("sampling/createMessage", problem) end
    return nil, rpc_error(INTERNAL_ERROR, "invalid sampling result: " .. problem)
  end
  return with_related_task(params, result)
end

-- ---- elicitation ----------------------------------------------------------------------


local function answer_elicitation(self, params, ctx)
  local h = self._handlers.elicitation
  local mode = params.mode or "form"
  if (mode == "form" and not h.form) or (mode == "url" and not h.url)
      or (mode ~= "form" and mode ~= "url") then
    return nil, rpc_error(INVALID_PARAMS, ("elicitation mode %q was not declared by this client")
      :format(tostring(mode)))
  end
  if type(params.message) ~= "string" then
    return nil, rpc_error(INVALID_PARAMS, "elicitation needs a message")
  end
  local schema
  if mode == "form" then
    local problem
    schema, problem = elicitation.check_schema(params.requestedSchema)
    if not schema then return nil, rpc_error(INVALID_PARAMS, problem) end
  elseif type(params.url) ~= "string" or type(params.elicitationId) ~= "string" then
    return nil, rpc_error(INVALID_PARAMS, "URL elicitation needs url and elicitationId")
  end
  local p = {}
  for k, v in pairs(params) do p[k] = v end
  p.mode = mode
  local result, err = h.fn(p, ctx)
  if result == nil then
    return nil, err or rpc_error(INTERNAL_ERROR, "elicitation handler returned nothing")
  end
  local action = result.action
  if action ~= "accept" and action ~= "decline" and action ~= "cancel" then
    return nil, rpc_error(INTERNAL_ERROR, "elicitation handler: action must be accept, decline or cancel")
  end
  local out = { action = action, _meta = result._meta }
  if action == "accept" and mode == "form" then
    local content, problem = elicitation.complete_content(params.requestedSchema, schema,
      result.content or {})
    if not content then
      if self.on_handler_error then self.on_handler_error("elicitation/create", problem) end
      return nil, rpc_error(INTERNAL_ERROR, "elicitation handler: " .. problem)
    end
    out.content = content
  end
  return with_related_task(params, out)
end

-- notifications/elicitation/complete wakes whoever waits on that id.
routes["notifications/elicitation/complete"] = function(self, params)
  local id = type(params) == "table" and params.elicitationId
  if type(id) ~= "string" or self._completed_elicitations[id] then return end
  self._completed_elicitations[id] = true
  if self.on_elicitation_complete then self.on_elicitation_complete(id) end
  local waiters = self._elicitation_waiters[id]
  self._elicitation_waiters[id] = nil
  for _, done in ipairs(waiters or {}) do done(true) end
end

--- syntax: ok, err = client:wait_elicitation(elicitation_id, opts?)
--- Waits for notifications/elicitation/complete of that id (at once if it
--- already came). opts.timeout in seconds (default: the client's).
function Client:wait_elicitation(id, opts)
  self:_check()
  if self._completed_elicitations[id] then return true end
  local ms = (opts and opts.timeout and opts.timeout * 1000) or self._timeout
  local timer
  local _ <close> = setmetatable({}, { __close = function() if timer then timer:stop() end end })
  return task.await(function(done)
    local list = self._elicitation_waiters[id] or {}
    self._elicitation_waiters[id] = list
    list[#list + 1] = done
    timer = core.timer(ms, function()
      for i, d in ipairs(list) do
        if d == done then table.remove(list, i) break end
      end
      done(nil, errors.new("ETIMEDOUT", ("elicitation %s did not complete in time"):format(id)))
    end)
    return true
  end)
end

-- How long to wait for a URL elicitation's completion notice before trying
-- the call again anyway (seconds).
local DEFAULT_ELICIT_WAIT = 10

--- syntax: ok, err = client:run_url_elicitations(elicitations, opts?)
--- Runs each URL elicitation (from an EURLELICIT error) through the
--- elicitation handler and waits for the server to report it complete, for
--- opts.elicit_wait seconds at most (default 10): notifications/
--- elicitation/complete is optional, and many servers (server-everything)
--- never send it, so the caller then simply tries again. Fails with
--- EREJECTED when the user does not accept one.
function Client:run_url_elicitations(list, opts)
  self:_check()
  local h = self._handlers.elicitation
  if not h or not h.url then
    return nil, errors.new("ENOTSUP", "no URL elicitation handler was given to mcp.connect")
  end
  for _, e in ipairs(list or {}) do
    local p = { mode = "url", url = e.url, elicitationId = e.elicitationId, message = e.message }
    local result, err = h.fn(p, { client = self, method = "elicitation/create", server = self.name })
    if not result then return nil, err end
    if result.action ~= "accept" then
      return nil, errors.new("EREJECTED", ("URL elicitation %s: %s"):format(
        tostring(e.elicitationId), tostring(result.action)))
    end
    local ok
    ok, err = self:wait_elicitation(e.elicitationId, { timeout = math.min(
      opts and opts.elicit_wait or DEFAULT_ELICIT_WAIT,
      opts and opts.timeout or math.huge) })
    if not ok and err.code ~= "ETIMEDOUT" then return nil, err end
  end
  return true
end

-- ---- dispatch ------------------------------------------------------------------------

local answers = {
  ["roots/list"] = { kind = "roots", fn = answer_roots },
  ["sampling/createMessage"] = { kind = "sampling", fn = answer_sampling },
  ["elicitation/create"] = { kind = "elicitation", fn = answer_elicitation },
}

--- syntax: result, err = client:_answer_input(method, params)
--- A stateless server's input request (of an input_required result)
--- answered by the handler a handshake-era server's request would run,
--- in the calling task: the bare result, or nil and why (EREJECTED when
--- the person declined a sampling or roots request; EPROTO for a kind the
--- client did not declare, which a server must not ask).
function Client:_answer_input(method, params)
  local a = answers[method]
  if not a or self._handlers[a.kind] == nil then
    return nil, errors.new("EPROTO", ("the server asked for %s, which this client did not declare")
      :format(tostring(method)))
  end
  if type(params) ~= "table" then params = {} end
  local ctx = { client = self, method = method, server = self.name }
  local ok, result, err = pcall(a.fn, self, params, ctx)
  if not ok then
    return nil, errors.new("EPROTO", ("%s handler failed: %s"):format(method,
      tostring(result):gsub("\n.*", "")))
  end
  if result == nil then
    if errors.is(err) and err.rpc_code == USER_REJECTED then
      -- An elicitation has an answer for it; sampling and roots do not,
      -- and the server waits for none (the call is abandoned).
      if method == "elicitation/create" then return { action = "decline" } end
      return nil, errors.new("EREJECTED", err.message)
    end
    return nil, errors.is(err) and err or errors.new("EPROTO", tostring(err))
  end
  return result
end

local function on_request(self, id, method, params)
  if type(params) ~= "table" then params = {} end
  local a = answers[method]
  if not a then return task_receiver.answer(self, id, method, params, respond) end
  local h = self._handlers[a.kind]
  if h == nil then return false end   -- -32601
  -- Asked as a task of a kind declared so: a task id now, the answer
  -- later (K17; without the declaration, task is ignored).
  if a.kind ~= "roots" and h.task and type(params.task) == "table" then
    return task_receiver.start(self, id, method, params, a.fn, respond)
  end
  return run_handler(self, id, method, params, a.fn)
end

M.METHOD_NOT_FOUND = METHOD_NOT_FOUND
for name, fn in pairs(require "mcp.builtin_handlers") do M[name] = fn end
M.client_part = { methods = Client, routes = routes, on_connect = on_connect,
                  capabilities = add_capabilities, on_request = on_request }
return M
