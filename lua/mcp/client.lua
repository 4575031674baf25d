--- mcp.client: one connection to an MCP server, with waiting methods over
--- mcp.core's callback API. It owns the connection's life (connect,
--- requests and their handles, keep-alive, notifications, close). The
--- Client is composed at the end of this file from its parts, each a
--- module of its own: the methods for each server feature (mcp.features),
--- the schema checks of tool calls (mcp.validation), the answers to server
--- requests (mcp.handlers).
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"

local M = {}

local Client = {}
local Client_mt = { __name = "mcp.Client", __index = Client }
M.Client, M.Client_mt = Client, Client_mt

local DEFAULT_TIMEOUT = 60      -- seconds, per request
local DEFAULT_PING_MISSES = 3
local URL_ELICITATION_REQUIRED = -32042

local open_clients = setmetatable({}, { __mode = "k" })

-- Connections left open when mcp.run ends are closed then.
task.at_end(function()
  for client in pairs(open_clients) do client:close() end
end)

local function seconds_to_ms(s, what, level)
  if s == nil then return nil end
  if type(s) ~= "number" or s <= 0 then
    error(("bad option '%s' (positive number of seconds expected)"):format(what),
      level or 4)
  end
  return math.ceil(s * 1000)
end
M.seconds_to_ms = seconds_to_ms

local function check_options(opts)
  if type(opts) ~= "table" then
    error("bad argument #1 to 'connect' (table expected)", 3)
  end
  if opts.url ~= nil then
    if opts.command ~= nil then
      error("mcp.connect: give either 'command' (stdio) or 'url' (HTTP), not both", 3)
    end
    if type(opts.url) ~= "string" or not opts.url:match("^https?://") then
      error("mcp.connect: 'url' must be an http:// or https:// URL", 3)
    end
    local o = opts.oauth
    if o ~= nil and o ~= false and type(o) ~= "table" then
      error("mcp.connect: 'oauth' must be a table or false", 3)
    end
    if type(o) == "table" and o.open ~= nil and o.open ~= true
        and type(o.open) ~= "function" then
      error("mcp.connect: 'oauth.open' must be true or a function(url)", 3)
    end
    if type(o) == "table" and o.grant ~= nil and o.grant ~= "authorization_code"
        and o.grant ~= "client_credentials" and o.grant ~= "jwt_bearer"
        and o.grant ~= "token_exchange" then
      error("mcp.connect: 'oauth.grant' must be authorization_code, client_credentials, "
        .. "jwt_bearer or token_exchange", 3)
    end
    if type(o) == "table" and type(o.assertion) == "table" then
      if #o.assertion == 0 then
        error("mcp.connect: 'oauth.assertion' must be a file name or a command (a list of strings)", 3)
      end
      for _, word in ipairs(o.assertion) do
        if type(word) ~= "string" then
          error("mcp.connect: 'oauth.assertion' must be a file name or a command (a list of strings)", 3)
        end
      end
    end
    local h = opts.headers
    if h ~= nil and type(h) ~= "table" and type(h) ~= "function" then
      error("mcp.connect: 'headers' must be a table or a function returning one", 3)
    end
    if opts.transport ~= nil and opts.transport ~= "auto"
        and opts.transport ~= "streamable-http" and opts.transport ~= "sse" then
      error("mcp.connect: 'transport' must be auto, streamable-http or sse", 3)
    end
    return
  end
  if type(opts.command) ~= "table" or type(opts.command[1]) ~= "string" then
    error("mcp.connect: 'command' must be a list of strings, e.g. { \"node\", \"server.js\" }", 3)
  end
  for i, word in ipairs(opts.command) do
    if type(word) ~= "string" then
      error(("mcp.connect: command[%d] is not a string"):format(i), 3)
    end
  end
  local r = opts.restart
  if r ~= nil and (type(r) ~= "table" or math.type(r.max) ~= "integer" or r.max < 0
      or (r.backoff ~= nil and (type(r.backoff) ~= "number" or r.backoff < 0))) then
    error("mcp.connect: 'restart' must be { max = integer, backoff = seconds }", 3)
  end
  if opts.env ~= nil and type(opts.env) ~= "table" then
    error("mcp.connect: 'env' must be a table of NAME = value", 3)
  end
  if opts.cwd ~= nil and type(opts.cwd) ~= "string" then
    error("mcp.connect: 'cwd' must be a string", 3)
  end
