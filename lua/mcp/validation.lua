--- mcp.validation: checks tool arguments against a tool's inputSchema
--- before the call is sent, and structuredContent against its
--- outputSchema when the result comes back. Schemas are compiled once per
--- tool, on first use, and kept while the tool list is. Either check can
--- be switched off per client (validate_input, validate_output = false in
--- mcp.connect) or per call (the same keys in opts).
local core = require "mcp.core"
local errors = require "mcp.errors"
local client = require "mcp.client"

local Client = client.Client

client.on_connect(function(self, opts)
  self._validate_input = opts.validate_input ~= false
  self._validate_output = opts.validate_output ~= false
  self._schemas = setmetatable({}, { __mode = "k" })   -- tool -> compiled
end)

-- The compiled schema of tool[key], or false when there is none or the
-- validator cannot compile it (the check is then skipped, not the call).
local function compile(tool, key)
  if type(tool[key]) ~= "table" then return false end
  return core.schema_compile(tool[key]) or false
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

--- The compiled inputSchema the arguments of tool `name` must match, or
--- nil when there is none to check (the check is off, the tool unlisted).
--- mcp.core checks the arguments on the JSON it sends, before sending.
function Client:_arguments_schema(name, opts)
  if not enabled(opts, "validate_input", self._validate_input) then return nil end
  local compiled = schemas_of(self, name)
  return compiled and compiled.inputSchema or nil
end

--- Turns the core's ESCHEMA for arguments into the message users read.
function Client:_explain_arguments_error(name, err)
  err.message = ("arguments for tool '%s' do not match its inputSchema: %s")
    :format(name, err.message)
  err.tool = name
  return err
end

--- Checks a result's structuredContent against the tool's outputSchema;
--- returns an ESCHEMA error carrying the raw result, or nil.
function Client:_check_result(name, result, opts)
  if not enabled(opts, "validate_output", self._validate_output) then return nil end
  local compiled = schemas_of(self, name)
  local schema = compiled and compiled.outputSchema
  if not schema or result.isError == true then return nil end
  if result.structuredContent == nil then
    return errors.new("ESCHEMA", ("tool '%s' declares an outputSchema but returned "
      .. "no structuredContent"):format(name), { result = result, tool = name })
  end
  local ok, err = schema:validate(result.structuredContent)
  if ok then return nil end
  err.message = ("structuredContent of tool '%s' does not match its outputSchema: %s")
    :format(name, err.message)
  err.result, err.tool = result, name
  return err
end

return {}
