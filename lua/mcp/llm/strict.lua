--- mcp.llm.strict: a tool's JSON Schema in the form OpenAI's strict mode
--- (Structured Outputs) accepts, or nil and why when it cannot be. No I/O.
---
--- Handled: every object gets additionalProperties false and lists all its
--- properties in required; a property that was optional becomes nullable
--- (its type gains "null", an enum gains null, anything else is wrapped in
--- anyOf with { type = "null" }); annotations strict mode does not take
--- (title, default, examples, $comment, $schema, deprecated, readOnly,
--- writeOnly) are dropped, and so is format unless it is one strict mode
--- knows. The root with no properties (a tool without arguments) gets an
--- empty properties object.
--- Refused (the tool then stays non-strict): a keyword strict mode does not
--- support (allOf, oneOf, not, if/then/else, patternProperties, minLength,
--- dependentRequired, ...), additionalProperties other than false, a
--- nested object with no properties (a free-form object), an array with
--- no items, a root that is not an object, nesting deeper than 10 levels.
local core = require "mcp.core"

local M = {}

M.MAX_DEPTH = 10

local KEPT = {
  type = true, properties = true, required = true, additionalProperties = true,
  items = true, enum = true, const = true, anyOf = true, description = true,
  ["$ref"] = true, ["$defs"] = true, definitions = true, pattern = true,
  format = true, minimum = true, maximum = true, exclusiveMinimum = true,
  exclusiveMaximum = true, multipleOf = true, minItems = true, maxItems = true,
}
local DROPPED = {
  title = true, default = true, examples = true, ["$comment"] = true,
  ["$schema"] = true, deprecated = true, readOnly = true, writeOnly = true,
}
local FORMATS = {
  ["date-time"] = true, time = true, date = true, duration = true,
  email = true, hostname = true, ipv4 = true, ipv6 = true, uuid = true,
}

local function array(t) return setmetatable(t or {}, core.array_mt) end

local function is_list(v)
  return type(v) == "table" and (getmetatable(v) == core.array_mt or (v[1] ~= nil))
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

local convert

-- A copy of schema that also accepts null (for an optional property).
local function nullable(schema)
  local t = schema.type
  if type(t) == "string" then
    if t ~= "null" then schema.type = array{ t, "null" } end
  elseif is_list(t) then
    local has = false
    for _, v in ipairs(t) do has = has or v == "null" end
    if not has then
      local copy = array{ table.unpack(t) }
      copy[#copy + 1] = "null"
      schema.type = copy
    end
  elseif schema.anyOf then
    schema.anyOf[#schema.anyOf + 1] = { type = "null" }
    return schema
  else
    return { anyOf = array{ schema, { type = "null" } } }
  end
  if schema.enum then
    local copy = array{ table.unpack(schema.enum) }
    copy[#copy + 1] = core.null
    schema.enum = copy
  end
  return schema
end

local function convert_object(schema, out, path, depth, root)
  local props = schema.properties
  if props == nil then
    if not root then return nil, path .. ": an object without properties cannot be strict" end
    props = {}
  end
  if type(props) ~= "table" then return nil, path .. ".properties is not an object" end
  local ap = schema.additionalProperties
  if ap ~= nil and ap ~= false then
    return nil, path .. ": additionalProperties must be false in strict mode"
  end
  local was_required = {}
  for _, name in ipairs(schema.required or {}) do was_required[name] = true end
  out.properties, out.required, out.additionalProperties = {}, array(), false
  for _, name in ipairs(sorted_keys(props)) do
    local sub, why = convert(props[name], path .. ".properties." .. name, depth + 1)
    if not sub then return nil, why end
    out.properties[name] = was_required[name] and sub or nullable(sub)
    out.required[#out.required + 1] = name
  end
  return out
end

function convert(schema, path, depth, root)
  if depth > M.MAX_DEPTH then return nil, path .. ": nested deeper than " .. M.MAX_DEPTH end
  if type(schema) ~= "table" then return nil, path .. ": not a schema object" end
  local out = {}
  for _, key in ipairs(sorted_keys(schema)) do
    local v = schema[key]
    if DROPPED[key] or (key == "format" and not FORMATS[v]) then   -- luacheck: ignore
    elseif not KEPT[key] then
      return nil, ("%s: keyword %s is not supported in strict mode"):format(path, key)
    elseif key == "anyOf" or key == "$defs" or key == "definitions" then
      local list = key == "anyOf" and array() or {}
      for k, sub in pairs(v) do
        local c, why = convert(sub, ("%s.%s.%s"):format(path, key, k), depth + 1)
        if not c then return nil, why end
        list[k] = c
      end
      out[key] = list
    elseif key == "items" then
      local c, why = convert(v, path .. ".items", depth + 1)
      if not c then return nil, why end
      out.items = c
    elseif key ~= "properties" and key ~= "required" and key ~= "additionalProperties" then
      out[key] = v
    end
  end
  local t = schema.type
  local is_object = t == "object" or schema.properties ~= nil
  if type(t) == "table" then
    for _, v in ipairs(t) do is_object = is_object or v == "object" end
  end
  if is_object then return convert_object(schema, out, path, depth, root) end
  if (t == "array") and schema.items == nil then
    return nil, path .. ": an array without items cannot be strict"
  end
  return out
end

--- syntax: schema, why = strict.convert(schema)
--- A new schema (the given one is not changed), or nil and the reason.
function M.convert(schema)
  if type(schema) ~= "table" or schema.type ~= "object" or schema.anyOf then
    return nil, "the root of a strict schema must be an object"
  end
  return convert(schema, "#", 1, true)
end

return M
