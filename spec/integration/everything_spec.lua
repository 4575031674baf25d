-- The official server-everything over stdio: the handshake, tools, ping,
-- errors and close, against the real server process.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"

local function connect()
  return mcp.connect{ name = "everything", command = fixture.everything_command(),
                      on_stderr = function() end }
end

describe("server-everything over stdio", function()
  it("completes the handshake and keeps what the server said", function()
    run_async(function()
      local client <close> = assert(connect())
      assert.equal("2025-11-25", client.protocol_version)
      assert.equal("mcp-servers/everything", client.server_info.name)
      assert.is_string(client.server_info.version)
      assert.is_table(client.capabilities.tools)
      assert.is_table(client.capabilities.resources)
      assert.is_string(client.instructions)
      assert.is_true(#client.instructions > 0)
    end)
  end)

  it("lists its tools with their schemas and annotations", function()
    run_async(function()
      local client <close> = assert(connect())
      local tools = assert(client:list_tools())
      local by_name = {}
      for _, t in ipairs(tools) do by_name[t.name] = t end
      assert.is_table(by_name["get-sum"])
      assert.is_table(by_name["echo"])
      assert.equal("object", by_name["echo"].inputSchema.type)
      assert.equal("Echo Tool", by_name["echo"].title)
      assert.is_true(by_name["echo"].annotations.readOnlyHint)
    end)
  end)

  it("calls get-sum and echo", function()
    run_async(function()
      local client <close> = assert(connect())
      local sum = assert(client:call_tool("get-sum", { a = 2, b = 3 }))
      assert.equal("text", sum.content[1].type)
      assert.matches("%f[%d]5%f[%D]", sum.content[1].text)
      local echo = assert(client:call_tool("echo", { message = "hello from lua" }))
      assert.matches("hello from lua", echo.content[1].text)
    end)
  end)

  it("answers ping", function()
    run_async(function()
      local client <close> = assert(connect())
      assert.is_true(client:ping())
    end)
  end)

  it("gives ERPC with -32601 for an unknown method", function()
    run_async(function()
      local client <close> = assert(connect())
      local res, err = client:request("no/such/method")
      assert.is_nil(res)
      assert.equal("ERPC", err.code)
      assert.equal(-32601, err.rpc_code)
      -- the connection is still usable
      assert.is_true(client:ping())
    end)
  end)

  it("closes: pending calls fail with ECLOSED and methods then raise", function()
    run_async(function()
      local client = assert(connect())
      local got
      mcp.spawn(function()
        got = table.pack(client:call_tool("trigger-long-running-operation",
          { duration = 10, steps = 5 }))
      end)
      client:close()
      assert.is_nil(got[1])
      assert.equal("ECLOSED", got[2].code)
      assert.has_error(function() client:ping() end, "attempt to use a closed mcp.Client")
      assert.is_true(client:close())   -- idempotent
    end)
  end)
end)
