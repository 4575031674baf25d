--- mcp.frontmatter: the YAML front matter of a Markdown file (a SKILL.md),
--- split from its body and read into JSON-shaped Lua values, so that it
--- can be compared with what a server listed (mcp.skills). It reads the
--- YAML that front matter uses: block mappings and sequences, plain,
--- quoted and block (| >) scalars, one-line flow collections, comments.
--- Anything else (anchors, aliases, tags, complex keys, documents) is an
--- error rather than a guess: what cannot be read cannot be verified.
--- Scalars resolve as YAML 1.2's core schema does (null, booleans,
--- integers, floats, else strings). The input is a server's, so its size
--- and nesting are bounded.
local core = require "mcp.core"

local M = {}

local MAX_BYTES = 64 * 1024     -- front matter is a few lines of metadata
local MAX_DEPTH = 32
local array_mt = core.array_mt

-- s without trailing blanks. Not gsub("%s+$", ""): that tries every
-- position of a run of blanks to its end, quadratic in a server's line.
local function rtrim(s)
  local n = #s
  while n > 0 do
    local b = s:byte(n)
    if b ~= 32 and (b < 9 or b > 13) then break end
    n = n - 1
  end
  return s:sub(1, n)
end

local function fail(line, fmt, ...)
  error({ frontmatter = true,
          message = ("front matter line %d: %s"):format(line, fmt:format(...)) }, 0)
end

-- ---- scalars ---------------------------------------------------------------------

local KEYWORDS = {
  null = core.null, Null = core.null, NULL = core.null, ["~"] = core.null,
  ["true"] = true, True = true, TRUE = true,
  ["false"] = false, False = false, FALSE = false,
}

-- A plain scalar's value under the core schema.
local function resolve(s, line)
  if s == "" then return core.null end
  local k = KEYWORDS[s]
  if k ~= nil then return k end
  if s:match("^[-+]?%d+$") then
    return math.tointeger(tonumber(s)) or tonumber(s)
  end
  if s:match("^0o[0-7]+$") then return math.tointeger(tonumber(s:sub(3), 8)) end
  if s:match("^0x%x+$") then return math.tointeger(tonumber(s:sub(3), 16)) end
  if s:match("^[-+]?%.%d+$") or s:match("^[-+]?%d+%.%d*$")
      or s:match("^[-+]?%.?%d+[eE][-+]?%d+$") or s:match("^[-+]?%d+%.%d*[eE][-+]?%d+$") then
    return tonumber(s)
  end
  if s:match("^[-+]?%.[iI][nN][fF]$") or s:match("^%.[nN][aA][nN]$") then
    fail(line, "%s has no JSON value", s)
  end
  return s
end

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", n = "\n", t = "\t",
  r = "\r", b = "\b", f = "\f", ["0"] = "\0", a = "\a", v = "\v", e = "\27",
  [" "] = " " }