end

local function default_stderr(name)
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

local function default_warning(name)
  return function(message)
    io.stderr:write(("luamcp: [%s] %s\n"):format(name, message))
  end
end

-- The callbacks mcp.core calls; they close over the client.
local function core_handlers(self, opts)
  return {
    -- Only when asked for: the core traces nothing without it.
    on_trace = opts.on_trace,
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
      self:_stop_keepalive()
      self:_listen_resume()       -- to see that it is over
      open_clients[self] = nil
      if self.on_lost then self.on_lost(err) end
    end,
    on_down = function(err)
      -- The stdio server died and a restart is due (opts.restart).
      if self.on_down then self.on_down(err) end
    end,
    on_session = function(number, result)
      -- The server forgot our session, or was restarted; the core began a
      -- new one, restored what we had set up and sent the waiting
      -- requests again.
      self.sessions = number
      self._cache = nil           -- what the old session said may be stale
      self.protocol_version = result.protocolVersion
      self.capabilities = result.capabilities
      self.instructions = result.instructions
      self.server_info = result.serverInfo
      self.initialize_result = result
      self:_listen_resume()       -- the new server holds no subscription
      if self.on_session then self.on_session(self, number) end
    end,
    on_closed = function()
      self._core_closed = true
      local waiters = self._close_waiters
      self._close_waiters = {}
      for _, done in ipairs(waiters) do done(true) end
    end,
  }
end

-- The oauth options as mcp.core takes them (nil: OAuth off). OAuth is on
-- for every HTTP server unless oauth = false: tokens stored by `luamcp
-- auth` are used and refreshed; a server that needs a person fails with
-- ENEEDSAUTH unless oauth.open (or oauth.interactive) allows the browser.
-- A secret given as { env = "NAME" } or { file = "path" }: read here, so
-- it need not be written into a script or a command line.
local function secret_of(v, key)
  if type(v) ~= "table" then return v end
  if type(v.env) == "string" then
    local s = os.getenv(v.env)
    if not s or s == "" then
      error(("mcp.connect: oauth.%s names the environment variable %s, which is not set")
        :format(key, v.env), 4)
    end
    return s
  end
  if type(v.file) == "string" then
    local f, why = io.open(v.file, "rb")
    if not f then error(("mcp.connect: oauth.%s: %s"):format(key, why), 4) end
    local s = f:read(64 * 1024 + 1) or ""
    f:close()
    s = s:gsub("^%s+", ""):gsub("%s+$", "")
    if s == "" or #s > 64 * 1024 then
      error(("mcp.connect: oauth.%s: %s is empty or too large"):format(key, v.file), 4)
    end
    return s
  end
  error(("mcp.connect: oauth.%s must be a string, { env = NAME } or { file = path }")
    :format(key), 4)
end

local function core_oauth(o)
  if o == false then return nil end
  o = o or {}
  local c = {}
  for k, v in pairs(o) do c[k] = v end
  c.client_secret = secret_of(o.client_secret, "client_secret")
  c.idp_client_secret = secret_of(o.idp_client_secret, "idp_client_secret")
  c.open = nil
  c.interactive = o.interactive or o.open ~= nil
  c.timeout = seconds_to_ms(o.timeout, "oauth.timeout")
  return c
end

-- The authorization extensions a grant belongs to, declared in the
-- client's capabilities.extensions (SEP-2133) as their documents ask.
local OAUTH_EXTENSIONS = {
  client_credentials = "io.modelcontextprotocol/oauth-client-credentials",
  token_exchange = "io.modelcontextprotocol/enterprise-managed-authorization",
}

local function declare_oauth_extension(o, capabilities)
  local id = type(o) == "table" and OAUTH_EXTENSIONS[o.grant]
  if not id then return end
  capabilities.extensions = capabilities.extensions or {}
  capabilities.extensions[id] = {}
end

