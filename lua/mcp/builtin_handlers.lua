--- mcp.builtin_handlers: handlers a script can opt into: elicitation at
--- the terminal (form fields asked one by one; URLs shown for consent),
--- URL elicitation that prints the URL (and opens a browser only when the
--- user allowed it), and roots from the working directory. Exposed as
--- mcp.handlers.terminal_elicitation, .url_elicitation, .roots_from_cwd.
local core = require "mcp.core"
local task = require "mcp.task"

local M = {}

local function read_line_from_terminal(prompt, output)
  output(prompt)
  return task.await(function(done) return core.read_line(done) end)
end

local function stderr_output(text) io.stderr:write(text) io.stderr:flush() end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function host_of(url)
  return url:match("^%a[%w+.-]*://[^/?#@]*@([^/:?#]+)") or url:match("^%a[%w+.-]*://([^/:?#]+)")
end

-- Shows a URL for consent: the whole URL, its host, warnings; opens it in
-- the system browser only when opts.open allowed it. Returns the action.
local function show_url(params, ctx, output, opts)
  local host = host_of(params.url) or "?"
  output(("\n[%s] %s\n  open: %s\n  host: %s\n"):format(ctx.server or "server",
    params.message or "", params.url, host))
  if host:find("xn%-%-") then
    output("  warning: the host is punycode; it may imitate another name\n")
  end
  if not params.url:match("^https?://") then
    output("  warning: this is not an http(s) URL\n")
  end
  if opts.open and os.execute("command -v xdg-open >/dev/null 2>&1") then
    os.execute("xdg-open " .. shell_quote(params.url) .. " >/dev/null 2>&1 &")
  end
  return { action = "accept" }
end

--- syntax: handler = mcp.handlers.url_elicitation(opts?)
--- opts.open: also open the URL with xdg-open (the user's consent, given
--- in advance); opts.output(text) replaces writing to stderr.
function M.url_elicitation(opts)
  opts = opts or {}
  local output = opts.output or stderr_output
  return { url = true, form = false, handler = function(params, ctx)
    return show_url(params, ctx, output, opts)
  end }
end

-- ---- the terminal form ------------------------------------------------------

