--- mcp.host.filter: which of a server's tools a host shows. A server's
--- config may give `tools = { include = { globs }, exclude = { globs } }`:
--- a tool is shown when it matches an include glob (or there are none)
--- and no exclude glob. A glob matches the tool's own name or its
--- `server_tool` name; `*` is any run of characters, `?` one character,
--- `[...]` a class, and everything else stands for itself.
local M = {}

local compiled = setmetatable({}, { __mode = "k" })

-- The Lua pattern of a glob, anchored.
local function pattern_of(glob)
  local out, i = { "^" }, 1
  while i <= #glob do
    local c = glob:sub(i, i)
    if c == "*" then
      out[#out + 1] = ".*"
    elseif c == "?" then
      out[#out + 1] = "."
    elseif c == "[" and glob:find("]", i + 2, true) then
      local close = glob:find("]", i + 2, true)
      local body = glob:sub(i + 1, close - 1)
      local negate = body:sub(1, 1) == "!"
      if negate then body = body:sub(2) end
      body = body:gsub("[%%%]%^]", "%%%0")
      out[#out + 1] = "[" .. (negate and "^" or "") .. body .. "]"
      i = close
    else
      out[#out + 1] = c:gsub("%W", "%%%0")
    end
    i = i + 1
  end
  out[#out + 1] = "$"
  return table.concat(out)
end

--- syntax: yes = filter.glob_match(glob, name)
function M.glob_match(glob, name)
  return name:find(pattern_of(glob)) ~= nil
end

local function any_match(globs, names)
  local patterns = compiled[globs]
  if not patterns then
    patterns = {}
    for i, g in ipairs(globs) do patterns[i] = pattern_of(g) end
    compiled[globs] = patterns
  end
  for _, p in ipairs(patterns) do
    for _, name in ipairs(names) do
      if name:find(p) then return true end
    end
  end
  return false
end

--- syntax: yes = filter.allows(rules, tool_name, full_name)
--- rules: { include = {...}, exclude = {...} } or nil (everything).
function M.allows(rules, tool_name, full_name)
  if rules == nil then return true end
  local names = { tool_name, full_name }
  if rules.include and #rules.include > 0 and not any_match(rules.include, names) then
    return false
  end
  return not (rules.exclude and any_match(rules.exclude, names))
end

return M