-- oauth.open as a function: it gets the authorization URL in a task of
-- its own, so it may wait (follow the redirects itself, ask a person).
local function authorize_handler(self, o)
  if type(o) ~= "table" or type(o.open) ~= "function" then return nil end
  return function(url)
    task.spawn(function()
      local ok, err = pcall(o.open, url)
      if not ok then
        io.stderr:write(("luamcp: [%s] oauth.open failed: %s\n"):format(
          self.name, tostring(err)))
      end
    end)
  end
end

-- What the parts of the Client (see the end of this file) add to connect.
local connect_hooks = {}
local capability_providers = {}

--- syntax: client, err = mcp.connect(opts)
--- opts: name, command = { ... }, env = { NAME = value | false }, cwd,
--- protocol ("auto", the default: server/discover decides the era;
--- "2026-07-28": that era or EVERSION; "2025-11-25" or an older
--- revision: the handshake at once),
--- timeout (seconds, per request; default 60), init_timeout (seconds),
--- restart = { max = n, backoff = seconds (default 1, doubling) } to start
--- a stdio server again when it dies (calls meanwhile fail with ECLOSED;
--- on_session reports the new session, set-up restored),
--- max_message (bytes), grace (seconds, per step of the shutdown ladder),
--- ping_interval (seconds) and ping_misses (default 3) for a keep-alive,
--- handlers = { sampling, elicitation, roots } (see mcp.handlers),
--- on_stderr(line), on_log(params), on_bad_message(err, text),
--- on_warning(message) for what the client left out of what the server
--- offered (a tool with invalid x-mcp-header annotations; stderr unless
--- given),
--- on_trace(line) for a trace of the connection (the messages; over HTTP
--- every request's and answer's headers too, credentials masked; see
--- luamcp debug), on_lost(err), on_down(err) when a server with restart died and is
--- about to be started again, on_tools_changed(tools), on_resources_changed(),
--- on_prompts_changed(), on_session(client, number) when an expired
--- session was replaced (the core restores the set-up and sends the
--- waiting requests again itself).
--- Waits for the server to start and finish the handshake. Returns the
--- client, or nil and an mcp.error (ESPAWN, ECLOSED, ETIMEDOUT, EVERSION).
function M.connect(opts)
  check_options(opts)
  local name = opts.name
  if not name and opts.url then
    name = opts.url:match("^%a+://([^/?#]+)") or opts.url
  elseif not name then
    name = opts.command[1]:match("[^/]*$")
  end
  local self = setmetatable({
    name = name,
    _timeout = seconds_to_ms(opts.timeout, "timeout") or DEFAULT_TIMEOUT * 1000,
    _close_waiters = {},
    _schema_opts = setmetatable({}, { __mode = "k" }),  -- see request_options
    _notification_handlers = {},
    on_stderr = opts.on_stderr or default_stderr(name),
    on_bad_message = opts.on_bad_message or default_bad_message(name),
    on_warning = opts.on_warning or default_warning(name),
    on_lost = opts.on_lost,
    on_down = opts.on_down,
    on_session = opts.on_session,
    on_log = opts.on_log,
    on_tools_changed = opts.on_tools_changed,
    on_resources_changed = opts.on_resources_changed,
    on_prompts_changed = opts.on_prompts_changed,
  }, Client_mt)
  local ping_ms = seconds_to_ms(opts.ping_interval, "ping_interval")
  for _, hook in ipairs(connect_hooks) do hook(self, opts) end

  local core_client, err
  if opts.url then
    if type(opts.headers) == "function" then self._headers_fn = opts.headers end
    local handlers = core_handlers(self, opts)
    handlers.on_authorize = authorize_handler(self, opts.oauth)
    core_client, err = core.client_http({
      url = opts.url,
      transport = opts.transport,
      headers = self._headers_fn and self._headers_fn() or opts.headers,
      timeout = self._timeout,
      max_message = opts.max_message,
      max_depth = opts.max_depth,
      connect_timeout = seconds_to_ms(opts.connect_timeout, "connect_timeout"),
      idle_timeout = seconds_to_ms(opts.idle_timeout, "idle_timeout"),
      max_failures = opts.max_failures,
      ca_file = opts.ca_file, ca_path = opts.ca_path,
      cert = opts.cert, key = opts.key, insecure = opts.insecure,
      oauth = core_oauth(opts.oauth),
    }, handlers)
  else
    core_client, err = core.client_stdio({
      command = opts.command,
      env = opts.env,
      cwd = opts.cwd,
      timeout = self._timeout,
      max_message = opts.max_message,
      max_depth = opts.max_depth,
      grace = seconds_to_ms(opts.grace, "grace"),
      stderr_ring = opts.stderr_ring,
      restart_max = opts.restart and opts.restart.max,
      restart_backoff = opts.restart and seconds_to_ms(opts.restart.backoff or 1, "restart.backoff"),
    }, core_handlers(self, opts))
  end
  if not core_client then return nil, err end
  self._core = core_client
  open_clients[self] = true

  local capabilities = {}
  for _, provide in ipairs(capability_providers) do provide(self, capabilities) end
  declare_oauth_extension(opts.oauth, capabilities)
  local init_ms = seconds_to_ms(opts.init_timeout, "init_timeout") or self._timeout
  local result
  result, err = task.await(function(done)
    return core_client:initialize(capabilities, opts.client_info, init_ms, done,
                                  opts.protocol)
  end)
  if not result then
    self:close()
    return nil, err
  end
  self.server_info = result.serverInfo
  self.capabilities = result.capabilities
  self.instructions = result.instructions
  self.protocol_version = result.protocolVersion
  -- "modern" (2026-07-28: server/discover, no handshake, a stateless
  -- server) or "legacy" (the handshake of 2025-11-25 and before), as the
  -- server's answer to server/discover said.
  self.era = core_client:era()
  self.initialize_result = result
  self.sessions = 1          -- numbered: each handshake gets a new number
  self.client_capabilities = capabilities
  self.transport = core_client:transport()
  -- 2026-07-28: the list-changed callbacks are served by a listen.
  self:_listen_update()
  if ping_ms then
    self:_start_keepalive(ping_ms, opts.ping_misses or DEFAULT_PING_MISSES)
  end
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

