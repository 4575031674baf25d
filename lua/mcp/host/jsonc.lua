--- mcp.host.jsonc: JSON with comments and trailing commas, as OpenCode's
--- and VS Code's config files are written. cJSON's minifier removes the
--- comments (and all whitespace outside strings); what remains is the
--- trailing commas, dropped here, and the order of an object's keys,
--- which decoded Lua tables forget and a config file's servers keep.
local core = require "mcp.core"

local M = {}

local BOM = "\239\187\191"

-- Past the string that begins at s[i] (a '"').
local function skip_string(s, i)
  local k = i + 1
  while true do
    local q = s:find('[\\"]', k)
    if not q then return #s + 1 end
    if s:sub(q, q) == '"' then return q + 1 end
    k = q + 2
  end
end

-- Minified text without a comma just before '}' or ']'.
local function drop_trailing_commas(s)
  local out, i = {}, 1
  while true do
    local j = s:find('[",]', i)
    if not j then
      out[#out + 1] = s:sub(i)
      break
    end
    if s:sub(j, j) == '"' then
      local k = skip_string(s, j)
      out[#out + 1] = s:sub(i, k - 1)
      i = k
    else
      local after = s:sub(j + 1, j + 1)
      out[#out + 1] = s:sub(i, (after == "}" or after == "]") and j - 1 or j)
      i = j + 1
    end
  end
  return table.concat(out)
end

-- Where in source the n-th byte of its minified text came from, as a
-- line and a column: the end of the shortest prefix of source that
-- minifies to n bytes (a longer prefix never minifies to fewer). Trailing
-- commas dropped before it may put the column a little early.
local function line_column(source, n)
  local lo, hi = 1, #source
  while lo < hi do
    local mid = (lo + hi) // 2
    if #core.json_minify(source:sub(1, mid)) >= n then hi = mid else lo = mid + 1 end
  end
  local before = source:sub(1, lo)
  local line = select(2, before:gsub("\n", "")) + 1
  return line, lo - (before:match(".*\n()") or 1) + 1
end

--- syntax: value, text = jsonc.decode(source)
--- value: the decoded JSON (mcp.json's mapping); text: the plain JSON it
--- was read from, for jsonc.keys_at. nil and the decoder's message when
--- the text is not JSON once comments and trailing commas are gone.
function M.decode(source)
  if source:sub(1, 3) == BOM then source = source:sub(4) end
  local ok, minified = pcall(core.json_minify, source)
  if not ok then return nil, tostring(minified):gsub("^json_minify: ", "") end
  local text = drop_trailing_commas(minified)
  local value, err = core.json_decode(text)
  if value == nil then
    return nil, (tostring(err.message or err):gsub("at byte (%d+)", function(b)
      return ("at line %d, column %d"):format(line_column(source, tonumber(b) + 1))
    end))
  end
  return value, text
end

-- Past the value that begins at s[i] (text as minified: no whitespace).
local function skip_value(s, i)
  local c = s:sub(i, i)
  if c == '"' then return skip_string(s, i) end
  if c ~= "{" and c ~= "[" then return s:find("[,}%]]", i) or #s + 1 end
  local depth, k = 0, i
  while k <= #s do
    local q = s:find('["{}%[%]]', k)
    if not q then return #s + 1 end
    local d = s:sub(q, q)
    if d == '"' then
      k = skip_string(s, q)
    else
      depth = depth + ((d == "{" or d == "[") and 1 or -1)
      k = q + 1
      if depth == 0 then return k end
    end
  end
  return k
end

-- The keys of the object at s[i], each with where its value starts.
local function object_entries(s, i)
  local entries = {}
  if s:sub(i, i) ~= "{" then return entries end
  i = i + 1
  while s:sub(i, i) == '"' do
    local after = skip_string(s, i)
    local key = core.json_decode(s:sub(i, after - 1))
    local value_at = after + 1                       -- past ':'
    entries[#entries + 1] = { key = key, at = value_at }
    i = skip_value(s, value_at)
    if s:sub(i, i) ~= "," then break end
    i = i + 1
  end
  return entries
end

--- syntax: keys = jsonc.keys_at(text, path)
--- The keys of the object found by following path (a list of keys) from
--- the top of text (as jsonc.decode returned it), in the text's order.
--- A key given twice counts where the decoder took it: its last place.
function M.keys_at(text, path)
  local at = 1
  for _, name in ipairs(path) do
    local found
    for _, e in ipairs(object_entries(text, at)) do
      if e.key == name then found = e.at end
    end
    if not found then return {} end
    at = found
  end
  local keys = {}
  for _, e in ipairs(object_entries(text, at)) do keys[#keys + 1] = e.key end
  return keys
end

return M
