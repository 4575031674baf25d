--- mcp.cli.debug: luamcp debug SERVER. Shows on stdout every step of
--- connecting to one server: the config resolved (secrets masked), the
--- process or the URL, the states it goes through with their times, the
--- handshake (transport, protocol version, server info, capabilities,
--- instructions), authorization, and the first tools list. The server's
--- stderr and log messages are shown among the steps, and so is the
--- connection's trace (mcp.connect's on_trace): every message, and over
--- HTTP every request and answer with its headers, the OAuth discovery
--- included, credentials masked by the core.
local mcp = require "mcp"
local core = require "mcp.core"
local args = require "mcp.cli.args"
local auth = require "mcp.cli.auth"
local format = require "mcp.cli.format"
local session = require "mcp.cli.session"

local M = {}
local fail = session.fail

local MASK = "***"

local function out(fmt, ...)
  io.stdout:write(fmt:format(...), "\n")
  io.stdout:flush()
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- Shell words, quoted where needed, to show a command as one would type it.
local function shell_words(list)
  local words = {}
  for i, w in ipairs(list) do
    words[i] = w:match("^[%w@%%+=:,./_-]+$") and w or ("'" .. w:gsub("'", "'\\''") .. "'")
  end
  return table.concat(words, " ")
end

--- syntax: lines = debug.describe(spec) -- the spec as text lines, every
--- header value, env value and OAuth client secret (the IdP's too) masked
function M.describe(spec)
  local lines = {}
  local function add(fmt, ...) lines[#lines + 1] = fmt:format(...) end
  if spec.command then
    add("  command: %s", shell_words(spec.command))
    if spec.cwd then add("  cwd: %s", spec.cwd) end
    for _, k in ipairs(sorted_keys(spec.env or {})) do add("  env: %s=%s", k, MASK) end
    if spec.restart then
      add("  restart: max %s, backoff %s s", tostring(spec.restart.max),
        tostring(spec.restart.backoff))
    end
  else
    add("  url: %s", tostring(spec.url))
    add("  transport: %s", spec.transport or "auto")
    for _, k in ipairs(sorted_keys(spec.headers or {})) do add("  header: %s: %s", k, MASK) end
    if spec.oauth == false then
      add("  oauth: off")
    elseif type(spec.oauth) == "table" then
      for _, k in ipairs(sorted_keys(spec.oauth)) do
        local v = (k == "client_secret" or k == "idp_client_secret") and MASK or spec.oauth[k]
        add("  oauth.%s: %s", k, type(v) == "table" and mcp.json.encode(v) or tostring(v))
      end
    end
  end
  add("  enabled: %s", tostring(spec.enabled ~= false))
  local t = spec.timeout or {}
  if t.startup or t.catalog or t.execution then
    add("  timeout: startup %s, catalog %s, execution %s (s)", tostring(t.startup),
      tostring(t.catalog), tostring(t.execution))
  end
  if spec.tools then
    add("  tools: include %s, exclude %s",
      spec.tools.include and table.concat(spec.tools.include, " ") or "*",
      spec.tools.exclude and table.concat(spec.tools.exclude, " ") or "-")
  end
  for _, kind in ipairs(sorted_keys(spec.handlers or {})) do
    add("  handler: %s = %s", kind, tostring(spec.handlers[kind]))
  end
  if spec.protocol then add("  protocol: %s", spec.protocol) end
  return lines
end

--- luamcp debug SERVER
function M.debug(opts, words, command)
  local server, rest, err = args.server(opts, words, command, { n = 0 })
  if err then return fail(err) end
  if #rest > 0 then return fail("usage: luamcp debug SERVER") end
  return session.run(function()
    local t0 = core.now()
    local function step(fmt, ...)
      out("[%6.0f ms] " .. fmt, core.now() - t0, ...)
    end
    local spec = server.spec
    if server.config_name then
      local serr, cfg
      spec, serr, cfg = auth.config_spec(opts, server.name)
      if not spec then return fail(serr) end
      step("config: %s (%s format)", cfg.path or "(table)", cfg.format)
    else
      step("config: none (the server is given on the command line)")
    end
    out("server %s:", server.name)
    for _, line in ipairs(M.describe(spec)) do out("%s", line) end
    if spec.url then
      local st = mcp.oauth.status(spec.url)
      -- needs_auth here only means that no tokens are kept: many servers
      -- ask for none.
      step("oauth tokens kept: %s%s%s", st.status == "needs_auth" and "none" or st.status,
        st.issuer and (" from " .. st.issuer) or "", st.scope and (", scope " .. st.scope) or "")
      step("connecting to %s", spec.url)
    else
      step("starting %s", shell_words(spec.command))
    end
    spec.name = server.name
    local host <close>, herr = mcp.host(session.host_options(opts,
      { name = server.name, spec = spec }, {
        on_status = function(name, state, serr)
          step("%s: %s%s", name, state, serr and (": " .. format.one_line(serr)) or "")
        end,
        on_stderr = function(_, line) step("stderr: %s", line) end,
        on_trace = function(_, line) step("%s", line) end,
        on_log = function(_, p)
          step("log %s%s: %s", tostring(p.level), p.logger and (" (" .. p.logger .. ")") or "",
            type(p.data) == "string" and p.data or mcp.json.encode(p.data))
        end,
      }))
    if not host then return fail(herr) end
    local c, cerr = host:client(server.name)
    if not c then return fail(cerr) end
    step("handshake done")
    out("transport: %s", tostring(c.transport))
    out("protocol version: %s", tostring(c.protocol_version))
    out("server info: %s", mcp.json.encode(c.server_info or {}))
    out("server capabilities: %s", mcp.json.encode(c.capabilities or {}))
    out("client capabilities: %s", mcp.json.encode(c.client_capabilities or {}))
    if type(c.instructions) == "string" and c.instructions ~= "" then
      out("instructions:\n%s", c.instructions)
    else
      out("instructions: none")
    end
    local tools = host:tools()
    if c.tools == nil and c.capabilities and c.capabilities.tools then
      return fail(host:status()[server.name].error or "tools/list failed")
    end
    step("tools/list: %d tools", #tools)
    for _, t in ipairs(tools) do
      out("  %s\t%s", t.tool_name, format.one_line(t.description))
    end
    return 0
  end)
end

return M