-- What the stateless era (2026-07-28) removed: asked of such a server,
-- these fail at once rather than be sent.
local GONE_IN_STATELESS = {
  ping = "ping is not part of 2026-07-28",
  ["logging/setLevel"] = "2026-07-28 has no logging/setLevel",
  ["resources/subscribe"] = "2026-07-28 subscribes through subscriptions/listen",
  ["resources/unsubscribe"] = "2026-07-28 subscribes through subscriptions/listen",
}

--- Returns nil, or an ENOTSUP error when the server did not declare the
--- capability at path (e.g. "resources", "subscribe") that method needs,
--- or speaks an era without the method.
function Client:_require(method, key, subkey)
  if self.era == "modern" and GONE_IN_STATELESS[method] then
    return errors.new("ENOTSUP", ("%s: %s"):format(method, GONE_IN_STATELESS[method]))
  end
  local cap = self.capabilities
  local outer = type(cap) == "table" and cap[key]
  local ok = outer ~= nil and outer ~= false
  if ok and subkey then
    local inner = type(outer) == "table" and outer[subkey]
    ok = inner ~= nil and inner ~= false
  end
  if ok then return nil end
  return errors.new("ENOTSUP", ("%s: the server did not declare the '%s' capability")
    :format(method, subkey and (key .. "." .. subkey) or key))
end

-- ---- requests ------------------------------------------------------------

local Request = {}
local Request_mt = { __name = "mcp.Request", __index = Request }