local function ordered_fields(schema)
  local names, seen = {}, {}
  for _, r in ipairs(schema.required or {}) do
    if schema.properties[r] and not seen[r] then names[#names + 1] = r; seen[r] = true end
  end
  local rest = {}
  for name in pairs(schema.properties) do
    if not seen[name] then rest[#rest + 1] = name end
  end
  table.sort(rest)
  for _, name in ipairs(rest) do names[#names + 1] = name end
  return names
end

-- The choices of an enum field, as { value, label } in order.
local function choices(p)
  local list = {}
  if p.type == "array" then
    local items = p.items or {}
    if items.enum then
      for _, v in ipairs(items.enum) do list[#list + 1] = { v, v } end
    end
    for _, o in ipairs(items.anyOf or {}) do list[#list + 1] = { o.const, o.title } end
  elseif p.enum then
    for i, v in ipairs(p.enum) do list[#list + 1] = { v, p.enumNames and p.enumNames[i] or v } end
  elseif p.oneOf then
    for _, o in ipairs(p.oneOf) do list[#list + 1] = { o.const, o.title } end
  end
  return #list > 0 and list or nil
end

local function pick(list, word)
  local n = tonumber(word)
  if n and list[n] then return list[n][1] end
  for _, c in ipairs(list) do
    if c[1] == word or c[2] == word then return c[1] end
  end
  return nil
end

-- Parses one answer; returns the value or nil, why.
local function parse(p, line, list)
  if list and p.type == "array" then
    local out = setmetatable({}, core.array_mt)
    for word in line:gmatch("[^,]+") do
      local v = pick(list, (word:gsub("^%s+", ""):gsub("%s+$", "")))
      if v == nil then return nil, ("%q is not one of the choices"):format(word) end
      out[#out + 1] = v
    end
    if p.minItems and #out < p.minItems then return nil, ("pick at least %d"):format(p.minItems) end
    if p.maxItems and #out > p.maxItems then return nil, ("pick at most %d"):format(p.maxItems) end
    return out
  end
  if list then
    local v = pick(list, line)
    if v == nil then return nil, "answer with a number or one of the choices" end
    return v
  end
  if p.type == "boolean" then
    local l = line:lower()
    if l == "y" or l == "yes" or l == "true" then return true end
    if l == "n" or l == "no" or l == "false" then return false end
    return nil, "answer yes or no"
  end
  if p.type == "integer" or p.type == "number" then
    local n = tonumber(line)
    if p.type == "integer" then n = n and math.tointeger(n) end
    if n == nil then return nil, ("expected %s"):format(p.type == "integer" and "an integer" or "a number") end
    if p.minimum and n < p.minimum then return nil, ("at least %s"):format(p.minimum) end
    if p.maximum and n > p.maximum then return nil, ("at most %s"):format(p.maximum) end
    return n
  end
  if p.minLength and utf8.len(line) < p.minLength then
    return nil, ("at least %d characters"):format(p.minLength)
  end
  if p.maxLength and (utf8.len(line) or #line) > p.maxLength then
    return nil, ("at most %d characters"):format(p.maxLength)
  end
  return line
end

local function describe_field(name, p, required, list)
  local lines = { ("\n%s%s"):format(p.title or name, required and " (required)" or "") }
  if p.description then lines[#lines + 1] = "  " .. p.description end
  if list then
    for i, c in ipairs(list) do lines[#lines + 1] = ("  %d) %s"):format(i, c[2]) end
    if p.type == "array" then lines[#lines + 1] = "  (several: separate with commas)" end
  end
  local hint = p.format or p.type
  local default = p.default
  if type(default) == "table" then default = table.concat(default, ", ") end
  if default ~= nil then hint = hint .. ", default " .. tostring(default) end
  return table.concat(lines, "\n") .. ("\n[%s] > "):format(hint)
end

--- syntax: handler = mcp.handlers.terminal_elicitation(opts?)
--- Asks for each field at the terminal, with its title and description,
--- checks types and bounds, offers enum choices by number, leaves empty
--- answers to the defaults. ":decline" or ":cancel" answer the whole
--- form; end of input cancels. URL requests are shown for consent (as
--- url_elicitation). When stdin is not a terminal it declines at once.
--- opts: input(prompt) -> line | nil (may wait), output(text), open.
function M.terminal_elicitation(opts)
  opts = opts or {}
  local output = opts.output or stderr_output
  local input = opts.input or function(prompt) return read_line_from_terminal(prompt, output) end
  local interactive = opts.input ~= nil or core.isatty(0)
  return { form = true, url = true, handler = function(params, ctx)
    if not interactive then return { action = "decline" } end
    if params.mode == "url" then return show_url(params, ctx, output, opts) end
    output(("\n[%s] %s\n(:decline or :cancel to answer the whole form)\n")
      :format(ctx.server or "server", params.message))
    local schema = params.requestedSchema
    local required = {}
    for _, r in ipairs(schema.required or {}) do required[r] = true end
    local content = {}
    for _, name in ipairs(ordered_fields(schema)) do
      local p = schema.properties[name]
      local list = choices(p)
      while true do
        local line = input(describe_field(name, p, required[name], list))
        if line == nil then return { action = "cancel" } end
        line = line:gsub("^%s+", ""):gsub("%s+$", "")
        if line == ":decline" then return { action = "decline" } end
        if line == ":cancel" then return { action = "cancel" } end
        if line == "" and (p.default ~= nil or not required[name]) then break end
        local value, why = parse(p, line, list)
        if value ~= nil then
          content[name] = value
          break
        end
        output(("  %s\n"):format(why or "not a valid answer"))
      end
    end
    return { action = "accept", content = content }
  end }
end

--- syntax: roots = mcp.handlers.roots_from_cwd()
--- A roots handler offering the working directory (as it is when asked).
function M.roots_from_cwd()
  return function()
    local dir = core.cwd()
    return { { uri = core.file_uri(dir), name = dir:match("([^/]+)/*$") or dir } }
  end
end

--- syntax: handler = mcp.handlers.sampling_from(llm, opts?)
--- Sampling answered by a model (mcp.llm.sampling; loaded on first use).
function M.sampling_from(llm, opts)
  return require("mcp.llm.sampling").sampling_from(llm, opts)
end

return M
