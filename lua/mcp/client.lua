--- mcp.client: one connection to an MCP server, with waiting methods over
--- mcp.core's callback API. It speaks the protocol through the core and
--- adds what is Lua policy: option checks, pagination, notification
--- routing, logging of the server's stderr. It does not spawn tasks of
--- its own except to run handlers.
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"

local M = {}

local Client = {}
local Client_mt = { __name = "mcp.Client", __index = Client }

local DEFAULT_TIMEOUT = 60      -- seconds, per request
local MAX_PAGES = 1000          -- a server paging forever is a bug

local array_mt = core.array_mt
local open_clients = setmetatable({}, { __mode = "k" })

-- Connections left open when mcp.run ends are closed then.
task.at_end(function()
  for client in pairs(open_clients) do client:close() end
end)

local function seconds_to_ms(s, what)
  if s == nil then return nil end
  if type(s) ~= "number" or s <= 0 then
    error(("bad option '%s' (positive number of seconds expected)"):format(what), 4)
  end
  return math.ceil(s * 1000)
end

local function check_options(opts)
  if type(opts) ~= "table" then
    error("bad argument #1 to 'connect' (table expected)", 3)
  end
  if opts.url ~= nil then
    error("mcp.connect: HTTP transports ('url') are not built yet; use 'command'", 3)
  end
  if type(opts.command) ~= "table" or type(opts.command[1]) ~= "string" then
    error("mcp.connect: 'command' must be a list of strings, e.g. { \"node\", \"server.js\" }", 3)
  end
  for i, word in ipairs(opts.command) do
    if type(word) ~= "string" then
      error(("mcp.connect: command[%d] is not a string"):format(i), 3)
    end
  end
  if opts.env ~= nil and type(opts.env) ~= "table" then
    error("mcp.connect: 'env' must be a table of NAME = value", 3)
  end
  if opts.cwd ~= nil and type(opts.cwd) ~= "string" then
    error("mcp.connect: 'cwd' must be a string", 3)
  end
end

local function default_log(name)
  return function(line)
    io.stderr:write(("[%s] %s\n"):format(name, line))
  end
end

local function default_bad_message(name)
  return function(err, text)
    if text and #text > 200 then text = text:sub(1, 200) .. "..." end
    io.stderr:write(("luamcp: [%s] ignored a bad message (%s)%s\n"):format(
      name, tostring(err), text and (": " .. text) or ""))
  end
end

-- The callbacks mcp.core calls; they close over the client.
local function core_handlers(self)
  return {
    on_request = function(id, method, params)
      return self:_on_request(id, method, params)
    end,
    on_notification = function(method, params)
      self:_on_notification(method, params)
    end,
    on_log = function(line) self.on_stderr(line) end,
    on_bad_message = function(err, text) self.on_bad_message(err, text) end,
    on_lost = function(err)
      self._lost = err
      open_clients[self] = nil
      if self.on_lost then self.on_lost(err) end
    end,
    on_closed = function()
      self._core_closed = true
      local waiters = self._close_waiters
      self._close_waiters = {}
      for _, done in ipairs(waiters) do done(true) end
    end,
  }
end

--- syntax: client, err = mcp.connect(opts)
--- opts: name, command = { ... }, env = { NAME = value | false }, cwd,
--- timeout (seconds, per request; default 60), init_timeout (seconds),
--- max_message (bytes), grace (seconds, per step of the shutdown ladder),
--- on_stderr(line), on_bad_message(err, text), on_lost(err).
--- Waits for the server to start and finish the handshake. Returns the
--- client, or nil and an mcp.error (ESPAWN, ECLOSED, ETIMEDOUT, EVERSION).
function M.connect(opts)
  check_options(opts)
  local name = opts.name or opts.command[1]:match("[^/]*$")
  local self = setmetatable({
    name = name,
    _timeout = seconds_to_ms(opts.timeout, "timeout") or DEFAULT_TIMEOUT * 1000,
    _close_waiters = {},
    _notification_handlers = {},
    on_stderr = opts.on_stderr or default_log(name),
    on_bad_message = opts.on_bad_message or default_bad_message(name),
    on_lost = opts.on_lost,
  }, Client_mt)
  local core_client, err = core.client_stdio({
    command = opts.command,
    env = opts.env,
    cwd = opts.cwd,
    timeout = self._timeout,
    max_message = opts.max_message,
    max_depth = opts.max_depth,
    grace = seconds_to_ms(opts.grace, "grace"),
    stderr_ring = opts.stderr_ring,
  }, core_handlers(self))
  if not core_client then return nil, err end
  self._core = core_client
  open_clients[self] = true

  local capabilities = setmetatable({}, nil)   -- none until handlers exist
  local init_ms = seconds_to_ms(opts.init_timeout, "init_timeout") or self._timeout
  local result
  result, err = task.await(function(done)
    return core_client:initialize(capabilities, opts.client_info, init_ms, done)
  end)
  if not result then
    self:close()
    return nil, err
  end
  self.server_info = result.serverInfo
  self.capabilities = result.capabilities
  self.instructions = result.instructions
  self.protocol_version = result.protocolVersion
  self.initialize_result = result
  return self
end

function Client_mt.__tostring(self)
  return ("mcp.Client(%s)"):format(self.name)
end

