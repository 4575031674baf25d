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

-- Returns the compiled schema of tool[key], or nil, err for a schema the
-- validator cannot compile (the check is then skipped, not the call).
local function compiled(self, tool, key)
  local per_tool = self._schemas[tool]
  if not per_tool then
    per_tool = {}
    self._schemas[tool] = per_tool
  end
  local entry = per_tool[key]
  if entry == nil then
    local schema, err = core.schema_compile(tool[key])
    entry = schema or { err = err }
    per_tool[key] = entry
  end
  if getmetatable(entry) == nil then return nil, entry.err end
  return entry
end

local function enabled(self, opts, key, default)
  if opts and opts[key] ~= nil then return opts[key] ~= false end
  return default
end

--- The compiled inputSchema the arguments of tool `name` must match, or
--- nil when there is none to check (the check is off, the tool unlisted).
--- mcp.core checks the arguments on the JSON it sends, before sending.
function Client:_arguments_schema(name, opts)
  if not enabled(self, opts, "validate_input", self._validate_input) then return nil end
  local tool = self.tools_by_name and self.tools_by_name[name]
  if not tool or type(tool.inputSchema) ~= "table" then return nil end
  return (compiled(self, tool, "inputSchema"))
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
  if not enabled(self, opts, "validate_output", self._validate_output) then return nil end
  local tool = self.tools_by_name and self.tools_by_name[name]
  if not tool or type(tool.outputSchema) ~= "table" or result.isError == true then
    return nil
  end
  local schema = compiled(self, tool, "outputSchema")
  if not schema then return nil end
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
