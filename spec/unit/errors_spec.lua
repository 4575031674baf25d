-- mcp.error objects: fields, one-line tostring, type test.
local mcp = require "mcp"

describe("mcp.error", function()
  it("prints on one line with the JSON-RPC code", function()
    local err = mcp.error("ERPC", "Method not found", { rpc_code = -32601 })
    assert.equal("ERPC(-32601): Method not found", tostring(err))
    assert.equal("ETIMEDOUT: slow", tostring(mcp.error("ETIMEDOUT", "slow")))
  end)

  it("is recognised by mcp.errors.is, with or without a code", function()
    local err = mcp.error("ECLOSED", "gone")
    assert.is_true(mcp.errors.is(err))
    assert.is_true(mcp.errors.is(err, "ECLOSED"))
    assert.is_false(mcp.errors.is(err, "ETIMEDOUT"))
    assert.is_false(mcp.errors.is({ code = "ECLOSED" }))
  end)

  it("lists every stable code", function()
    for _, code in ipairs{ "ECLOSED", "ETIMEDOUT", "EPROTO", "ERPC", "ESPAWN",
                           "ETOOBIG", "EVERSION", "ECANCELED" } do
      assert.is_string(mcp.errors.codes[code], code)
    end
  end)

  -- Issue 12: every code comes from the core's one list; the Lua layer
  -- makes up none of its own.
  it("has every code the Lua layer uses in the core's list", function()
    local p = assert(io.popen("cat lua/mcp/*.lua"))
    local text = p:read("a")
    p:close()
    local n = 0
    for code in text:gmatch('"(E[A-Z]+)"') do
      assert.is_string(mcp.errors.codes[code], code .. " is not in MCP_ERRNO_MAP")
      n = n + 1
    end
    assert.is_true(n > 10)
  end)
end)
