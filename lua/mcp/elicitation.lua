--- mcp.elicitation: the restricted schema of form-mode elicitation. It
--- checks that a requestedSchema stays inside what the specification
--- allows (a flat object of primitives), fills defaults into a handler's
--- answer, and validates that answer. It does not talk to anyone.
local core = require "mcp.core"

local M = {}

local FORMATS = { email = true, uri = true, date = true, ["date-time"] = true }
local COMMON = { type = true, title = true, description = true, default = true }

local function allowed(keys, extra)
  return function(k) return COMMON[k] or keys[k] or (extra and extra[k]) end
end

local STRING_KEYS = allowed{ minLength = true, maxLength = true, format = true,
                             enum = true, enumNames = true, oneOf = true }
local NUMBER_KEYS = allowed{ minimum = true, maximum = true }
local BOOLEAN_KEYS = allowed{}
local ARRAY_KEYS = allowed{ items = true, minItems = true, maxItems = true }

local function all_strings(list)
  if type(list) ~= "table" or #list == 0 then return false end
  for _, v in ipairs(list) do if type(v) ~= "string" then return false end end
  return true
end

local function titled_options(list)
  if type(list) ~= "table" or #list == 0 then return false end
  for _, o in ipairs(list) do
    if type(o) ~= "table" or type(o.const) ~= "string" or type(o.title) ~= "string" then
      return false
    end
  end
  return true
end

-- Returns a description of the field ({ kind, ... }) or nil, problem.
local function check_property(name, p)
  if type(p) ~= "table" then return nil, ("property %q is not a schema"):format(name) end
  local keys
  if p.type == "string" then keys = STRING_KEYS
  elseif p.type == "number" or p.type == "integer" then keys = NUMBER_KEYS
  elseif p.type == "boolean" then keys = BOOLEAN_KEYS
  elseif p.type == "array" then keys = ARRAY_KEYS
  else
    return nil, ("property %q: type %q is not allowed in elicitation"):format(name, tostring(p.type))
  end
  for k in pairs(p) do
    if not keys(k) then
      return nil, ("property %q: %q is not allowed for a %s"):format(name, tostring(k), p.type)
    end
  end
  if p.type == "string" then
    if p.format ~= nil and not FORMATS[p.format] then
      return nil, ("property %q: format %q is not allowed"):format(name, tostring(p.format))
    end
    if p.enum ~= nil and not all_strings(p.enum) then
      return nil, ("property %q: enum must list strings"):format(name)
    end
    if p.enumNames ~= nil and (not all_strings(p.enumNames) or p.enum == nil
        or #p.enumNames ~= #p.enum) then
      return nil, ("property %q: enumNames must name each enum value"):format(name)
    end
    if p.oneOf ~= nil and not titled_options(p.oneOf) then
      return nil, ("property %q: oneOf must list { const, title }"):format(name)
    end
    if p.default ~= nil and type(p.default) ~= "string" then
      return nil, ("property %q: default must be a string"):format(name)
    end
  elseif p.type == "array" then
    local items = p.items
    if type(items) ~= "table" then return nil, ("property %q: items is required"):format(name) end
    local untitled = items.type == "string" and all_strings(items.enum)
    local titled = titled_options(items.anyOf)
    if not untitled and not titled then
      return nil, ("property %q: an array must be a multi-select of strings"):format(name)
    end
    if p.default ~= nil and not (type(p.default) == "table" and (#p.default == 0
        and next(p.default) == nil or all_strings(p.default))) then
      return nil, ("property %q: default must list strings"):format(name)
    end
  elseif p.type == "boolean" then
    if p.default ~= nil and type(p.default) ~= "boolean" then
      return nil, ("property %q: default must be a boolean"):format(name)
    end
  elseif p.default ~= nil and type(p.default) ~= "number" then
    return nil, ("property %q: default must be a number"):format(name)
  end
  return p
end

--- syntax: compiled, problem = elicitation.check_schema(schema)
--- compiled is the schema compiled by mcp.core, for checking answers.
function M.check_schema(schema)
  if type(schema) ~= "table" or schema.type ~= "object" then
    return nil, "requestedSchema must be an object schema"
  end
  for k in pairs(schema) do
    if k ~= "type" and k ~= "properties" and k ~= "required" and k ~= "$schema"
        and k ~= "title" and k ~= "description" then
      return nil, ("requestedSchema: %q is not allowed"):format(tostring(k))
    end
  end
  local props = schema.properties
  if type(props) ~= "table" then return nil, "requestedSchema needs properties" end
  for name, p in pairs(props) do
    local ok, problem = check_property(name, p)
    if not ok then return nil, "requestedSchema: " .. problem end
  end
  for _, r in ipairs(schema.required or {}) do
    if props[r] == nil then
      return nil, ("requestedSchema: required %q is not a property"):format(tostring(r))
    end
  end
  local compiled, err = core.schema_compile(schema)
  if not compiled then return nil, "requestedSchema: " .. tostring(err) end
  return compiled
end

local function format_ok(fmt, v)
  if fmt == "email" then return v:match("^[^@%s]+@[^@%s]+$") ~= nil end
  if fmt == "uri" then return v:match("^%a[%w+.-]*:") ~= nil end
  if fmt == "date" then return v:match("^%d%d%d%d%-%d%d%-%d%d$") ~= nil end
  if fmt == "date-time" then
    return v:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d") ~= nil
  end
  return true
end

--- syntax: content, problem = elicitation.complete_content(schema, compiled, content)
--- Fills the defaults the handler left out, then checks the answer against
--- the schema (types, enums, bounds, formats, required fields).
function M.complete_content(schema, compiled, content)
  if type(content) ~= "table" then return nil, "content must be a table" end
  local out = {}
  for k, v in pairs(content) do
    if schema.properties[k] == nil then
      return nil, ("content has %q, which the schema does not ask for"):format(tostring(k))
    end
    out[k] = v
  end
  for name, p in pairs(schema.properties) do
    if out[name] == nil and p.default ~= nil then
      local d = p.default
      if type(d) == "table" then d = setmetatable({ table.unpack(d) }, core.array_mt) end
      out[name] = d
    end
    local v = out[name]
    if type(v) == "table" then setmetatable(v, core.array_mt) end
    if type(v) == "string" and p.format and not format_ok(p.format, v) then
      return nil, ("%q is not a valid %s"):format(name, p.format)
    end
  end
  local ok, err = compiled:validate(out)
  if not ok then return nil, "content does not match requestedSchema: " .. err.message end
  return out
end

return M
