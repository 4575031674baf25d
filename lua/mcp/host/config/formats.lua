--- mcp.host.config.formats: one server of each format (OpenCode, luamcp's
--- own, Claude, VS Code) as the normalized spec mcp.host consumes.
local core = require "mcp.core"
local check = require "mcp.host.config.check"
local paths = require "mcp.host.config.paths"
local substitute = require "mcp.host.config.substitute"

local raise, absent, is_array, is_object = check.raise, check.absent, check.is_array, check.is_object
local key_of, opt_string, opt_boolean = check.key_of, check.opt_string, check.opt_boolean
local string_array, string_map, object = check.string_array, check.string_map, check.object
local positive_ms, http_url = check.positive_ms, check.http_url
local resolve, slurp, basename = paths.resolve, paths.slurp, paths.basename
local subst_tree, opencode_subst = substitute.tree, substitute.opencode
local claude_subst, vscode_subst = substitute.claude, substitute.vscode

-- The parts of a spec.

local function parse_timeout(ctx, raw)
  local v, key = raw.timeout, key_of(ctx, "timeout")
  if absent(v) then return nil end
  if type(v) == "number" then
    -- OpenCode's one number bounds the start and the tool list.
    local s = positive_ms(ctx, v, key)
    return { startup = s, catalog = s }
  end
  if not is_object(v) then
    raise(ctx, key, "must be a number of milliseconds or { startup, catalog, execution }")
  end
  return {
    startup = positive_ms(ctx, v.startup, key .. ".startup"),
    catalog = positive_ms(ctx, v.catalog, key .. ".catalog"),
    execution = positive_ms(ctx, v.execution, key .. ".execution"),
  }
end

