--- mcp.cli.format: what the command line prints. Text for people (one
--- item a line, fields separated by tabs, or aligned columns) and, with
--- --json, JSON for programs; results of calls as their text.
local mcp = require "mcp"

local M = {}

--- syntax: s = format.one_line(s) -- the first line of s ("" for nil)
function M.one_line(s)
  return (tostring(s or ""):gsub("%s*\n.*", ""))
end

--- syntax: t = format.error(err) -- an error as JSON shows it
function M.error(err)
  if err == nil then return nil end
  if type(err) == "table" and err.code then
    return { code = err.code, message = err.message }
  end
  return { message = tostring(err) }
end

--- syntax: format.json(value) -- one line of JSON on stdout
function M.json(value)
  io.stdout:write(mcp.json.encode(value), "\n")
end

--- syntax: list = format.array(list) -- list marked as a JSON array
function M.array(list)
  return mcp.array(list)
end

--- syntax: format.lines(rows, n) -- each row's n fields (nil: empty)
--- joined by tabs
function M.lines(rows, n)
  for _, row in ipairs(rows) do
    local fields = {}
    for i = 1, n do fields[i] = M.one_line(row[i]) end
    io.stdout:write(table.concat(fields, "\t"), "\n")
  end
end

--- syntax: format.columns(header, rows) -- aligned columns, header first;
--- the last column is not padded.
function M.columns(header, rows)
  local all = { header }
  for _, r in ipairs(rows) do all[#all + 1] = r end
  local widths = {}
  for _, row in ipairs(all) do
    for i = 1, #header - 1 do
      widths[i] = math.max(widths[i] or 0, utf8.len(tostring(row[i] or "")) or 0)
    end
  end
  for _, row in ipairs(all) do
    local out = {}
    for i = 1, #header do
      local cell = M.one_line(row[i] or "")
      if i < #header then
        cell = cell .. (" "):rep(widths[i] - (utf8.len(cell) or #cell))
      end
      out[i] = cell
    end
    io.stdout:write((table.concat(out, "  "):gsub("%s+$", "")), "\n")
  end
end

--- syntax: format.result(result, as_json) -- a tool's result: each text
--- block as its text, other blocks as JSON, structuredContent alone as JSON
function M.result(result, as_json)
  if as_json then return M.json(result) end
  for _, item in ipairs(result.content or {}) do
    if item.type == "text" then
      io.stdout:write(item.text, "\n")
    else
      M.json(item)
    end
  end
  if result.structuredContent ~= nil and #(result.content or {}) == 0 then
    M.json(result.structuredContent)
  end
end

--- syntax: format.contents(result, as_json) -- a resources/read result:
--- text as it is, a blob as JSON
function M.contents(result, as_json)
  if as_json then return M.json(result) end
  for _, c in ipairs(result.contents or {}) do
    if type(c.text) == "string" then
      io.stdout:write(c.text, c.text:sub(-1) == "\n" and "" or "\n")
    else
      M.json(c)
    end
  end
end

--- syntax: text = format.content_text(content) -- a prompt message's content
function M.content_text(content)
  if type(content) == "string" then return content end
  if type(content) == "table" and content.type == "text" then return content.text end
  return mcp.json.encode(content)
end

return M