-- The core's options for one request. Requests without options share one
-- table (the hot path allocates nothing here): one for no schema, else one
-- per schema, since a compiled schema belongs to one tool, and so comes
-- with the same other schema each time.
local function request_options(self, opts, arguments_schema, structured_schema)
  if opts == nil then
    local key = arguments_schema or structured_schema
    local shared
    if key == nil then
      shared = self._default_opts
    else
      shared = self._schema_opts[key]
    end
    if not shared then
      shared = { timeout = self._timeout, arguments_schema = arguments_schema,
                 structured_schema = structured_schema }
      if key == nil then
        self._default_opts = shared
      else
        self._schema_opts[key] = shared
      end
    end
    return shared
  end
  opts = opts or {}
  if type(opts) ~= "table" then error("bad 'opts' (table expected)", 4) end
  if opts.on_progress ~= nil and type(opts.on_progress) ~= "function" then
    error("bad option 'on_progress' (function expected)", 4)
  end
  return {
    timeout = seconds_to_ms(opts.timeout, "timeout", 5) or self._timeout,
    max_timeout = seconds_to_ms(opts.max_timeout, "max_timeout", 5),
    on_progress = opts.on_progress,
    arguments_schema = arguments_schema,
    structured_schema = structured_schema,
  }
end

-- A request ends with (result) or (nil, err), kept in _res and _err; both
-- are false while it runs (no third field: eight fields fit the table's
-- smallest hash size that holds them). The first waiting task is kept in
-- _co and resumed directly; more waiters go through task.await.
local function is_done(req)
  return req._res ~= false or req._err ~= false
end

function Request:_complete(res, err)
  self._res, self._err = res, err
  local co = self._co
  if co then
    self._co = false
    task.resume(co, res, err)
  end
  local waiters = self._waiters
  if waiters then
    self._waiters = nil
    for _, done in ipairs(waiters) do done(res, err) end
  end
end

