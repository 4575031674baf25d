--- mcp.param_headers: the x-mcp-header annotations of a tool's inputSchema
--- (2026-07-28, "Custom Headers from Tool Parameters"). A property marked
--- { "x-mcp-header": "Region" } has its value sent in an Mcp-Param-Region
--- header of every call over HTTP, so that gateways can route on it.
---
--- A tool whose annotations break the revision's rules must not be
--- offered at all (the server could not be asked consistently): check()
--- says why. The headers themselves are written by the core's transport
--- (src/core/routing.c) from the declarations made here.
local M = {}

-- RFC 9110 token characters: what a header name may be made of.
local TCHAR = "^[%w!#%$%%&'%*%+%-%.%^_`|~]+$"
local PRIMITIVE = { string = true, integer = true, boolean = true }
local MAX_PARAMS = 64           -- as the core's MCP_ROUTING_MAX_PARAMS
local MAX_DEPTH = 64            -- schemas nest no deeper for us to look

-- Keywords whose value is a map of subschemas, and those whose value is
-- data, never a schema (an annotation-shaped object there is just data).
local SCHEMA_MAPS = { properties = true, patternProperties = true, ["$defs"] = true,
                      definitions = true, dependentSchemas = true }
local DATA = { enum = true, const = true, default = true, examples = true,
               ["x-mcp-header"] = true }

local function describe(path)
  return #path == 0 and "the schema's root" or table.concat(path, ".")
end

-- Walks schema, collecting the annotations of properties reachable from
-- the root through properties alone into found; returns an error message
-- for the first annotation that breaks a rule.
local function walk(schema, path, reachable, found, depth)
  if depth > MAX_DEPTH then return "the inputSchema nests too deeply to be checked" end
  local header = schema["x-mcp-header"]
  if header ~= nil then
    local where = describe(path)
    if not reachable or #path == 0 then
      return ("x-mcp-header on %s, which is not reached through properties alone")
        :format(where)
    end
    if type(header) ~= "string" or header == "" then
      return ("x-mcp-header of %s is empty or not a string"):format(where)
    end
    if not header:match(TCHAR) then
      return ("x-mcp-header %q of %s is not a header name (RFC 9110 token)")
        :format(header, where)
    end
    if not PRIMITIVE[schema.type] then
      return ("x-mcp-header %q sits on %s of type %s: only string, integer and boolean may")
        :format(header, where, tostring(schema.type))
    end
    local key = header:lower()
    if found.names[key] then
      return ("x-mcp-header %q is declared twice (%s and %s)")
        :format(header, found.names[key], where)
    end
    found.names[key] = where
    local entry = { header, table.unpack(path) }
    found[#found + 1] = entry
  end
  for k, v in pairs(schema) do
    if type(v) == "table" and not DATA[k] then
      if SCHEMA_MAPS[k] then
        for name, sub in pairs(v) do
          if type(sub) == "table" then
            -- The path of a value is property names alone; where another
            -- map leads, its keyword names the place in messages.
            local mark = #path
            if k ~= "properties" then path[#path + 1] = k end
            path[#path + 1] = tostring(name)
            local err = walk(sub, path, reachable and k == "properties", found, depth + 1)
            for i = #path, mark + 1, -1 do path[i] = nil end
            if err then return err end
          end
        end
      else
        -- items, anyOf, allOf, not, if/then/else, ...: one schema or an
        -- array of them; nothing below is reachable through properties.
        local list = v[1] ~= nil and v or { v }
        for _, sub in ipairs(list) do
          if type(sub) == "table" then
            path[#path + 1] = k
            local err = walk(sub, path, false, found, depth + 1)
            path[#path] = nil
            if err then return err end
          end
        end
      end
    end
  end
  return nil
end

--- syntax: decl, reason = param_headers.check(tool)
--- The tool's x-mcp-header declarations as the core takes them, a list of
--- { header, key, key, ... } (the path of property names from the
--- arguments to the value), or an empty list when it has none; nil and
--- the reason when an annotation breaks the revision's rules.
function M.check(tool)
  local found = { names = {} }
  if type(tool.inputSchema) ~= "table" then return {} end
  local err = walk(tool.inputSchema, {}, true, found, 0)
  if err then return nil, err end
  found.names = nil
  if #found > MAX_PARAMS then
    return nil, ("%d x-mcp-header parameters, more than %d"):format(#found, MAX_PARAMS)
  end
  -- The same order every time (pairs has none): the headers' order.
  table.sort(found, function(a, b) return a[1]:lower() < b[1]:lower() end)
  return found
end

return M
