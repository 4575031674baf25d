-- Feature behaviour that server-everything cannot show, against the
-- project's own fixture servers.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"
local core = require "mcp.core"

describe("tools/list_changed", function()
  it("refreshes the cached list and calls on_tools_changed with the longer list", function()
    run_async(function()
      local changed
      local client <close> = assert(fixture.connect("list_changed", {
        on_tools_changed = function(tools) changed = tools end,
      }))
      local tools = assert(client:list_tools())
      assert.equal(2, #tools)
      assert(client:call_tool("grow", {}))
      for _ = 1, 100 do
        if changed then break end
        mcp.sleep(0.02)
      end
      assert.is_table(changed)
      assert.equal(4, #changed)
      assert.is_table(client.tools_by_name.extra2)
    end)
  end)
end)

describe("cancellation seen by the server", function()
  it("sends notifications/cancelled with the request id and reason", function()
    run_async(function()
      local client <close> = assert(fixture.connect("cancel_observer"))
      local call = client:start_tool("slow", {})
      mcp.sleep(0.05)
      call:cancel("no longer needed")
      local _, err = call:wait()
      assert.equal("ECANCELED", err.code)
      -- a timeout sends one too
      local _, terr = client:call_tool("slow", {}, { timeout = 0.1 })
      assert.equal("ETIMEDOUT", terr.code)
      local seen = mcp.json.decode(assert(client:call_tool("cancellations", {})).content[1].text)
      assert.equal(2, #seen)
      assert.equal(call.id, seen[1].requestId)
      assert.equal("no longer needed", seen[1].reason)
      assert.equal("timeout", seen[2].reason)
      assert.is_true(seen[2].requestId > call.id)
    end)
  end)
end)

describe("closing a client with calls in flight", function()
  it("tells the server they are cancelled before its input closes", function()
    run_async(function()
      local log = os.tmpname()
      local client = assert(fixture.connect("cancel_observer", { args = { "--log", log } }))
      local first, second = client:start_tool("slow", {}), client:start_tool("slow", {})
      assert(client:ping())               -- both calls have gone out by now
      client:close()                      -- waits until the server is gone
      local _, err = first:wait()
      assert.equal("ECLOSED", err.code)
      local seen = {}
      for line in fixture.slurp(log):gmatch("[^\n]+") do
        local c = mcp.json.decode(line)
        seen[c.requestId] = c.reason
      end
      os.remove(log)
      assert.same({ [first.id] = "the client is closing", [second.id] = "the client is closing" }, seen)
    end)
  end)
end)

describe("progress notifications", function()
  it("reach only their own request and stop when it finishes", function()
    run_async(function()
      local client <close> = assert(fixture.connect("progress"))
      local seen = {}
      assert(client:call_tool("noisy", {}, { on_progress = function(p)
        seen[#seen + 1] = p.progress
      end }))
      mcp.sleep(0.1)   -- the late progress arrives and is dropped
      assert.same({ 1, 2 }, seen)
      assert(client:call_tool("noisy", {}))   -- no token: all ignored
      assert.is_true(client:ping())
    end)
  end)

  it("add the token to the caller's _meta in what is sent, not in the caller's table", function()
    run_async(function()
      local client <close> = assert(fixture.connect("progress"))
      local params = { name = "meta", arguments = {}, _meta = { trace = "abc" } }
      local res = assert(client:request("tools/call", params, { on_progress = function() end }))
      local sent = mcp.json.decode(res.content[1].text)
      assert.equal("abc", sent.trace)
      assert.equal("integer", math.type(sent.progressToken))
      assert.same({ trace = "abc" }, params._meta)
      -- Params without a _meta get one holding the token alone.
      local bare = assert(client:request("tools/call", { name = "meta" }, { on_progress = function() end }))
      local meta = mcp.json.decode(bare.content[1].text)
      assert.equal("integer", math.type(meta.progressToken))
      assert.is_nil(next(meta, next(meta)))
    end)
  end)
end)

describe("keep-alive", function()
  it("declares a frozen server dead after the missed pings and fails pending calls", function()
    run_async(function()
      local lost
      local client <close> = assert(fixture.connect("freeze", {
        ping_interval = 0.1, ping_misses = 2, grace = 0.2,
        on_lost = function(err) lost = err end,
      }))
      local frozen = client:start_tool("freeze", {})
      local t0 = core.now()
      local r, err = client:call_tool("echo", { message = "anyone?" }, { timeout = 30 })
      assert.is_nil(r, r and mcp.json.encode(r))
      assert.equal("ECLOSED", err.code)
      assert.matches("missed 2 pings", err.message)
      assert.is_true(core.now() - t0 < 2000)
      local _, ferr = frozen:wait()
      assert.equal("ECLOSED", ferr.code)
      assert.is_nil(lost)   -- aborted by us, not lost by the transport
    end)
  end)

  it("keeps a healthy connection", function()
    run_async(function()
      local client <close> = assert(fixture.connect("echo", { ping_interval = 0.05 }))
      mcp.sleep(0.3)
      assert(client:call_tool("echo", { message = "fine" }))
    end)
  end)
end)

describe("capabilities", function()
  it("refuses methods the server did not declare, without a round trip", function()
    run_async(function()
      local client <close> = assert(fixture.connect("echo"))
      for _, call in ipairs{
        function() return client:list_resources() end,
        function() return client:list_prompts() end,
        function() return client:set_log_level("info") end,
        function() return client:subscribe_resource("x://y", function() end) end,
        function() return client:complete({ type = "ref/prompt", name = "p" }, { name = "a" }) end,
      } do
        local r, err = call()
        assert.is_nil(r)
        assert.equal("ENOTSUP", err.code)
      end
    end)
  end)
end)

describe("params JSON cannot carry", function()
  it("raise at the call, send nothing, and leave the client working", function()
    run_async(function()
      local client <close> = assert(fixture.connect("echo"))
      local bad = { name = "echo", arguments = { message = "x", f = print } }
      -- Written straight into the message, and through cJSON with progress.
      for _, opts in ipairs{ {}, { on_progress = function() end } } do
        local ok, err = pcall(client.request, client, "tools/call", bad, opts)
        assert.is_false(ok)
        assert.matches("cannot encode a function", tostring(err), 1, true)
        assert.equal(0, client._core:pending())
      end
      local nan = { name = "echo", arguments = { message = "x", n = 0/0 } }
      assert.has_error(function() client:request("tools/call", nan) end)
      local r = assert(client:call_tool("echo", { message = "still fine" }))
      assert.equal("still fine", r.content[1].text)
    end)
  end)
end)
