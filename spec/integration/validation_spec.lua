-- Tool arguments checked against inputSchema before sending, and
-- structuredContent against outputSchema on return, against real servers.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"

describe("outputSchema validation", function()
  it("accepts conforming structuredContent (server-everything)", function()
    run_async(function()
      local client <close> = assert(mcp.connect{ command = fixture.everything_command(),
                                                 on_stderr = function() end })
      local r = assert(client:call_tool("get-structured-content", { location = "New York" }))
      assert.is_number(r.structuredContent.temperature)
    end)
  end)

  it("fails with ESCHEMA, the path and keyword, and the raw result", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      assert(client:call_tool("weather", { mode = "good" }))
      local r, err = client:call_tool("weather", { mode = "bad" })
      assert.is_nil(r)
      assert.equal("ESCHEMA", err.code)
      assert.equal("/temperature", err.path)
      assert.equal("type", err.keyword)
      assert.matches("'/temperature'", err.message)
      assert.equal("warm", err.result.structuredContent.temperature)
    end)
  end)

  it("checks results that arrive the slow way (a wide response) alike", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      assert(client:call_tool("weather", { mode = "good-wide" }))
      local r, err = client:call_tool("weather", { mode = "bad-wide" })
      assert.is_nil(r)
      assert.equal("ESCHEMA", err.code)
      assert.equal("/temperature", err.path)
      assert.equal("warm", err.result.structuredContent.temperature)
    end)
  end)

  it("fails when an outputSchema tool returns no structuredContent, but not on isError", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      local _, err = client:call_tool("weather", { mode = "missing" })
      assert.equal("ESCHEMA", err.code)
      assert.matches("declares an outputSchema but returned no structuredContent", err.message)
      assert.is_table(err.result)
      local r = assert(client:call_tool("weather", { mode = "error" }))
      assert.is_true(r.isError)
    end)
  end)

  it("can be switched off per call and per client", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      assert(client:call_tool("weather", { mode = "bad" }, { validate_output = false }))
      local lax <close> = assert(fixture.connect("schemas", { validate_output = false }))
      assert(lax:call_tool("weather", { mode = "bad" }))
    end)
  end)
end)

describe("inputSchema validation", function()
  it("refuses bad arguments without a round trip", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      local cases = {
        { {}, "", "required" },
        { { count = 0 }, "/count", "minimum" },
        { { count = 1.5 }, "/count", "type" },
        { { count = 1, extra = true }, "/extra", "additionalProperties" },
      }
      for _, case in ipairs(cases) do
        local r, err = client:call_tool("strict", case[1])
        assert.is_nil(r)
        assert.equal("ESCHEMA", err.code)
        assert.equal(case[2], err.path)
        assert.equal(case[3], err.keyword)
        assert.matches("inputSchema", err.message)
      end
      assert.equal("0", assert(client:call_tool("calls", {})).content[1].text)
      assert(client:call_tool("strict", { count = 3 }))
      assert.equal("1", assert(client:call_tool("calls", {})).content[1].text)
    end)
  end)

  it("checks start_tool too, and can be switched off", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      assert(client:list_tools())
      local _, err = client:start_tool("strict", { count = "x" }):wait()
      assert.equal("ESCHEMA", err.code)
      -- with the check off the server gets the call and its own error
      local r = client:call_tool("strict", { count = "x" }, { validate_input = false })
      assert.equal("1", assert(client:call_tool("calls", {})).content[1].text)
      local _ = r
    end)
  end)

  it("compiles each tool's schema once", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      assert(client:call_tool("strict", { count = 1 }))
      local tool = client.tools_by_name.strict
      local first = client._schemas[tool].inputSchema
      assert(client:call_tool("strict", { count = 2 }))
      assert.equal(first, client._schemas[tool].inputSchema)
    end)
  end)
end)

describe("a schema with a $ref to another document", function()
  it("is never fetched, and the call is refused rather than left unchecked", function()
    run_async(function()
      local client <close> = assert(fixture.connect("schemas"))
      local r, err = client:call_tool("remote_ref", { profile = {} })
      assert.is_nil(r)
      assert.equal("ESCHEMA", err.code)
      assert.matches("http://127.0.0.1:9/profile.json", err.message, 1, true)
      assert.matches("validate_input = false", err.message, 1, true)
      local handle = client:start_tool("remote_ref", { profile = {} })
      assert.equal("ESCHEMA", select(2, handle:wait()).code)
      assert.equal("0", assert(client:call_tool("calls", {})).content[1].text)
      -- the caller may go without the check
      assert.equal("ran", assert(client:call_tool("remote_ref", { profile = {} },
        { validate_input = false })).content[1].text)
    end)
  end)
end)
