--- mcp.host.config: reads the MCP config files people already have
--- (OpenCode, Claude Desktop and Claude Code, VS Code, luamcp's own) as
--- they are, and turns each server into the one normalized spec mcp.host
--- consumes. It reads the config file, envFile and {file:} files, and asks
--- the terminal for VS Code inputs; it starts and connects nothing.
local check = require "mcp.host.config.check"
local paths = require "mcp.host.config.paths"
local formats = require "mcp.host.config.formats"
local core = require "mcp.core"
local errors = require "mcp.errors"
local jsonc = require "mcp.host.jsonc"

local M = {}

local NULL = check.NULL
local raise, catching, absent = check.raise, check.catching, check.absent
local is_array, is_object = check.is_array, check.is_object
local getenv_of, dirname, basename = paths.getenv_of, paths.dirname, paths.basename
local resolve, slurp, readable = paths.resolve, paths.slurp, paths.readable
local normalize = formats

local function decode_jsonc(ctx, text)
  local value, err = jsonc.decode(text)
  if value == nil then raise(ctx, nil, "bad JSON: " .. tostring(err)) end
  return value, err
end

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
