--- mcp.host.config.substitute: the variables each format expands in its
--- strings (OpenCode's {env:} and {file:}, Claude Code's ${VAR:-default},
--- VS Code's ${env:}, ${workspaceFolder} and ${input:}, whose answers are
--- asked at the terminal once per process).
local check = require "mcp.host.config.check"
local paths = require "mcp.host.config.paths"

local M = {}

local raise, NULL = check.raise, check.NULL
local resolve, slurp, basename = paths.resolve, paths.slurp, paths.basename

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


M.opencode, M.claude, M.vscode, M.tree = opencode_subst, claude_subst, vscode_subst, subst_tree

return M
