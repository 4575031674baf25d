--- mcp.host.config: reads the MCP config files people already have
--- (OpenCode, Claude Desktop and Claude Code, VS Code, luamcp's own) as
--- they are, and turns each server into the one normalized spec mcp.host
--- consumes. It reads the config file, envFile and {file:} files, and asks
--- the terminal for VS Code inputs; it starts and connects nothing.
local core = require "mcp.core"
local errors = require "mcp.errors"
local jsonc = require "mcp.host.jsonc"

local M = {}

local NULL = core.null
local ARRAY_MT = getmetatable(core.json_decode("[]"))   -- decoded arrays carry it

---------------------------------------------------------------------------
-- Errors. A check that fails raises a Failure; load() and
-- normalize_server() catch it and return nil, err. Messages name the
-- file, the server and the key, never a value (values may be secrets).

local Failure = {}

local function raise(ctx, key, msg, code)
  local parts = { ctx.label or "config" }
  if ctx.server then parts[#parts + 1] = ("server %q"):format(ctx.server) end
  parts[#parts + 1] = key and (key .. " " .. msg) or msg
  local err = errors.new(code or "EINVAL", table.concat(parts, ": "),
    { file = ctx.file, server = ctx.server, key = key })
  error(setmetatable({ err = err }, Failure), 0)
end

-- Runs fn(...) and turns a Failure into nil, err; other errors are bugs
-- and go on up.
local function catching(fn, ...)
  local ok, res = pcall(fn, ...)
  if ok then return res end
  if getmetatable(res) == Failure then return nil, res.err end
  error(res, 0)
end

---------------------------------------------------------------------------
-- Paths and files.

local function getenv_of(env)
  if type(env) == "table" then return function(k) return env[k] end end
  if type(env) == "function" then return env end
  return os.getenv
end

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

local function basename(path)
  return path:match("([^/]+)/*$") or path
end

-- A path made absolute against base, with ~ expanded and ./ steps gone.
local function resolve(path, base, home)
  if path == "~" or path:sub(1, 2) == "~/" then
    path = (home or "") .. path:sub(2)
  elseif path:sub(1, 1) ~= "/" then
    path = base .. "/" .. path
  end
  path = path:gsub("/%./", "/"):gsub("/%./", "/"):gsub("/%.$", ""):gsub("//+", "/")
  return path
end

-- The contents of a file, or nil and the reason.
local function slurp(path)
  local f, why = io.open(path, "rb")
  if not f then   -- io.open's reason begins with the path: said already
    if why:sub(1, #path + 2) == path .. ": " then why = why:sub(#path + 3) end
    return nil, why
  end
  local text, rerr = f:read("a")
  f:close()
  if not text then return nil, rerr end
  return text
end

-- Whether path is a file that can be read (a directory is not).
local function readable(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local data, err = f:read(0)
  f:close()
  return data ~= nil or err == nil
end

---------------------------------------------------------------------------
-- JSONC (mcp.host.jsonc).

local function decode_jsonc(ctx, text)
  local value, err = jsonc.decode(text)
  if value == nil then raise(ctx, nil, "bad JSON: " .. tostring(err)) end
  return value, err
end

---------------------------------------------------------------------------
-- Types.

local function absent(v) return v == nil or v == NULL end

local function is_array(v)
  if type(v) ~= "table" then return false end
  local mt = getmetatable(v)
  if mt ~= nil then return mt == ARRAY_MT end
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  return n == #v
end

local function is_object(v)
  if type(v) ~= "table" then return false end
  if getmetatable(v) ~= nil then return not is_array(v) end
  for k in pairs(v) do
    if type(k) ~= "string" then return false end
  end
  return true
end

local function key_of(ctx, k) return ctx.prefix .. "." .. k end

local function opt_string(ctx, raw, k)
  local v = raw[k]
  if absent(v) then return nil end
  if type(v) ~= "string" then raise(ctx, key_of(ctx, k), "must be a string") end
  return v
end

local function opt_boolean(ctx, raw, k)
  local v = raw[k]
  if absent(v) then return nil end
  if type(v) ~= "boolean" then raise(ctx, key_of(ctx, k), "must be true or false") end
  return v
end

local function string_array(ctx, v, key)
  if absent(v) then return nil end
  local ok = is_array(v)
  if ok then
    for _, s in ipairs(v) do
      if type(s) ~= "string" then ok = false end
    end
  end
  if not ok then raise(ctx, key, "must be an array of strings") end
  local copy = {}
  for i, s in ipairs(v) do copy[i] = s end
  return copy
end

-- An object of strings (numbers are taken as their text: env values).
local function string_map(ctx, v, key, numbers_ok)
  if absent(v) then return nil end
  if not is_object(v) then raise(ctx, key, "must be an object of strings") end
  local copy = {}
  for k, s in pairs(v) do
    if numbers_ok and type(s) == "number" then s = tostring(s) end
    if type(s) ~= "string" then
      raise(ctx, key .. "." .. k, "must be a string")
    end
    copy[k] = s
  end
  return copy
end

local function object(ctx, v, key)
  if absent(v) then return nil end
  if not is_object(v) then raise(ctx, key, "must be an object") end
  return v
end

local function positive_ms(ctx, v, key)
  if absent(v) then return nil end
  if type(v) ~= "number" or v <= 0 or v ~= v then
    raise(ctx, key, "must be a positive number of milliseconds")
  end
  return v / 1000
end

local function http_url(ctx, v, key)
  if type(v) ~= "string" then raise(ctx, key, "must be a string") end
  if not v:match("^[hH][tT][tT][pP][sS]?://.") then
    raise(ctx, key, "must be an http:// or https:// URL")
  end
  return v
end

---------------------------------------------------------------------------
-- Substitution. Each format has its own syntax; each replaces inside one
-- string, and subst_tree applies it to every string of a value.

-- OpenCode: {env:VAR} (empty when unset), {file:path} (trimmed contents,
-- relative to the config file's directory).
local function opencode_subst(ctx, s, key)
  return (s:gsub("{(%a+):([^}]*)}", function(kind, arg)
    if kind == "env" then return ctx.getenv(arg) or "" end
    if kind == "file" then
      local path = resolve(arg, ctx.dir, ctx.getenv("HOME"))
      local text, why = slurp(path)
      if not text then
        raise(ctx, key, ("names {file:%s}, which cannot be read (%s)"):format(
          arg, why), "ENOENT")
      end
      return (text:gsub("^%s+", ""):gsub("%s+$", ""))
    end
  end))
end

-- Claude Code: ${VAR} and ${VAR:-default}; a variable that is unset and
-- has no default makes the config unreadable, as in Claude Code.
local function claude_subst(ctx, s, key)
  return (s:gsub("%${([^}]*)}", function(inner)
    local name, default = inner:match("^([%a_][%w_]*):%-(.*)$")
    if not name then name = inner:match("^([%a_][%w_]*)$") end
    if not name then return nil end
    local value = ctx.getenv(name)
    if value ~= nil then return value end
    if default ~= nil then return default end
    raise(ctx, key, ("uses ${%s}, which is not set (give a default: ${%s:-...})")
      :format(name, name))
  end))
end

-- What the person answered to the VS Code inputs, once per process.
local answered = {}

local function run_stty(args)
  local p = io.popen("stty " .. args .. " < /dev/tty 2>/dev/null")
  if not p then return nil end
  local out = p:read("a")
  p:close()
  return out
end

-- Asks at the terminal (/dev/tty): the input's description, its options
-- for a pickString, no echo for a password.
local function ask_terminal(input)
  local tty = io.open("/dev/tty", "r+")
  if not tty then return nil, "no terminal to ask on" end
  local label = input.description or input.id
  if input.options then label = label .. " (" .. table.concat(input.options, ", ") .. ")" end
  if input.default then label = label .. " [" .. input.default .. "]" end
  tty:write(label, ": ")
  tty:flush()
  local saved
  if input.password then
    saved = run_stty("-g")
    saved = saved and saved:match("^([%w:]+)%s*$")
    if saved then run_stty("-echo") end
  end
  local ok, line = pcall(tty.read, tty, "l")
  if saved then
    run_stty(saved)
    tty:write("\n")
  end
  tty:close()
  if not ok or line == nil then return nil, "no answer" end
  return line
end

local function input_value(ctx, id, key)
  local given = ctx.inputs and ctx.inputs[id]
  if given ~= nil then return tostring(given) end
  if ctx.asked[id] ~= nil then return ctx.asked[id] end
  local def = ctx.input_defs[id]
  if not def then
    raise(ctx, key, ("uses ${input:%s}, which no entry of inputs declares"):format(id))
  end
  if def.type == "command" then
    raise(ctx, key, ("uses ${input:%s}, a VS Code command input, which luamcp cannot run")
      :format(id))
  end
  local value, why
  if ctx.ask then
    value = ctx.ask(def)
  elseif answered[id] ~= nil then
    value = answered[id]
  else
    value, why = ask_terminal(def)
    if value == nil then
      raise(ctx, key, ("needs ${input:%s}: %s"):format(id, why))
    end
  end
  if (value == nil or value == "") and def.default ~= nil then value = def.default end
  if value == nil then raise(ctx, key, ("needs ${input:%s}: no answer"):format(id)) end
  value = tostring(value)
  if def.options and value:match("^%d+$") and def.options[tonumber(value)] then
    value = def.options[tonumber(value)]
  end
  ctx.asked[id] = value
  if not ctx.ask then answered[id] = value end
  return value
end

-- VS Code: ${env:NAME}, ${workspaceFolder}, ${workspaceFolderBasename},
-- ${userHome}, ${pathSeparator}, ${input:id}; others are left as they are.
-- Inputs of a disabled server are not asked.
local function vscode_subst(ctx, s, key)
  return (s:gsub("%${([^}]*)}", function(inner)
    if inner == "workspaceFolder" then return ctx.workspace end
    if inner == "workspaceFolderBasename" then return basename(ctx.workspace) end
    if inner == "userHome" then return ctx.getenv("HOME") or "" end
    if inner == "pathSeparator" or inner == "/" then return "/" end
    local name = inner:match("^env:(.+)$")
    if name then return ctx.getenv(name) or "" end
    local id = inner:match("^input:(.+)$")
    if id and not ctx.disabled then return input_value(ctx, id, key) end
    return nil
  end))
end

local function subst_tree(ctx, v, key, fn)
  if type(v) == "string" then return fn(ctx, v, key) end
  if type(v) ~= "table" or v == NULL then return v end
  local copy = setmetatable({}, getmetatable(v))
  for k, x in pairs(v) do
    local sub = type(k) == "number" and ("%s[%d]"):format(key, k - 1) or key .. "." .. k
    copy[k] = subst_tree(ctx, x, sub, fn)
  end
  return copy
end

---------------------------------------------------------------------------
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
}

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

---------------------------------------------------------------------------
-- The formats.

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

function normalize.claude(ctx, raw)
  local spec = { enabled = parse_enabled(ctx, raw) }
  -- Claude Code expands variables in these keys only.
  raw = setmetatable({}, { __index = raw })
  for _, k in ipairs{ "command", "args", "env", "url", "headers" } do
    raw[k] = subst_tree(ctx, raw[k], key_of(ctx, k), claude_subst)
  end
  local kind = opt_string(ctx, raw, "type")
  if kind and CLAUDE_TRANSPORTS[kind] == nil then
    raise(ctx, key_of(ctx, "type"), 'must be "stdio", "http" or "sse"')
  end
  local command = command_and_args(ctx, raw)
  local has_url = not absent(raw.url)
  if command and has_url and not kind then both(ctx) end
  if kind == "stdio" or (not kind and command) then
    if not command then neither(ctx) end
    spec.command = command
    spec.env = string_map(ctx, raw.env, key_of(ctx, "env"), true)
    spec.cwd = local_cwd(ctx, raw, ctx.dir)
  else
    if not has_url then neither(ctx) end
    spec.url = http_url(ctx, raw.url, key_of(ctx, "url"))
    spec.headers = string_map(ctx, raw.headers, key_of(ctx, "headers"))
    spec.transport = kind and CLAUDE_TRANSPORTS[kind] or "auto"
  end
  return spec
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
  local kind = opt_string(ctx, raw, "type")
  if kind and VSCODE_TRANSPORTS[kind] == nil then
    raise(ctx, key_of(ctx, "type"), 'must be "stdio", "http" or "sse"')
  end
  local command = command_and_args(ctx, raw)
  local has_url = not absent(raw.url)
  if command and has_url and not kind then both(ctx) end
  if kind == "stdio" or (not kind and command) then
    if not command then neither(ctx) end
    spec.command = command
    local env = string_map(ctx, raw.env, key_of(ctx, "env"), true)
    local env_file = opt_string(ctx, raw, "envFile")
    if env_file then
      local from_file = read_env_file(ctx, resolve(env_file, ctx.workspace,
        ctx.getenv("HOME")), key_of(ctx, "envFile"))
      for k, v in pairs(env or {}) do from_file[k] = v end   -- env wins
      env = from_file
    end
    spec.env = env
    spec.cwd = local_cwd(ctx, raw, ctx.workspace)
  else
    if not has_url then neither(ctx) end
    spec.url = http_url(ctx, raw.url, key_of(ctx, "url"))
    spec.headers = string_map(ctx, raw.headers, key_of(ctx, "headers"))
    spec.transport = kind and VSCODE_TRANSPORTS[kind] or "auto"
  end
  return spec
end

---------------------------------------------------------------------------
-- Whole files.

-- Everything a server's normalization needs to know of its file.
local function new_context(opts, path)
  path = path or opts.path
  local getenv = getenv_of(opts.env)
  local cwd = opts.cwd or core.cwd()
  local abs = path and resolve(path, cwd, getenv("HOME"))
  local dir = abs and dirname(abs) or cwd
  local workspace = opts.workspace
  if not workspace then
    workspace = dir:match("^(.*)/%.vscode$") or cwd
    if workspace == "" then workspace = "/" end
  end
  return {
    label = path, file = path, path = abs,
    dir = dir, cwd = cwd, getenv = getenv, workspace = workspace,
    inputs = opts.inputs, ask = opts.ask, asked = {}, input_defs = {},
  }
end

local function normalize_one(ctx, name, raw, format)
  ctx.server, ctx.disabled = name, nil
  if not is_object(raw) then raise(ctx, ctx.prefix, "must be an object") end
  local spec = normalize[format](ctx, raw)
  spec.name = name
  return spec
end

-- What the file names, when its content does not say.
local FORMAT_BY_NAME = {
  ["luamcp.json"] = "luamcp", ["opencode.json"] = "opencode",
  ["opencode.jsonc"] = "opencode", [".mcp.json"] = "claude",
  ["claude_desktop_config.json"] = "claude", ["mcp.json"] = "vscode",
}

local function detect(ctx, data, path, forced)
  local name = path and basename(path)
  if forced then return forced end
  if not absent(data.mcpServers) then return "claude" end
  if not absent(data.mcp) then
    return name == "luamcp.json" and "luamcp" or "opencode"
  end
  if not absent(data.servers) then return "vscode" end
  if name and FORMAT_BY_NAME[name] then return FORMAT_BY_NAME[name] end
  raise(ctx, nil, "holds no MCP servers (no mcp, mcpServers or servers key)")
end

-- The servers object, the key path to it, and that path as a list.
local function servers_of(ctx, data, format)
  if format == "claude" then return data.mcpServers, "mcpServers", { "mcpServers" } end
  if format == "vscode" then return data.servers, "servers", { "servers" } end
  local mcp = data.mcp
  if is_object(mcp) and is_object(mcp.servers) and absent(mcp.servers.type)
      and absent(mcp.servers.command) and absent(mcp.servers.url) then
    return mcp.servers, "mcp.servers", { "mcp", "servers" }   -- the newer form
  end
  return mcp, "mcp", { "mcp" }
end

local function read_inputs(ctx, data)
  local inputs = data.inputs
  if absent(inputs) then return end
  if not is_array(inputs) then raise(ctx, "inputs", "must be an array") end
  for i, input in ipairs(inputs) do
    local key = ("inputs[%d]"):format(i - 1)
    if not is_object(input) then raise(ctx, key, "must be an object") end
    if type(input.id) ~= "string" then raise(ctx, key .. ".id", "must be a string") end
    local options
    if not absent(input.options) then
      options = {}
      if not is_array(input.options) then raise(ctx, key .. ".options", "must be an array") end
      for j, o in ipairs(input.options) do
        if is_object(o) then o = o.value end   -- { label, value } form
        if type(o) ~= "string" then
          raise(ctx, key .. ".options", "must be an array of strings or { label, value }")
        end
        options[j] = o
      end
    end
    ctx.input_defs[input.id] = {
      id = input.id, type = type(input.type) == "string" and input.type or "promptString",
      description = type(input.description) == "string" and input.description or nil,
      password = input.password == true,
      default = type(input.default) == "string" and input.default or nil,
      options = options,
    }
  end
end

local function load_config(source, opts)
  local path = type(source) == "string" and source or nil
  local ctx = new_context(opts, path)
  local data, text
  if path then
    local content, why = slurp(ctx.path)
    if not content then
      local missing = tostring(why):find("No such file", 1, true)
      raise(ctx, nil, "cannot be read: " .. tostring(why), missing and "ENOENT" or "EIO")
    end
    data, text = decode_jsonc(ctx, content)
  else
    data = source
  end
  if not is_object(data) then raise(ctx, nil, "must hold a JSON object") end
  local format = detect(ctx, data, ctx.file, opts.format)
  local servers, prefix, path_keys = servers_of(ctx, data, format)
  servers = servers ~= nil and servers ~= NULL and servers or {}
  if not is_object(servers) then raise(ctx, prefix, "must be an object") end
  if format == "vscode" then read_inputs(ctx, data) end
  -- File order as written; a table given directly has none: by name.
  local order, seen = {}, {}
  for _, name in ipairs(text and jsonc.keys_at(text, path_keys) or {}) do
    if servers[name] ~= nil and not seen[name] then
      order[#order + 1], seen[name] = name, true
    end
  end
  local rest = {}
  for name in pairs(servers) do
    if not seen[name] then rest[#rest + 1] = name end
  end
  table.sort(rest)
  for _, name in ipairs(rest) do order[#order + 1] = name end
  local cfg = { path = path and ctx.path, format = format, order = order, servers = {} }
  for _, name in ipairs(order) do
    ctx.prefix = prefix .. "." .. name
    cfg.servers[name] = normalize_one(ctx, name, servers[name], format)
  end
  return cfg
end

--- syntax: cfg, err = config.load(source, opts?)
--- source: a path, or a table as a file would hold it (decoded). opts:
--- path (names a table source in messages), format ("opencode" | "claude"
--- | "vscode" | "luamcp": instead of detecting it), workspace (VS Code's
--- ${workspaceFolder}; default the parent of the .vscode directory, else
--- the working directory), inputs = { id = value } (VS Code inputs
--- answered), ask = function(input) -> value (instead of the terminal),
--- env (a table or function(name) instead of os.getenv), cwd. Returns
--- { path, format, order = { names }, servers = { [name] = spec } }, or
--- nil and an mcp.error naming the file, the server and the key.
function M.load(source, opts)
  if type(source) ~= "string" and type(source) ~= "table" then
    error("bad argument #1 to 'load' (path or table expected)", 2)
  end
  if opts and opts.format and not normalize[opts.format] then
    error(("bad option 'format' to 'load' (%q is not a config format)")
      :format(tostring(opts.format)), 2)
  end
  return catching(load_config, source, opts or {})
end

--- syntax: spec, err = config.normalize_server(name, raw, format, opts?)
--- One server as a file of that format would give it (for servers given
--- outside any file). opts as config.load's, plus prefix (the key path
--- for messages, default "<servers key>.<name>").
function M.normalize_server(name, raw, format, opts)
  opts = opts or {}
  if not normalize[format] then
    error(("bad argument #3 to 'normalize_server' (%q is not a config format)")
      :format(tostring(format)), 2)
  end
  local ctx = new_context(opts)
  local roots = { claude = "mcpServers", vscode = "servers" }
  ctx.prefix = opts.prefix or ((roots[format] or "mcp") .. "." .. name)
  return catching(normalize_one, ctx, name, raw, format)
end

-- Where config files are looked for, in order: the project, then the home.
local PROJECT_FILES = {
  "luamcp.json", "opencode.json", "opencode.jsonc", ".opencode/opencode.json",
  ".opencode/opencode.jsonc", ".mcp.json", ".vscode/mcp.json",
}
local HOME_FILES = { "luamcp/luamcp.json", "opencode/opencode.json", "opencode/opencode.jsonc" }

--- syntax: path, err = config.find(opts?)
--- opts.path (--config) wins, then $LUAMCP_CONFIG, then the first file
--- that exists of ./luamcp.json, ./opencode.json(c),
--- ./.opencode/opencode.json(c), ./.mcp.json, ./.vscode/mcp.json (in
--- opts.cwd, default the working directory), ~/.config/luamcp/luamcp.json,
--- ~/.config/opencode/opencode.json(c) ($XDG_CONFIG_HOME when set).
--- opts.env: a table or function(name) instead of os.getenv. Returns the
--- path, or nil and an ENOENT mcp.error listing where it looked.
function M.find(opts)
  opts = opts or {}
  if opts.path then return opts.path end
  local getenv = getenv_of(opts.env)
  local from_env = getenv("LUAMCP_CONFIG")
  if from_env and from_env ~= "" then return from_env end
  local cwd = opts.cwd or core.cwd()
  local candidates = {}
  for _, f in ipairs(PROJECT_FILES) do candidates[#candidates + 1] = cwd .. "/" .. f end
  local home = getenv("HOME")
  local config_home = getenv("XDG_CONFIG_HOME")
  if not config_home or config_home == "" then
    config_home = home and home ~= "" and home .. "/.config" or nil
  end
  if config_home then
    for _, f in ipairs(HOME_FILES) do candidates[#candidates + 1] = config_home .. "/" .. f end
  end
  for _, p in ipairs(candidates) do
    if readable(p) then return p end
  end
  return nil, errors.new("ENOENT",
    "no config file (give --config FILE or set LUAMCP_CONFIG); looked for "
    .. table.concat(candidates, ", "), { looked = candidates })
end

return M