--- syntax: result, err = request:wait()
--- Waits for the request's outcome (at once if it is known). Several tasks
--- may wait on one request.
function Request:wait()
  if is_done(self) then return self._res, self._err end
  local co = task.current()
  if not self._co then
    self._co = co
    return coroutine.yield()
  end
  return task.await(function(done)
    self._waiters = self._waiters or {}
    self._waiters[#self._waiters + 1] = done
    return true
  end)
end

--- syntax: cancelled = request:cancel(reason?)
--- Stops waiting at once: waiters get nil, ECANCELED, and the server gets
--- notifications/cancelled with the reason; its late answer is dropped.
--- Returns false when the request had already finished.
function Request:cancel(reason)
  if is_done(self) or not self.id then return false end
  return self.client._core:cancel(self.id, reason or "cancelled by the client")
end

--- True once the outcome is known.
function Request:done()
  return is_done(self)
end

-- The checks start() and request() make of their arguments.
local function check_request(self, method, params, fname)
  self:_check(4)
  if type(method) ~= "string" then
    error(("bad argument #1 to '%s' (string expected)"):format(fname), 3)
  end
  if params ~= nil and type(params) ~= "table" then
    error(("bad argument #2 to '%s' (table expected)"):format(fname), 3)
  end
end

--- syntax: request = client:start(method, params?, opts?)
--- Sends a request without waiting and returns its handle (wait, cancel,
--- done, and id: the JSON-RPC id, false until the request was sent).
--- opts: timeout, max_timeout (seconds), on_progress(params).
function Client:start(method, params, opts)
  check_request(self, method, params, "start")
  return self:_start(method, params, opts)
end

-- The core calls on_response for every request started with a handle,
-- with the request as context (no closure per request).
-- -32042: the server needs URL elicitations done first (E11).
local function url_elicitation_error(rerr)
  if rerr and rerr.rpc_code == URL_ELICITATION_REQUIRED then
    rerr.code = "EURLELICIT"
    rerr.elicitations = type(rerr.data) == "table" and rerr.data.elicitations or {}
  end
  return rerr
end

local function on_response(req, res, rerr)
  req:_complete(res, url_elicitation_error(rerr))
end

-- The one way a request goes out, with or without a handle: the
-- connection's state checked, the headers refreshed, then the core, which
-- calls cb(ctx, result, err) once. An expired session is renewed by the
-- core, which sends the request again itself (on_session says when).
local function send(self, method, params, core_opts, cb, ctx)
  local lost = self._lost
  if lost then return nil, lost end
  if self._headers_fn then self:_refresh_headers() end
  return self._core:request(method, params, cb, core_opts, ctx)
end

-- start() once the arguments are checked: every request with a handle.
-- arguments_schema: the compiled schema the core checks params.arguments
-- against (tools/call).
function Client:_start(method, params, opts, arguments_schema)
  local core_opts = request_options(self, opts, arguments_schema)
  -- Every field a request gets is created here, so the table is sized once.
  local req = setmetatable({ client = self, method = method, id = false,
    _co = false, _res = false, _err = false }, Request_mt)
  local id, err = send(self, method, params, core_opts, on_response, req)
  if id then req.id = id else req:_complete(nil, err) end
  return req
end

-- Calls the user's headers function and hands its result to the core.
function Client:_refresh_headers()
  local ok, headers = pcall(self._headers_fn)
  if ok and type(headers) == "table" then
    self._core:set_headers(headers)
  elseif self.on_bad_message then
    self.on_bad_message(errors.new("EINVAL", "headers function failed: "
      .. tostring(headers)), nil)
  end
end

-- A request handle that has already failed, for errors found locally
-- (an argument that does not match its schema, a missing capability).
function Client:_failed_request(method, err)
  local req = setmetatable({ client = self, method = method }, Request_mt)
  req:_complete(nil, err)
  return req
end

--- syntax: result, err = client:request(method, params?, opts?)
--- Sends any request and waits for its result. opts as for start.
--- Returns the decoded result, or nil and an mcp.error (ERPC with rpc_code
--- and data, ETIMEDOUT, ECANCELED, ECLOSED with the server's stderr tail,
--- ETOOBIG...).
function Client:request(method, params, opts)
  check_request(self, method, params, "request")
  return self:_call(method, params, opts)
end

-- The core calls this with the waiting task as context.
local function resume_caller(co, res, err)
  task.resume(co, res, err)
end

-- request() once its arguments are checked, and the path of call_tool:
-- the task waits on the core request itself, with no request handle (a
-- fifth of a call's cost went to the handle). The core never completes a
-- request inside the call that sends it, so the yield always comes first.
-- arguments_schema: as for _start; structured_schema: the compiled schema
-- the result's structuredContent must match (the core checks it on the
-- JSON received).
function Client:_call(method, params, opts, arguments_schema, structured_schema)
  local core_opts
  if opts == nil then   -- request_options' shared tables, looked up inline
    local key = arguments_schema or structured_schema
    if key == nil then core_opts = self._default_opts else core_opts = self._schema_opts[key] end
  end
  if not core_opts then
    core_opts = request_options(self, opts, arguments_schema, structured_schema)
  end
  if self.era == "modern" then
    return self:_call_stateless(method, params, core_opts)
  end
  local id, err = send(self, method, params, core_opts, resume_caller, task.current())
  if not id then return nil, err end
  local res, rerr = coroutine.yield()
  return res, url_elicitation_error(rerr)
end

-- _call for a server of the stateless era: the result says its
-- resultType, and input_required is answered and sent again
-- (mcp.stateless).
function Client:_call_stateless(method, params, core_opts)
  local gone = GONE_IN_STATELESS[method]
  if gone then return nil, errors.new("ENOTSUP", ("%s: %s"):format(method, gone)) end
  local function ask(p)
    local id, err = send(self, method, p, core_opts, resume_caller, task.current())
    if not id then return nil, err end
    local res, rerr = coroutine.yield()
    if res == nil and self:_stream_broke(rerr) then
      -- No stream is resumed in this era (H12): a read is asked again
      -- under a new id; what may have had effects is the caller's call.
      if self:_may_ask_again(method, p) then
        id, err = send(self, method, p, core_opts, resume_caller, task.current())
        if not id then return nil, err end
        return coroutine.yield()
      end
      rerr.outcome_unknown = true
      rerr.message = rerr.message .. " (it may or may not have taken effect:"
        .. " 2026-07-28 resumes no stream; send it again if that is safe)"
    end
    return res, rerr
  end
  local res, err = ask(params)
  if res == nil then return nil, err end
  return self:_stateless_result(method, params, res, ask)
end

-- Whether err is an HTTP answer stream that broke under a request (not
-- the client closing, nor the server gone for good).
function Client:_stream_broke(err)
  return err ~= nil and err.code == "ECLOSED" and not self._closing and not self._lost
    and self.transport ~= "stdio"
end

-- The requests that may be sent twice without harm: reads, and the
-- tools that say they are idempotent (a hint only, from the server).
local READS = { ["tools/list"] = true, ["prompts/list"] = true, ["resources/list"] = true,
  ["resources/templates/list"] = true, ["resources/read"] = true, ["prompts/get"] = true,
  ["completion/complete"] = true, ["server/discover"] = true }

function Client:_may_ask_again(method, params)
  if READS[method] then return true end
  if method ~= "tools/call" then return false end
  local tool = self.tools_by_name and self.tools_by_name[params.name]
  local hints = tool and tool.annotations
  return type(hints) == "table" and hints.idempotentHint == true
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

-- ---- keep-alive ------------------------------------------------------------

-- Pings every interval; after `misses` pings in a row that got no answer
-- in time, the connection is declared dead and pending calls fail.
function Client:_start_keepalive(interval_ms, misses)
  local missed = 0
  local function arm()
    self._ping_timer = core.timer(interval_ms, function()
      self._ping_timer = nil
      if self._closing or self._lost then return end
      self._core:request("ping", nil, function(res, err)
        if self._closing or self._lost then return end
        if res then
          missed = 0
        elseif err.code == "ETIMEDOUT" then
          missed = missed + 1
        end
        if missed >= misses then
          local msg = ("server missed %d pings in a row"):format(missed)
          self._lost = errors.new("ECLOSED", msg)
          open_clients[self] = nil
          self._core:abort("ECLOSED", msg)
        else
          arm()
        end
      end, { timeout = interval_ms })
    end)
  end
  arm()
end

function Client:_stop_keepalive()
  if self._ping_timer then
    self._ping_timer:stop()
    self._ping_timer = nil
  end
end

-- ---- notifications and server requests ---------------------------------------

-- Built-in reactions to notifications, by method, from the parts.
local notification_routes = {}

--- syntax: client:on_notification(method, fn)
--- fn(params, method) is called for each notification of that method
--- ("*" for every method), after the built-in handling.
function Client:on_notification(method, fn)
  self:_check()
  self._notification_handlers[method] = fn
end

function Client:_on_notification(method, params)
  -- 2026-07-28: what a listen of ours carries, and nothing tagged for
  -- another (mcp.listen).
  if self._listen_ids and not self:_listen_accepts(method, params) then return end
  local route = notification_routes[method]
  if route then route(self, params) end
  local fn = self._notification_handlers[method] or self._notification_handlers["*"]
  if fn then fn(params, method) end
end

-- A request from the server, for the part that answers them (false:
-- "method not found").
local request_router = function() return false end

function Client:_on_request(id, method, params)
  return request_router(self, id, method, params)
end

-- ---- closing ------------------------------------------------------------------

--- syntax: true = client:close()
--- Fails every pending request with ECLOSED at once, then shuts the server
--- down (close stdin, SIGTERM, SIGKILL to its process group). Inside a task
--- it waits until the server process has been reaped. Idempotent.
function Client:close()
  if getmetatable(self) ~= Client_mt then
    error("bad self (mcp.Client expected)", 2)
  end
  open_clients[self] = nil
  self:_stop_keepalive()
  if not self._closing then
    self._closing = true
    self:_listen_resume()         -- a listen waiting to reopen ends
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

-- ---- composition -----------------------------------------------------------

-- The Client's parts: each brings methods (no two parts, and no part and
-- this file, may define the same one), notification routes, and what
-- connect should also do.
for _, part in ipairs{ require "mcp.features", require "mcp.validation",
                       require("mcp.handlers").client_part,
                       (require "mcp.stateless"), (require "mcp.listen"),
                       (require "mcp.skills"), (require "mcp.tasks") } do
  for name, fn in pairs(part.methods) do
    assert(Client[name] == nil, "mcp.client: two parts define Client:" .. name)
    Client[name] = fn
  end
  for method, fn in pairs(part.routes or {}) do
    assert(notification_routes[method] == nil, "mcp.client: two routes for " .. method)
    notification_routes[method] = fn
  end
  connect_hooks[#connect_hooks + 1] = part.on_connect
  capability_providers[#capability_providers + 1] = part.capabilities
  request_router = part.on_request or request_router
end

return M
