-- mcp.param_headers: which x-mcp-header annotations a tool may carry
-- (2026-07-28, "Custom Headers from Tool Parameters") and the
-- declarations the core writes Mcp-Param-* headers from.
local param_headers = require "mcp.param_headers"

local function tool(properties, extra)
  local schema = { type = "object", properties = properties }
  for k, v in pairs(extra or {}) do schema[k] = v end
  return { name = "t", inputSchema = schema }
end

describe("param_headers.check", function()
  it("declares each annotated primitive with the path to its value", function()
    local decl = assert(param_headers.check(tool{
      region = { type = "string", ["x-mcp-header"] = "Region" },
      n = { type = "integer", ["x-mcp-header"] = "N" },
      flag = { type = "boolean", ["x-mcp-header"] = "Flag" },
      plain = { type = "string" },
      nested = { type = "object", properties = {
        zone = { type = "string", ["x-mcp-header"] = "Zone" } } },
    }))
    assert.same({ { "Flag", "flag" }, { "N", "n" }, { "Region", "region" },
                  { "Zone", "nested", "zone" } }, decl)
  end)

  it("declares nothing for a tool without annotations or schema", function()
    assert.same({}, param_headers.check(tool{ a = { type = "string" } }))
    assert.same({}, param_headers.check({ name = "bare" }))
  end)

  it("does not take a property named x-mcp-header, or data, for an annotation", function()
    assert.same({}, param_headers.check(tool{
      ["x-mcp-header"] = { type = "string" },
      d = { type = "object", default = { ["x-mcp-header"] = "X" } },
    }))
  end)

  local invalid = {
    { "an empty name", { v = { type = "string", ["x-mcp-header"] = "" } }, "empty" },
    { "a name that is not a string", { v = { type = "string", ["x-mcp-header"] = 5 } }, "empty or not a string" },
    { "an object", { v = { type = "object", ["x-mcp-header"] = "V" } }, "only string, integer and boolean" },
    { "an array", { v = { type = "array", ["x-mcp-header"] = "V" } }, "only string" },
    { "null", { v = { type = "null", ["x-mcp-header"] = "V" } }, "only string" },
    { "a number", { v = { type = "number", ["x-mcp-header"] = "V" } }, "of type number" },
    { "no type", { v = { ["x-mcp-header"] = "V" } }, "of type nil" },
    { "the same name twice", { a = { type = "string", ["x-mcp-header"] = "Region" },
                               b = { type = "string", ["x-mcp-header"] = "Region" } }, "declared twice" },
    { "names equal but for case", { a = { type = "string", ["x-mcp-header"] = "MyField" },
                                    b = { type = "string", ["x-mcp-header"] = "myfield" } }, "declared twice" },
    { "a space", { v = { type = "string", ["x-mcp-header"] = "My Region" } }, "not a header name" },
    { "a colon", { v = { type = "string", ["x-mcp-header"] = "Region:Primary" } }, "not a header name" },
    { "non-ASCII", { v = { type = "string", ["x-mcp-header"] = "R\u{e9}gion" } }, "not a header name" },
    { "a control character", { v = { type = "string", ["x-mcp-header"] = "Region\t1" } }, "not a header name" },
    { "a path through items", { v = { type = "array", items = {
        type = "object", properties = { w = { type = "string", ["x-mcp-header"] = "W" } } } } },
      "v.items.w, which is not reached through properties alone" },
    { "a path through anyOf", { v = { anyOf = { { type = "string", ["x-mcp-header"] = "W" } } } },
      "not reached through properties alone" },
  }
  for _, case in ipairs(invalid) do
    it("refuses " .. case[1], function()
      local decl, why = param_headers.check(tool(case[2]))
      assert.is_nil(decl)
      assert.is_truthy(why:find(case[3], 1, true), why)
    end)
  end

  it("refuses an annotation reached through $ref or $defs", function()
    local decl, why = param_headers.check(tool(
      { v = { ["$ref"] = "#/$defs/r" } },
      { ["$defs"] = { r = { type = "string", ["x-mcp-header"] = "R" } } }))
    assert.is_nil(decl)
    assert.is_truthy(why:find("$defs.r", 1, true), why)
  end)

  it("refuses an annotation on the root and more than 64 of them", function()
    assert.is_nil((param_headers.check({ name = "t", inputSchema = {
      type = "string", ["x-mcp-header"] = "Root" } })))
    local many = {}
    for i = 1, 65 do many["p" .. i] = { type = "string", ["x-mcp-header"] = "H" .. i } end
    local decl, why = param_headers.check(tool(many))
    assert.is_nil(decl)
    assert.is_truthy(why:find("more than 64", 1, true), why)
  end)
end)
