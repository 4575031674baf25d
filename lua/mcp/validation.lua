--- mcp.validation: which schemas a tools/call is checked against: the
--- tool's inputSchema for the arguments, before the call is sent, and its
--- outputSchema for the result's structuredContent when it comes back.
--- mcp.core does both checks, on the JSON sent and received; this module
--- picks the schemas and words the errors. Schemas are compiled once per
--- tool, on first use, and kept while the tool list is. Either check can
--- be switched off per client (validate_input, validate_output = false in
--- mcp.connect) or per call (the same keys in opts).
local core = require "mcp.core"
-- This module's part of the Client (composed in mcp.client).
local Client = {}

local function on_connect(self, opts)
  self._validate_input = opts.validate_input ~= false
  self._validate_output = opts.validate_output ~= false
  self._schemas = setmetatable({}, { __mode = "k" })   -- tool -> compiled
end

-- The compiled schema of tool[key], or false when there is none or the
-- validator cannot compile it (the check is then skipped, not the call),
-- or an mcp.error when it has a $ref to another document: luamcp never
-- fetches one (2026-07-28 J5: no automatic dereferencing of network
-- URIs), and a check it cannot make must not pass everything.
local function compile(tool, key)
  if type(tool[key]) ~= "table" then return false end
  local compiled, err = core.schema_compile(tool[key])
  if compiled then return compiled end
  local ref = err and err.message:match("cannot resolve %$ref (.*)")
  if ref and not ref:match("^#") then
    return core.error("ESCHEMA", ("tool '%s': its %s has a $ref to %s, which luamcp does not "
      .. "fetch; call with %s = false to go without the check")
      :format(tostring(tool.name), key, ref,
              key == "inputSchema" and "validate_input" or "validate_output"))
  end
  return false
end

local function is_error(v)
  return type(v) == "table" and getmetatable(v) == core.error_mt
end

-- A tool's compiled schemas, { inputSchema = s|false, outputSchema =
-- s|false }, made on the tool's first call and kept with the tool object
-- (a new tool list brings new objects). nil for a tool not listed.
local function schemas_of(self, name)
  local tools = self.tools_by_name
  local tool = tools and tools[name]
  if not tool then return nil end
  local compiled = self._schemas[tool]
  if compiled == nil then
    compiled = { inputSchema = compile(tool, "inputSchema"),
                 outputSchema = compile(tool, "outputSchema") }
    self._schemas[tool] = compiled
  end
  return compiled
end

local function enabled(opts, key, default)
  if opts == nil then return default end
  local v = opts[key]
  if v == nil then return default end
  return v ~= false
end

--- Turns the core's ESCHEMA for arguments into the message users read.
function Client:_explain_arguments_error(name, err)
  err.message = ("arguments for tool '%s' do not match its inputSchema: %s")
    :format(name, err.message)
  err.tool = name
  return err
end

--- The compiled schemas a call of tool `name` is checked against: its
--- inputSchema (the arguments) and its outputSchema (the result's
--- structuredContent, which mcp.core checks on the JSON it receives unless
--- isError is true); each nil when there is none or its check is off.
function Client:_call_schemas(name, opts)
  local compiled = schemas_of(self, name)
  if not compiled then return nil, nil end
  local input = enabled(opts, "validate_input", self._validate_input)
    and compiled.inputSchema or nil
  local output = enabled(opts, "validate_output", self._validate_output)
    and compiled.outputSchema or nil
  return input, output
end

--- The error that keeps a call of tool `name` from being sent: a schema
--- whose check is on but cannot be made (see compile); nil otherwise.
function Client:_schema_refusal(name, opts)
  local input, output = self:_call_schemas(name, opts)
  if is_error(input) then return input end
  if is_error(output) then return output end
  return nil
end

--- Turns the core's ESCHEMA for a result into the message users read.
function Client:_explain_result_error(name, err)
  if err.path == nil then   -- the result had no structuredContent at all
    err.message = ("tool '%s' declares an outputSchema but returned no structuredContent")
      :format(name)
  else
    err.message = ("structuredContent of tool '%s' does not match its outputSchema: %s")
      :format(name, err.message)
  end
  err.tool = name
  return err
end

return { methods = Client, on_connect = on_connect }