-- snake_case (newer OpenCode, luamcp) or camelCase (older OpenCode).
local OAUTH_KEYS = {
  { "client_id", "clientId" }, { "client_secret", "clientSecret" },
  { "scope", "scope" }, { "redirect_uri", "redirectUri" },
  { "callback_port", "callbackPort" },
  { "client_metadata_url", "clientMetadataUrl" },
  -- Grants without a person (issue #18) and DPoP-bound tokens.
  { "grant", "grant" }, { "private_key", "privateKey" },
  { "auth_method", "authMethod" }, { "assertion", "assertion" },
  { "idp_token_endpoint", "idpTokenEndpoint" },
  { "idp_client_id", "idpClientId" }, { "idp_client_secret", "idpClientSecret" },
  { "dpop", "dpop" },
}

local GRANTS = { authorization_code = true, client_credentials = true,
                 jwt_bearer = true, token_exchange = true }

local function parse_oauth(ctx, raw)
  local v, key = raw.oauth, key_of(ctx, "oauth")
  if absent(v) then return nil end
  if v == false then return false end
  if not is_object(v) then raise(ctx, key, "must be an object or false") end
  local o = {}
  for _, names in ipairs(OAUTH_KEYS) do
    local name = absent(v[names[1]]) and names[2] or names[1]
    local x = v[name]
    if not absent(x) then
      if names[1] == "callback_port" then
        if math.type(x) ~= "integer" or x < 1 or x > 65535 then
          raise(ctx, key .. "." .. name, "must be a port number (1-65535)")
        end
      elseif names[1] == "dpop" then
        if type(x) ~= "boolean" then raise(ctx, key .. "." .. name, "must be true or false") end
      elseif names[1] == "grant" and not GRANTS[x] then
        raise(ctx, key .. "." .. name, "must be authorization_code, client_credentials, "
          .. "jwt_bearer or token_exchange")
      elseif names[1] == "assertion" and is_array(x) then
        -- A command that prints the token, run for every token request.
        x = string_array(ctx, x, key .. "." .. name)
        if #x == 0 then raise(ctx, key .. "." .. name, "must not be empty") end
      elseif names[1] == "private_key" or names[1] == "assertion" then
        -- Files, relative to the config file's directory like {file:}.
        if type(x) ~= "string" then
          raise(ctx, key .. "." .. name, "must be a file name"
            .. (names[1] == "assertion" and " or a command (a list of strings)" or ""))
        end
        x = resolve(x, ctx.dir, ctx.getenv("HOME"))
      elseif type(x) ~= "string" then
        raise(ctx, key .. "." .. name, "must be a string")
      end
      o[names[1]] = x
    end
  end
  return o
end

local function parse_tools(ctx, raw)
  local v = object(ctx, raw.tools, key_of(ctx, "tools"))
  if not v then return nil end
  return {
    include = string_array(ctx, v.include, key_of(ctx, "tools.include")),
    exclude = string_array(ctx, v.exclude, key_of(ctx, "tools.exclude")),
  }
end

local HANDLER_KINDS = { sampling = true, elicitation = true, roots = true }

local function parse_handlers(ctx, raw)
  local v = object(ctx, raw.handlers, key_of(ctx, "handlers"))
  if not v then return nil end
  local h = {}
  for kind, module in pairs(v) do
    local key = key_of(ctx, "handlers." .. kind)
    if not HANDLER_KINDS[kind] then
      raise(ctx, key, "is not a handler (sampling, elicitation or roots)")
    end
    if type(module) ~= "string" then raise(ctx, key, "must be a Lua module name") end
    h[kind] = module
  end
  return h
end

local function parse_restart(ctx, raw)
  local key = key_of(ctx, "restart")
  local v = object(ctx, raw.restart, key)
  if not v then return nil end
  local max = v.max
  if absent(max) or math.type(max) ~= "integer" or max < 0 then
    raise(ctx, key .. ".max", "must be a whole number of restarts")
  end
  local backoff
  if not absent(v.backoff) then
    if type(v.backoff) ~= "number" or v.backoff < 0 then
      raise(ctx, key .. ".backoff", "must be a number of milliseconds")
    end
    backoff = v.backoff / 1000          -- milliseconds, as every duration here
  end
  return { max = max, backoff = backoff }
end

local function parse_roots(ctx, raw)
  local v, key = raw.roots, key_of(ctx, "roots")
  if absent(v) then return nil end
  if not is_array(v) then raise(ctx, key, "must be an array of paths or { uri, name }") end
  local roots = {}
  for i, r in ipairs(v) do
    local rkey = ("%s[%d]"):format(key, i - 1)
    if type(r) == "string" then
      local path = resolve(r, ctx.dir, ctx.getenv("HOME"))
      roots[i] = { uri = core.file_uri(path), name = basename(path) }
    elseif is_object(r) then
      if type(r.uri) ~= "string" or not r.uri:match("^file://") then
        raise(ctx, rkey .. ".uri", "must be a file:// URI")
      end
      if not absent(r.name) and type(r.name) ~= "string" then
        raise(ctx, rkey .. ".name", "must be a string")
      end
      roots[i] = { uri = r.uri, name = not absent(r.name) and r.name or nil }
    else
      raise(ctx, rkey, "must be a path or { uri, name }")
    end
  end
  return roots
end

local function parse_protocol(ctx, raw)
  local v = opt_string(ctx, raw, "protocol")
  if v and v ~= "auto" and not v:match("^%d%d%d%d%-%d%d%-%d%d$") then
    raise(ctx, key_of(ctx, "protocol"), 'must be "auto" or a protocol version (YYYY-MM-DD)')
  end
  return v
end

-- enabled: false, or disabled: true, turns a server off.
local function parse_enabled(ctx, raw)
  local enabled = opt_boolean(ctx, raw, "enabled")
  local disabled = opt_boolean(ctx, raw, "disabled")
  return enabled ~= false and disabled ~= true
end

-- command (a string) and args (an array), joined.
local function command_and_args(ctx, raw)
  local cmd = opt_string(ctx, raw, "command")
  if cmd == "" then raise(ctx, key_of(ctx, "command"), "must not be empty") end
  local args = string_array(ctx, raw.args, key_of(ctx, "args"))
  if not cmd then
    if args then raise(ctx, key_of(ctx, "args"), "is given without a command") end
    return nil
  end
  local list = { cmd }
  for _, a in ipairs(args or {}) do list[#list + 1] = a end
  return list
end

local function neither(ctx)
  raise(ctx, ctx.prefix, "has neither a command nor a url")
end

local function both(ctx)
  raise(ctx, ctx.prefix, "has both a command and a url: give one")
end

local function local_cwd(ctx, raw, base)
  local cwd = opt_string(ctx, raw, "cwd")
  return cwd and resolve(cwd, base, ctx.getenv("HOME"))
end

local normalize = {}

-- OpenCode, both forms; luamcp's own adds its keys.
local OPENCODE_TYPES = { ["local"] = true, remote = true }

local function opencode_like(ctx, raw, own)
  raw = subst_tree(ctx, raw, ctx.prefix, opencode_subst)
  local spec = { enabled = parse_enabled(ctx, raw) }
  local kind = opt_string(ctx, raw, "type")
  if kind and not OPENCODE_TYPES[kind] then
    raise(ctx, key_of(ctx, "type"), 'must be "local" or "remote"')
  end
  if not kind then
    if not absent(raw.command) and not absent(raw.url) then both(ctx) end
    kind = not absent(raw.command) and "local" or not absent(raw.url) and "remote"
    if not kind then neither(ctx) end
  end
  if kind == "local" then
    if absent(raw.command) then
      raise(ctx, key_of(ctx, "command"), "is required for a local server")
    end
    spec.command = string_array(ctx, raw.command, key_of(ctx, "command"))
    if #spec.command == 0 then raise(ctx, key_of(ctx, "command"), "must not be empty") end
    spec.env = string_map(ctx, raw.environment, key_of(ctx, "environment"), true)
    spec.cwd = local_cwd(ctx, raw, ctx.dir)
  else
    if absent(raw.url) then
      raise(ctx, key_of(ctx, "url"), "is required for a remote server")
    end
    spec.url = http_url(ctx, raw.url, key_of(ctx, "url"))
    spec.headers = string_map(ctx, raw.headers, key_of(ctx, "headers"))
    spec.transport = "auto"
    spec.oauth = parse_oauth(ctx, raw)
  end
  spec.timeout = parse_timeout(ctx, raw)
  spec.tools = parse_tools(ctx, raw)
  if own then
    spec.handlers = parse_handlers(ctx, raw)
    spec.restart = parse_restart(ctx, raw)
    spec.roots = parse_roots(ctx, raw)
    spec.protocol = parse_protocol(ctx, raw)
  end
  return spec
end

function normalize.opencode(ctx, raw) return opencode_like(ctx, raw, false) end
function normalize.luamcp(ctx, raw) return opencode_like(ctx, raw, true) end

-- Claude Desktop and Claude Code.
local CLAUDE_TRANSPORTS = {
  stdio = false, http = "streamable-http", ["streamable-http"] = "streamable-http",
  sse = "sse",
}

-- Claude's and VS Code's shape: `type` stdio (command, args, env, cwd) or
-- http/sse (url, headers); without a type, whichever of command and url
-- is there. stdio_env(env) may add to the env (VS Code's envFile); cwd is
-- resolved against cwd_base.
local function command_or_url(ctx, raw, spec, transports, cwd_base, stdio_env)
  local kind = opt_string(ctx, raw, "type")
  if kind and transports[kind] == nil then
    raise(ctx, key_of(ctx, "type"), 'must be "stdio", "http" or "sse"')
  end
  local command = command_and_args(ctx, raw)
  local has_url = not absent(raw.url)
  if command and has_url and not kind then both(ctx) end
  if kind == "stdio" or (not kind and command) then
    if not command then neither(ctx) end
    spec.command = command
    local env = string_map(ctx, raw.env, key_of(ctx, "env"), true)
    spec.env = stdio_env and stdio_env(env) or env
    spec.cwd = local_cwd(ctx, raw, cwd_base)
  else
    if not has_url then neither(ctx) end
    spec.url = http_url(ctx, raw.url, key_of(ctx, "url"))
    spec.headers = string_map(ctx, raw.headers, key_of(ctx, "headers"))
    spec.transport = kind and transports[kind] or "auto"
  end
  return spec
end

function normalize.claude(ctx, raw)
  local spec = { enabled = parse_enabled(ctx, raw) }
  -- Claude Code expands variables in these keys only.
  raw = setmetatable({}, { __index = raw })
  for _, k in ipairs{ "command", "args", "env", "url", "headers" } do
    raw[k] = subst_tree(ctx, raw[k], key_of(ctx, k), claude_subst)
  end
  return command_or_url(ctx, raw, spec, CLAUDE_TRANSPORTS, ctx.dir)
end

-- VS Code: KEY=VALUE lines of an envFile.
local function read_env_file(ctx, path, key)
  local text, why = slurp(path)
  if not text then
    raise(ctx, key, ("names a file that cannot be read (%s)"):format(why), "ENOENT")
  end
  local env = {}
  for line in text:gmatch("[^\r\n]+") do
    local name, value = line:match("^%s*export%s+([%w_.%-]+)%s*=%s*(.-)%s*$")
    if not name then name, value = line:match("^%s*([%w_.%-]+)%s*=%s*(.-)%s*$") end
    if name then
      local q = value:sub(1, 1)
      if (q == '"' or q == "'") and value:sub(-1) == q and #value >= 2 then
        value = value:sub(2, -2)
        if q == '"' then value = value:gsub("\\n", "\n"):gsub('\\"', '"') end
      else
        value = value:gsub("%s+#.*$", "")
      end
      env[name] = value
    end
  end
  return env
end

local VSCODE_TRANSPORTS = { stdio = false, http = "streamable-http", sse = "sse" }

function normalize.vscode(ctx, raw)
  local spec = { enabled = parse_enabled(ctx, raw) }
  ctx.disabled = not spec.enabled
  raw = subst_tree(ctx, raw, ctx.prefix, vscode_subst)
  local env_file = opt_string(ctx, raw, "envFile")
  return command_or_url(ctx, raw, spec, VSCODE_TRANSPORTS, ctx.workspace, function(env)
    if not env_file then return env end
    local from_file = read_env_file(ctx, resolve(env_file, ctx.workspace,
      ctx.getenv("HOME")), key_of(ctx, "envFile"))
    for k, v in pairs(env or {}) do from_file[k] = v end   -- env wins
    return from_file
  end)
end

return normalize
