--- mcp.host.naming: the names a host gives its servers' tools. LLM APIs
--- take tool names of [a-zA-Z0-9_-], at most 64 characters; a host shows
--- each tool as `server_tool` (as OpenCode does), both parts sanitized.
--- Two tools whose names end up the same are never shadowed: the first in
--- config order keeps the name, the others get a numbered one, and every
--- such collision is reported.
local M = {}

M.MAX = 64

--- syntax: s = naming.sanitize(s)
--- Every character outside [a-zA-Z0-9_-] becomes one "_": a UTF-8
--- sequence counts as one character, as in OpenCode (JavaScript's
--- strings), so that "naïve" is "na_ve" in both.
function M.sanitize(s)
  return (s:gsub("[\xC2-\xF4][\x80-\xBF]*", "_"):gsub("[^%w_-]", "_"))
end

--- syntax: name = naming.tool_name(server, tool)
function M.tool_name(server, tool)
  return (M.sanitize(server) .. "_" .. M.sanitize(tool)):sub(1, M.MAX)
end

-- base with "_n" at its end, cut so that the whole fits in MAX.
local function numbered(base, n)
  local suffix = "_" .. n
  return base:sub(1, M.MAX - #suffix) .. suffix
end

--- syntax: entries, collisions = naming.assign(list)
--- list: { { server = name, tool = tool table }, ... } in the order that
--- decides who keeps a contested name. Returns entries { name, server,
--- tool } in the same order, with unique names, and the collisions:
--- { { name = contested, tools = { { server, tool_name, name }, ... } } }.
function M.assign(list)
  local holder = {}            -- name -> the entry that has it
  local contested, order = {}, {}
  local entries = {}
  for i, item in ipairs(list) do
    local base = M.tool_name(item.server, item.tool.name)
    local entry = { name = base, server = item.server, tool = item.tool }
    if holder[base] then
      -- Reported with whoever holds the name (its base may differ: a
      -- tool called "x_2" can hold a numbered name).
      if not contested[base] then
        contested[base] = { holder[base] }
        order[#order + 1] = base
      end
      local n = 1
      repeat
        n = n + 1
        entry.name = numbered(base, n)
      until not holder[entry.name]
      local group = contested[base]
      group[#group + 1] = entry
    end
    holder[entry.name] = entry
    entries[i] = entry
  end
  local collisions = {}
  for i, base in ipairs(order) do
    local tools = {}
    for j, e in ipairs(contested[base]) do
      tools[j] = { server = e.server, tool_name = e.tool.name, name = e.name }
    end
    collisions[i] = { name = base, tools = tools }
  end
  return entries, collisions
end

return M