-- Raises on misuse; returns the error a lost connection left behind.
function Client:_check(level)
  if getmetatable(self) ~= Client_mt then
    error("bad self (mcp.Client expected)", level or 3)
  end
  if self._closing then
    error("attempt to use a closed mcp.Client", level or 3)
  end
  return self._lost
end

local function timeout_ms(self, opts)
  if opts == nil then return self._timeout end
  if type(opts) ~= "table" then error("bad 'opts' (table expected)", 4) end
  return seconds_to_ms(opts.timeout, "timeout") or self._timeout
end

--- syntax: result, err = client:request(method, params?, opts?)
--- Sends any request and waits for its result. opts.timeout in seconds.
--- Returns the decoded result, or nil and an mcp.error (ERPC with rpc_code
--- and data, ETIMEDOUT, ECLOSED with the server's stderr tail, ETOOBIG...).
function Client:request(method, params, opts)
  local lost = self:_check()
  if type(method) ~= "string" then
    error("bad argument #1 to 'request' (string expected)", 2)
  end
  if params ~= nil and type(params) ~= "table" then
    error("bad argument #2 to 'request' (table expected)", 2)
  end
  local ms = timeout_ms(self, opts)
  if lost then return nil, lost end
  return task.await(function(done)
    return self._core:request(method, params, ms, done)
  end)
end

--- syntax: ok, err = client:notify(method, params?)
function Client:notify(method, params)
  local lost = self:_check()
  if type(method) ~= "string" then
    error("bad argument #1 to 'notify' (string expected)", 2)
  end
  if lost then return nil, lost end
  return self._core:notify(method, params)
end

--- syntax: ok, err = client:ping(opts?)
function Client:ping(opts)
  local res, err = self:request("ping", nil, opts)
  if res == nil then return nil, err end
  return true
end

-- Follows nextCursor to the end. A cursor seen twice, or too many pages,
-- is the server's bug: EPROTO, with what was gathered in err.partial.
function Client:_paginate(method, key, params, opts)
  local items = setmetatable({}, array_mt)
  local seen, pages = {}, 0
  local cursor
  repeat
    local p = {}
    for k, v in pairs(params or {}) do p[k] = v end
    p.cursor = cursor
    local res, err = self:request(method, next(p) and p or nil, opts)
    if not res then return nil, err end
    local page = res[key]
    if type(page) ~= "table" then
      return nil, errors.new("EPROTO", ("%s result has no '%s' list"):format(method, key))
    end
    for _, item in ipairs(page) do items[#items + 1] = item end
    cursor = res.nextCursor
    if type(cursor) ~= "string" then
      cursor = nil
    elseif seen[cursor] then
      return nil, errors.new("EPROTO", ("%s: the server repeated the cursor %q")
        :format(method, cursor), { partial = items })
    else
      seen[cursor] = true
      pages = pages + 1
      if pages >= MAX_PAGES then
        return nil, errors.new("EPROTO", ("%s: more than %d pages")
          :format(method, MAX_PAGES), { partial = items })
      end
    end
  until cursor == nil
  return items
end

--- syntax: tools, err = client:list_tools(opts?)
--- Every tool of the server, all pages followed.
function Client:list_tools(opts)
  return self:_paginate("tools/list", "tools", nil, opts)
end

--- syntax: result, err = client:call_tool(name, args?, opts?)
--- The CallToolResult as the server sent it: content, structuredContent,
--- isError, _meta. A tool's own failure (isError = true) is a result, not
--- an error.
function Client:call_tool(name, args, opts)
  if type(name) ~= "string" then
    error("bad argument #1 to 'call_tool' (string expected)", 2)
  end
  if args ~= nil and type(args) ~= "table" then
    error("bad argument #2 to 'call_tool' (table expected)", 2)
  end
  return self:request("tools/call", { name = name, arguments = args or {} }, opts)
end

--- syntax: client:on_notification(method, fn)
--- fn(params) is called for each notification of that method ("*" for all).
function Client:on_notification(method, fn)
  self:_check()
  self._notification_handlers[method] = fn
end

function Client:_on_notification(method, params)
  local fn = self._notification_handlers[method] or self._notification_handlers["*"]
  if fn then fn(params, method) end
end

-- A request from the server. Returning false answers "method not found";
-- the handlers of sampling, elicitation and roots come with their issue.
function Client:_on_request(id, method, params)
  local _ = id, method, params
  return false
end

--- syntax: true = client:close()
--- Fails every pending request with ECLOSED at once, then shuts the server
--- down (close stdin, SIGTERM, SIGKILL to its process group). Inside a task
--- it waits until the server process has been reaped. Idempotent.
function Client:close()
  if getmetatable(self) ~= Client_mt then
    error("bad self (mcp.Client expected)", 2)
  end
  open_clients[self] = nil
  if not self._closing then
    self._closing = true
    if self._core then self._core:close() end
  end
  if self._core and not self._core_closed and task.in_task() then
    task.await(function(done)
      self._close_waiters[#self._close_waiters + 1] = done
      return true
    end)
  end
  return true
end
Client_mt.__close = Client.close

--- syntax: text = client:stderr() -- the tail of the server's stderr
function Client:stderr()
  return self._core and self._core:stderr() or ""
end

M.Client = Client
return M
