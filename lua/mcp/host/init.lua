--- mcp.host: many servers at once, from the config file people already
--- have (OpenCode, Claude, VS Code, luamcp's own; see mcp.host.config).
--- Every enabled server connects in parallel, each bounded by its own
--- startup timeout, so that one that fails, hangs or needs authorization
--- neither delays nor breaks the others. The host keeps a state per
--- server, shows every tool as `server_tool` (mcp.host.naming), filtered
--- by the config's globs and a Lua function (mcp.host.filter), and routes
--- calls back to the server they belong to. Everything here is policy on
--- top of mcp.connect: a user may read it and change it.
local task = require "mcp.task"
local client = require "mcp.client"
local errors = require "mcp.errors"
local config = require "mcp.host.config"
local naming = require "mcp.host.naming"
local filter = require "mcp.host.filter"

local M = {}

local Host = {}
local Host_mt = { __name = "mcp.Host", __index = Host }
M.Host, M.Host_mt = Host, Host_mt

local DEFAULT_STARTUP = 30     -- seconds per server

-- Runs fn(item) for every item of list, each in a task of its own, and
-- waits until all have returned.
local function each_in_parallel(list, fn)
  local jobs = {}
  for i, item in ipairs(list) do jobs[i] = function() fn(item) end end
  task.all(jobs)
end

-- The state a failed connect leaves: authorization has states of its own.
local function state_of_error(err)
  if errors.is(err, "ENEEDSAUTH") then return "needs_auth" end
  if errors.is(err, "ENEEDSREG") then return "needs_client_registration" end
  return "failed"
end

local function set_state(self, rec, state, err)
  rec.state, rec.error = state, err
  if self._on_status then self._on_status(rec.name, state, err) end
end

-- A handler named in a config file is a Lua module whose value is the
-- handler (a function, or a table as mcp.connect takes it).
local function load_handler(name, module)
  if type(module) ~= "string" then return module end
  local ok, value = pcall(require, module)
  if not ok then
    error(("server %q: handler module '%s' cannot be loaded: %s"):format(
      name, module, tostring(value)), 0)
  end
  return value
end

-- The host's handlers, with what the server's config overrides.
local function handlers_for(self, rec)
  local h = {}
  for kind, v in pairs(self._handlers or {}) do h[kind] = v end
  for kind, module in pairs(rec.spec.handlers or {}) do
    h[kind] = load_handler(rec.name, module)
  end
  if rec.spec.roots then h.roots = rec.spec.roots end
  return next(h) and h or nil
end

local function oauth_for(self, spec)
  if spec.oauth == false then return false end
  local o = {}
  for k, v in pairs(spec.oauth or {}) do o[k] = v end
  for k, v in pairs(self._oauth or {}) do o[k] = v end
  return next(o) and o or nil
end

-- What mcp.connect takes for a server of the config.
local function connect_options(self, rec)
  local spec, name = rec.spec, rec.name
  local timeout = spec.timeout or {}
  local o = {
    name = name,
    timeout = timeout.execution,
    init_timeout = timeout.startup or self._startup,
    handlers = handlers_for(self, rec),
    on_stderr = function(line) self._on_stderr(name, line) end,
    on_log = self._on_log and function(params) self._on_log(name, params) end,
    on_down = function(err) set_state(self, rec, "reconnecting", err) end,
    on_session = function() self:_session_began(rec) end,
    on_lost = function(err) set_state(self, rec, "failed", err) end,
    on_tools_changed = function() self:_tools_changed(rec) end,
    on_trace = self._on_trace and function(line) self._on_trace(name, line) end,
    on_warning = self._on_warning and function(message) self._on_warning(name, message) end,
    protocol = spec.protocol,    -- "auto" unless luamcp.json says otherwise
  }
  if spec.url then
    o.url, o.headers, o.transport = spec.url, spec.headers, spec.transport
    o.oauth = oauth_for(self, spec)
  else
    o.command, o.env, o.cwd, o.restart = spec.command, spec.env, spec.cwd, spec.restart
  end
  return o
end

-- Lists a connected server's tools (the catalog), within its timeout.
local function list_tools(rec)
  local t = rec.spec.timeout
  local tools, err = rec.client:list_tools{ timeout = t and t.catalog }
  if not tools and err.code ~= "ENOTSUP" then
    rec.list_error = err
    return nil, err
  end
  rec.list_error = nil
  return tools
end

local function connect_one(self, rec)
  set_state(self, rec, "connecting")
  local ok, c, err = pcall(client.connect, connect_options(self, rec))
  if not ok then                       -- a config the client refuses
    err = errors.new("EINVAL", (tostring(c):gsub("^mcp.connect: ", "")))
    c = nil
  end
  if self._closed then
    if c then c:close() end
    return
  end
  if not c then
    set_state(self, rec, state_of_error(err), err)
    return
  end
  rec.client = c
  list_tools(rec)
  -- Unless it died meanwhile (on_lost said so).
  if rec.state == "connecting" then set_state(self, rec, "connected") end
end

--- syntax: host, err = mcp.host(opts)
--- opts: config (a path, or a table as in a file; default: the first
--- file config.find finds), only = { names } (connect only these),
--- servers = { [name] = spec } (servers given directly, as config.load
--- makes them), handlers (for every server; a server's config may
--- override each), filter(tool, server) -> keep?, on_result(result,
--- tool, server) -> result, on_status(name, state, err),
--- on_tools_changed(host, name), on_stderr(name, line), on_log(name,
--- params), on_trace(name, line), on_warning(name, message) (see
--- mcp.connect), timeout (startup seconds per server, default 30; a server's
--- timeout.startup wins), oauth = { open = ... } (the person's step, for
--- every remote server), workspace (for ${workspaceFolder}).
--- Returns once every server is connected, failed or disabled.
function M.new(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #1 to 'host' (table expected)", 2)
  end
  local cfg, err
  if opts.config ~= nil or opts.servers == nil then
    local source = opts.config
    if source == nil then
      source, err = config.find{ cwd = opts.workspace }
      if not source then return nil, err end
    end
    cfg, err = config.load(source, { workspace = opts.workspace,
                                     inputs = opts.inputs, ask = opts.ask })
    if not cfg then return nil, err end
  else
    cfg = { order = {}, servers = {} }
  end
  local self = setmetatable({
    config_path = cfg.path,
    config_format = cfg.format,
    _records = {},
    _order = {},
    _handlers = opts.handlers,
    _filter = opts.filter,
    _on_result = opts.on_result,
    _on_status = opts.on_status,
    _on_tools_changed = opts.on_tools_changed,
    _on_stderr = opts.on_stderr or function(name, line)
      io.stderr:write(("[%s] %s\n"):format(name, line))
    end,
    _on_log = opts.on_log,
    _on_trace = opts.on_trace,
    _on_warning = opts.on_warning,
    _oauth = opts.oauth,
    _startup = opts.timeout or DEFAULT_STARTUP,
  }, Host_mt)
  local function add(name, spec)
    if self._records[name] then return end
    self._records[name] = { name = name, spec = spec }
    self._order[#self._order + 1] = name
  end
  for _, name in ipairs(cfg.order) do add(name, cfg.servers[name]) end
  local extra = {}
  for name in pairs(opts.servers or {}) do extra[#extra + 1] = name end
  table.sort(extra)
  for _, name in ipairs(extra) do
    local spec = opts.servers[name]
    spec.name = spec.name or name
    self._records[name] = nil
    add(name, spec)
  end
  if opts.only then
    local keep = {}
    for _, name in ipairs(opts.only) do
      if not self._records[name] then
        return nil, errors.new("ENOENT", ("no server named %q%s"):format(name,
          cfg.path and (" in " .. cfg.path) or ""))
      end
      keep[#keep + 1] = name
    end
    self._order = keep
  end

  local starting = {}
  for _, name in ipairs(self._order) do
    local rec = self._records[name]
    if rec.spec.enabled == false then
      set_state(self, rec, "disabled")
    else
      starting[#starting + 1] = rec
    end
  end
  each_in_parallel(starting, function(rec) connect_one(self, rec) end)
  return self
end

function Host_mt.__tostring(self)
  return ("mcp.Host(%d servers)"):format(#self._order)
end

function Host:_check()
  if getmetatable(self) ~= Host_mt then
    error("bad self (mcp.Host expected)", 3)
  end
  if self._closed then error("attempt to use a closed mcp.Host", 3) end
end

-- A new session began: the first after a restart, or after an expiry.
-- Its tools may have changed, so they are listed again.
function Host:_session_began(rec)
  if self._closed or not rec.client then return end
  rec.client.tools = nil
  task.spawn(function()
    list_tools(rec)
    if self._closed then return end
    set_state(self, rec, "connected")
    self:_tools_changed(rec)
  end)
end

function Host:_tools_changed(rec)
  self._shown_from = nil       -- worked out again at the next look
  if self._on_tools_changed then self._on_tools_changed(self, rec.name) end
end

--- syntax: names = host:names() -- every server of the config, in order
function Host:names()
  self:_check()
  return table.move(self._order, 1, #self._order, 1, {})
end

--- syntax: status = host:status()
--- { [name] = { state, error, transport, protocol_version, era, server_info,
--- tools (how many are shown), url, command } }; state is one of
--- connected, disabled, failed, needs_auth, needs_client_registration,
--- connecting, reconnecting.
function Host:status()
  self:_check()
  local shown = {}
  for _, t in ipairs(self:_shown_tools()) do
    shown[t.server] = (shown[t.server] or 0) + 1
  end
  local out = {}
  for _, name in ipairs(self._order) do
    local rec = self._records[name]
    local c = rec.client
    out[name] = {
      state = rec.state,
      error = rec.error or (rec.state == "connected" and rec.list_error) or nil,
      transport = c and c.transport or (rec.spec.url and "http" or "stdio"),
      protocol_version = c and c.protocol_version,
      era = c and c.era,           -- "modern" or "legacy"
      server_info = c and c.server_info,
      tools = c and c.tools and (shown[name] or 0) or nil,
      url = rec.spec.url,
      command = rec.spec.command,
    }
  end
  return out
end

--- syntax: client, err = host:client(name)
function Host:client(name)
  self:_check()
  local rec = self._records[name]
  if not rec or not self:_included(name) then
    return nil, errors.new("ENOENT", ("no server named %q"):format(tostring(name)))
  end
  if rec.state ~= "connected" and rec.state ~= "reconnecting" then
    return nil, rec.error or errors.new("ECLOSED",
      ("server %q is %s"):format(name, rec.state))
  end
  return rec.client
end

function Host:_included(name)
  for _, n in ipairs(self._order) do
    if n == name then return true end
  end
  return false
end

-- The connected servers' records, in config order.
function Host:_connected()
  local list = {}
  for _, name in ipairs(self._order) do
    local rec = self._records[name]
    if rec.client and rec.state == "connected" then list[#list + 1] = rec end
  end
  return list
end

-- The tool lists the shown tools come from: each connected server's (the
-- client's table, or false), in config order.
local function sources(self)
  local list = {}
  for _, rec in ipairs(self:_connected()) do list[#list + 1] = rec.client.tools or false end
  return list
end

local function same_sources(a, b)
  if a == nil or #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

-- The tools the host shows, from the tool lists the clients hold: named,
-- filtered, and without a shadowed name; with the index host:call uses.
-- Worked out again only when those lists changed (a server connected or
-- went, or listed its tools again): an agent asks for them every turn.
function Host:_shown_tools()
  local from = sources(self)
  if same_sources(self._shown_from, from) then return self._shown, self.collisions end
  local candidates = {}
  for _, rec in ipairs(self:_connected()) do
    for _, tool in ipairs(rec.client.tools or {}) do
      local full = naming.tool_name(rec.name, tool.name)
      if filter.allows(rec.spec.tools, tool.name, full)
          and (not self._filter or self._filter(tool, rec.name)) then
        candidates[#candidates + 1] = { server = rec.name, tool = tool }
      end
    end
  end
  local entries, collisions = naming.assign(candidates)
  local shown, index = {}, {}
  for i, e in ipairs(entries) do
    local t = {}
    for k, v in pairs(e.tool) do t[k] = v end
    t.name, t.server, t.tool_name = e.name, e.server, e.tool.name
    shown[i] = t
    index[e.name] = t
  end
  self._shown, self._shown_from = shown, from
  self._index, self.collisions = index, collisions
  return shown, collisions
end

--- syntax: tools, collisions = host:tools()
--- Every connected server's tools, each a copy of the server's tool table
--- with name = "server_tool", server and tool_name (the server's own
--- name), in config order. A server whose list is not known yet (or
--- changed) is listed first. collisions: the names two tools wanted,
--- each with every contender ({ server, tool_name, name }): the first
--- keeps the name, the others are numbered; none is hidden.
function Host:tools()
  self:_check()
  local stale = {}
  for _, rec in ipairs(self:_connected()) do
    if rec.client.tools == nil and rec.client.capabilities
        and rec.client.capabilities.tools then
      stale[#stale + 1] = rec
    end
  end
  each_in_parallel(stale, list_tools)
  local shown, collisions = self:_shown_tools()
  return table.move(shown, 1, #shown, 1, {}), collisions
end

-- The shown tool called name, or nil and ENOENT.
function Host:_find_tool(name)
  if type(name) ~= "string" then
    error("bad argument #1 to 'call' (string expected)", 3)
  end
  self:_shown_tools()
  if not self._index[name] then self:tools() end
  local tool = self._index[name]
  if not tool then
    return nil, errors.new("ENOENT", ("no tool named %q"):format(name))
  end
  local c, err = self:client(tool.server)
  if not c then return nil, err end
  return tool, c
end

--- syntax: result, err = host:call(name, args?, opts?)
--- Calls the tool that host:tools() names `name` on its server; opts as
--- for client:call_tool. The host's on_result sees the result first.
function Host:call(name, args, opts)
  self:_check()
  local tool, c = self:_find_tool(name)
  if not tool then return nil, c end
  local result, err = c:call_tool(tool.tool_name, args, opts)
  if result and self._on_result then
    result = self._on_result(result, tool, tool.server)
  end
  return result, err
end

--- syntax: request, err = host:start_call(name, args?, opts?)
--- As host:call, but returns the request's handle (wait, cancel) at once.
--- on_result applies to what wait() returns.
function Host:start_call(name, args, opts)
  self:_check()
  local tool, c = self:_find_tool(name)
  if not tool then return nil, c end
  local req = c:start_tool(tool.tool_name, args or {}, opts)
  if self._on_result then
    local wait, on_result = req.wait, self._on_result
    req.wait = function(r, ...)
      local result, err = wait(r, ...)
      if result then result = on_result(result, tool, tool.server) end
      return result, err
    end
  end
  return req
end

-- Collects fn(rec) over the connected servers that declared capability
-- into one table keyed "server:name", as OpenCode does.
function Host:_gather(capability, fn)
  local out, failures = {}, {}
  local recs = {}
  for _, rec in ipairs(self:_connected()) do
    local caps = rec.client.capabilities
    if type(caps) == "table" and caps[capability] then recs[#recs + 1] = rec end
  end
  each_in_parallel(recs, function(rec)
    local list, err = fn(rec)
    if not list then
      failures[rec.name] = err
      return
    end
    for _, item in ipairs(list) do
      local copy = {}
      for k, v in pairs(item) do copy[k] = v end
      copy.server = rec.name
      out[rec.name .. ":" .. tostring(item.name)] = copy
    end
  end)
  return out, failures
end

--- syntax: resources, failures = host:resources()
--- { ["server:name"] = resource with .server }; failures: { [server] = err }.
function Host:resources()
  self:_check()
  return self:_gather("resources", function(rec) return rec.client:list_resources() end)
end

--- syntax: result, err = host:read(server, uri)
function Host:read(server, uri)
  self:_check()
  local c, err = self:client(server)
  if not c then return nil, err end
  return c:read_resource(uri)
end

--- syntax: prompts, failures = host:prompts()
--- { ["server:name"] = prompt with .server }; failures as for resources.
function Host:prompts()
  self:_check()
  return self:_gather("prompts", function(rec) return rec.client:list_prompts() end)
end

-- A content block as an LLM message takes it: text as text; an embedded
-- text resource as its text; anything else as it came.
local function content_for_llm(block)
  if type(block) ~= "table" then return block end
  if block.type == "text" then return block.text end
  if block.type == "resource" and type(block.resource) == "table"
      and type(block.resource.text) == "string" then
    return block.resource.text
  end
  if block.type == "resource_link" then
    return ("[resource %s: %s]"):format(tostring(block.name), tostring(block.uri))
  end
  return block
end

--- syntax: messages, result = host:get_prompt(server, name, args?)
--- messages: { { role = "user" | "assistant", content = text or block } },
--- ready for an LLM; result: the GetPromptResult as the server sent it.
function Host:get_prompt(server, name, args)
  self:_check()
  local c, err = self:client(server)
  if not c then return nil, err end
  local result
  result, err = c:get_prompt(name, args)
  if not result then return nil, err end
  local messages = {}
  for i, m in ipairs(result.messages or {}) do
    messages[i] = { role = m.role, content = content_for_llm(m.content) }
  end
  return messages, result
end

--- syntax: text, list = host:instructions()
--- Every connected server's instructions: one text of "## name"
--- sections, and the list { { server, text } }.
function Host:instructions()
  self:_check()
  local list, parts = {}, {}
  for _, rec in ipairs(self:_connected()) do
    local text = rec.client.instructions
    if type(text) == "string" and text ~= "" then
      list[#list + 1] = { server = rec.name, text = text }
      parts[#parts + 1] = ("## %s\n\n%s"):format(rec.name, text)
    end
  end
  return table.concat(parts, "\n\n"), list
end

--- syntax: true = host:close()
--- Shuts every server down (in parallel inside a task). Idempotent.
function Host:close()
  if getmetatable(self) ~= Host_mt then
    error("bad self (mcp.Host expected)", 2)
  end
  if self._closed then return true end
  self._closed = true
  local open = {}
  for _, name in ipairs(self._order) do
    local c = self._records[name].client
    if c then open[#open + 1] = c end
  end
  if task.in_task() then
    each_in_parallel(open, function(c) c:close() end)
  else
    for _, c in ipairs(open) do c:close() end
  end
  return true
end
Host_mt.__close = Host.close

-- The host's other parts, each with methods of its own.
for name, fn in pairs(require("mcp.host.skills").methods) do
  assert(Host[name] == nil, "mcp.host: two parts define Host:" .. name)
  Host[name] = fn
end

return M