-- A quoted scalar starting at s[pos] (a quote): its value and the
-- position after the closing quote.
local function quoted(s, pos, line)
  local q = s:sub(pos, pos)
  local out, i = {}, pos + 1
  while true do
    local c = s:sub(i, i)
    if c == "" then fail(line, "a quoted string does not end on its line") end
    if c == q then
      if q == "'" and s:sub(i + 1, i + 1) == "'" then
        out[#out + 1] = "'"
        i = i + 2
      else
        return table.concat(out), i + 1
      end
    elseif c == "\\" and q == '"' then
      local e = s:sub(i + 1, i + 1)
      if e == "u" or e == "x" or e == "U" then
        local n = e == "x" and 2 or e == "u" and 4 or 8
        local hex = s:sub(i + 2, i + 1 + n)
        if not hex:match("^" .. ("%x"):rep(n) .. "$") then fail(line, "a bad \\%s escape", e) end
        local cp = tonumber(hex, 16)
        if cp > 0x10FFFF then fail(line, "a bad \\%s escape", e) end
        out[#out + 1] = utf8.char(cp)
        i = i + 2 + n
      elseif ESCAPES[e] then
        out[#out + 1] = ESCAPES[e]
        i = i + 2
      else
        fail(line, "an unknown escape \\%s", e)
      end
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
end

-- What may follow a value on its line: blanks and a comment.
local function only_comment(s, pos, line)
  local rest = s:sub(pos)
  if not (rest:match("^%s*$") or rest:match("^%s+#")) then
    fail(line, "unexpected text after a value: %q", rest:sub(1, 40))
  end
end

-- A plain scalar's text: up to a comment (" #"), trimmed.
local function plain_text(s)
  local cut = s:find("%s#")
  if cut then s = s:sub(1, cut - 1) end
  return rtrim(s)
end

local UNSUPPORTED = { ["&"] = "anchors", ["*"] = "aliases", ["!"] = "tags",
  ["%"] = "directives", ["@"] = "a reserved character", ["`"] = "a reserved character",
  ["?"] = "complex keys" }

local function check_supported(s, line)
  local c = s:sub(1, 1)
  if UNSUPPORTED[c] and (c ~= "?" or s:match("^%?%s") or s == "?") then
    fail(line, "YAML %s are not supported", UNSUPPORTED[c])
  end
end

-- ---- flow collections ([a, b], {k: v}) on one line --------------------------------

local flow_value

local function skip_blanks(s, i)
  return (s:find("[^ \t]", i)) or #s + 1
end

local function flow_plain(s, i, stop, line)
  local j = s:find(stop, i) or #s + 1
  local text = rtrim(s:sub(i, j - 1))
  check_supported(text, line)
  return resolve(text, line), j
end

local function flow_seq(s, i, line, depth)
  local list = setmetatable({}, array_mt)
  i = skip_blanks(s, i + 1)
  if s:sub(i, i) == "]" then return list, i + 1 end
  while true do
    local v
    v, i = flow_value(s, i, "[,%]]", line, depth + 1)
    list[#list + 1] = v
    i = skip_blanks(s, i)
    local c = s:sub(i, i)
    if c == "]" then return list, i + 1 end
    if c ~= "," then fail(line, "a flow sequence is not closed") end
    i = skip_blanks(s, i + 1)
    if s:sub(i, i) == "]" then return list, i + 1 end
  end
end

local function flow_map(s, i, line, depth)
  local map = {}
  i = skip_blanks(s, i + 1)
  if s:sub(i, i) == "}" then return map, i + 1 end
  while true do
    local key
    local c = s:sub(i, i)
    if c == '"' or c == "'" then
      key, i = quoted(s, i, line)
    else
      local j = s:find("[:,}]", i) or #s + 1
      key = rtrim(s:sub(i, j - 1))
      i = j
    end
    i = skip_blanks(s, i)
    if s:sub(i, i) ~= ":" then fail(line, "a flow mapping entry has no ':'") end
    if map[key] ~= nil then fail(line, "the key %q appears twice", key) end
    map[key], i = flow_value(s, skip_blanks(s, i + 1), "[,}]", line, depth + 1)
    i = skip_blanks(s, i)
    c = s:sub(i, i)
    if c == "}" then return map, i + 1 end
    if c ~= "," then fail(line, "a flow mapping is not closed") end
    i = skip_blanks(s, i + 1)
  end
end

function flow_value(s, i, stop, line, depth)
  if depth > MAX_DEPTH then fail(line, "nested deeper than %d", MAX_DEPTH) end
  local c = s:sub(i, i)
  if c == "[" then return flow_seq(s, i, line, depth) end
  if c == "{" then return flow_map(s, i, line, depth) end
  if c == '"' or c == "'" then return quoted(s, i, line) end
  return flow_plain(s, i, stop, line)
end

-- ---- block structure -------------------------------------------------------------

local Parser = {}
Parser.__index = Parser

-- The next line that is neither blank nor a comment, without taking it.
function Parser:peek()
  local lines = self.lines
  while self.i <= #lines do
    local l = lines[self.i]
    if l.text ~= "" and l.text:sub(1, 1) ~= "#" then return l end
    self.i = self.i + 1
  end
  return nil
end

local function is_item(text)
  return text == "-" or text:sub(1, 2) == "- "
end

-- "key: rest" or "key:" -> key, rest; nil when text is not a mapping entry.
local function split_key(text, line)
  local c = text:sub(1, 1)
  if c == '"' or c == "'" then
    local key, pos = quoted(text, 1, line)
    local rest = text:sub(pos)
    if rest:match("^%s*:$") then return key, "" end
    local after = rest:match("^%s*:%s+(.*)$")
    if after then return key, after end
    return nil
  end
  local pos = 1
  while true do
    local at = text:find(":", pos, true)
    if not at then return nil end
    local nxt = text:sub(at + 1, at + 1)
    if nxt == "" or nxt == " " or nxt == "\t" then
      local key = rtrim(text:sub(1, at - 1))
      if key:find("%s#") then return nil end
      return key, (text:sub(at + 1):gsub("^%s+", ""))
    end
    pos = at + 1
  end
end

-- A block scalar (| or >) whose header is rest, its lines more indented
-- than parent.
function Parser:block_scalar(rest, parent, line)
  local style, mods = rest:match("^([|>])([-+0-9]*)%s*$")
  if not style then
    style, mods = rest:match("^([|>])([-+0-9]*)%s+#")
    if not style then fail(line, "a bad block scalar header %q", rest:sub(1, 20)) end
  end
  if mods:match("%d") then fail(line, "explicit indentation of a block scalar is not supported") end
  local chomp = mods:match("[-+]") or ""
  local lines, indent = {}, nil
  while self.i <= #self.lines do
    local l = self.lines[self.i]
    if l.text == "" then
      lines[#lines + 1] = ""
    elseif l.indent <= parent then
      break
    else
      indent = indent or l.indent
      if l.indent < indent then fail(l.n, "a block scalar line is indented less than its first") end
      lines[#lines + 1] = (" "):rep(l.indent - indent) .. l.text
    end
    self.i = self.i + 1
  end
  local trailing = 0
  while #lines > 0 and lines[#lines] == "" do
    lines[#lines] = nil
    trailing = trailing + 1
  end
  local text
  if style == "|" then
    text = table.concat(lines, "\n")
  else
    -- Folded: a line break between two text lines is a space; blank
    -- lines are line breaks; more-indented lines keep theirs.
    local out = {}
    for k, l in ipairs(lines) do
      if k > 1 then
        local prev = lines[k - 1]
        if l == "" or l:match("^%s") or prev:match("^%s") then
          out[#out + 1] = "\n"
        elseif prev == "" then        -- the blank line gave the break
          out[#out + 1] = ""
        else
          out[#out + 1] = " "
        end
      end
      if l ~= "" or k == 1 then out[#out + 1] = l end
    end
    text = table.concat(out)
  end
  if #lines == 0 then return "" end
  if chomp == "-" then return text end
  if chomp == "+" then return text .. ("\n"):rep(trailing + 1) end
  return text .. "\n"
end

-- The value after "key:" (or "- "), rest being the rest of its line.
function Parser:value(rest, parent, line, depth)
  if depth > MAX_DEPTH then fail(line, "nested deeper than %d", MAX_DEPTH) end
  if rest == "" or rest:sub(1, 1) == "#" then
    local nxt = self:peek()
    if nxt and nxt.indent > parent then return self:node(nxt.indent, depth + 1) end
    if nxt and nxt.indent == parent and is_item(nxt.text) and self.in_map then
      return self:seq(parent, depth + 1)       -- "key:\n- a": YAML allows it
    end
    return core.null
  end
  check_supported(rest, line)
  local c = rest:sub(1, 1)
  if c == "|" or c == ">" then return self:block_scalar(rest, parent, line) end
  if c == '"' or c == "'" then
    local v, pos = quoted(rest, 1, line)
    only_comment(rest, pos, line)
    return v
  end
  if c == "[" or c == "{" then
    local v, pos = flow_value(rest, 1, "", line, depth)
    only_comment(rest, pos, line)
    return v
  end
  -- A plain scalar, perhaps continued on more-indented lines.
  local parts = { plain_text(rest) }
  local commented = rest:find("%s#") ~= nil     -- a comment ends the scalar
  while not commented do
    local nxt = self:peek()
    if not nxt or nxt.indent <= parent then break end
    if split_key(nxt.text, nxt.n) then fail(nxt.n, "unexpected indentation") end
    parts[#parts + 1] = plain_text(nxt.text)
    self.i = self.i + 1
  end
  if #parts > 1 then return table.concat(parts, " ") end
  return resolve(parts[1], line)
end

function Parser:map(indent, depth)
  local map = {}
  while true do
    local l = self:peek()
    if not l or l.indent < indent then break end
    if l.indent > indent then fail(l.n, "unexpected indentation") end
    if is_item(l.text) then break end
    check_supported(l.text, l.n)
    local key, rest = split_key(l.text, l.n)
    if not key then fail(l.n, "expected 'key: value'") end
    if map[key] ~= nil then fail(l.n, "the key %q appears twice", key) end
    self.i = self.i + 1
    local was = self.in_map
    self.in_map = true
    map[key] = self:value(rest, indent, l.n, depth)
    self.in_map = was
  end
  return map
end

function Parser:seq(indent, depth)
  local list = setmetatable({}, array_mt)
  while true do
    local l = self:peek()
    if not l or l.indent ~= indent or not is_item(l.text) then break end
    local rest = l.text:sub(2)
    local lead = #rest:match("^%s*")
    rest = rest:sub(lead + 1)
    local c = rest:sub(1, 1)
    if rest ~= "" and c ~= '"' and c ~= "'" and c ~= "[" and c ~= "{"
        and split_key(rest, l.n) then
      -- "- key: value": a mapping whose keys line up with this key.
      self.lines[self.i] = { n = l.n, indent = indent + 1 + lead, text = rest }
      list[#list + 1] = self:map(indent + 1 + lead, depth + 1)
    else
      self.i = self.i + 1
      local was = self.in_map
      self.in_map = false
      list[#list + 1] = self:value(rest, indent, l.n, depth)
      self.in_map = was
    end
  end
  return list
end

function Parser:node(indent, depth)
  if depth > MAX_DEPTH then fail(self.lines[self.i].n, "nested deeper than %d", MAX_DEPTH) end
  local l = self:peek()
  if is_item(l.text) then return self:seq(indent, depth) end
  return self:map(indent, depth)
end

--- syntax: value, err = frontmatter.parse(yaml)
--- The YAML text's value: a table for a mapping (the front matter of a
--- skill is one). nil and a message for YAML it does not read.
function M.parse(yaml)
  if type(yaml) ~= "string" then error("bad argument #1 to 'parse' (string expected)", 2) end
  if #yaml > MAX_BYTES then
    return nil, ("front matter larger than %d bytes"):format(MAX_BYTES)
  end
  local lines, n = {}, 0
  for raw in (yaml .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    raw = raw:gsub("\r$", "")
    local pad = raw:match("^ *")
    local text = rtrim(raw:sub(#pad + 1))
    if text:sub(1, 1) == "\t" then
      return nil, ("front matter line %d: a tab in indentation"):format(n)
    end
    if text == "---" or text == "..." then
      return nil, ("front matter line %d: more than one YAML document"):format(n)
    end
    lines[n] = { n = n, indent = #pad, text = text }
  end
  local p = setmetatable({ lines = lines, i = 1, in_map = false }, Parser)
  local ok, value = pcall(function()
    local first = p:peek()
    if not first then return {} end
    if is_item(first.text) then fail(first.n, "the front matter is a list, not a mapping") end
    local v = p:map(first.indent, 1)
    local left = p:peek()
    if left then fail(left.n, "unexpected text %q", left.text:sub(1, 40)) end
    return v
  end)
  if ok then return value end
  if type(value) == "table" and value.frontmatter then return nil, value.message end
  error(value, 0)
end

--- syntax: yaml, body = frontmatter.split(text)
--- The front matter between a first line "---" and the next line "---"
--- (or "..."), and the text after it; nil and a message when the text
--- does not open with front matter.
function M.split(text)
  local start = text:sub(1, 3) == "\239\187\191" and 4 or 1   -- a UTF-8 BOM
  local rest = text:match("^%-%-%-[ \t]*\r?\n()", start)
  if not rest then return nil, "the file does not open with '---' (no front matter)" end
  local pos = rest
  while pos <= #text + 1 do
    local line_end = text:find("\n", pos, true)
    local line = text:sub(pos, (line_end or #text + 1) - 1):gsub("\r$", "")
    if line:match("^%-%-%-[ \t]*$") or line:match("^%.%.%.[ \t]*$") then
      return text:sub(rest, pos - 1), text:sub((line_end or #text) + 1)
    end
    if not line_end then break end
    if line_end - rest > MAX_BYTES then break end
    pos = line_end + 1
  end
  return nil, "the front matter has no closing '---' line"
end

return M
