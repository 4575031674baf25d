-- Servers that misbehave, one fixture per misbehaviour: the client must
-- give a clear error, lose nothing else, and leave no process behind.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"
local core = require "mcp.core"

local function elapsed_ms(t0) return core.now() - t0 end

local peak_rss_kb = fixture.peak_rss_kb

describe("a server that crashes in the middle of a call", function()
  it("fails the pending call with ECLOSED within 1 s, with its stderr", function()
    run_async(function()
      local client <close> = assert(fixture.connect("crash"))
      local t0 = core.now()
      local res, err = client:call_tool("crash", {}, { timeout = 30 })
      assert.is_nil(res)
      assert.equal("ECLOSED", err.code)
      assert.is_true(elapsed_ms(t0) < 1000, "took " .. elapsed_ms(t0) .. " ms")
      assert.matches("crash fixture is going down", err.stderr)
      assert.matches("status 3", err.message)
      -- later calls fail at once with the same error
      local _, again = client:ping()
      assert.equal("ECLOSED", again.code)
    end)
  end)

  it("fails every pending call, not only the first", function()
    run_async(function()
      local client <close> = assert(fixture.connect("crash"))
      local errs = {}
      for i = 1, 3 do
        mcp.spawn(function()
          local _, err = client:call_tool("echo", { message = "m" .. i })
          errs[i] = err and err.code or "ok"
        end)
      end
      local _, err = client:call_tool("crash", {})
      assert.equal("ECLOSED", err.code)
      mcp.sleep(0.05)
      assert.same({ "ok", "ok", "ok" }, errs)   -- answered before the crash
      local _, late = client:call_tool("echo", { message = "late" })
      assert.equal("ECLOSED", late.code)
    end)
  end)
end)

describe("a server that never answers", function()
  it("times out with ETIMEDOUT and the connection still works", function()
    run_async(function()
      local client <close> = assert(fixture.connect("hang"))
      local t0 = core.now()
      local res, err = client:call_tool("hang", {}, { timeout = 0.2 })
      assert.is_nil(res)
      assert.equal("ETIMEDOUT", err.code)
      assert.is_true(elapsed_ms(t0) >= 190)
      local ok = assert(client:call_tool("echo", { message = "still alive" }))
      assert.equal("still alive", ok.content[1].text)
    end)
  end)

  it("times out each request at its own deadline, whatever the order", function()
    run_async(function()
      local client <close> = assert(fixture.connect("hang"))
      local t0 = core.now()
      -- Sent long first, so the short ones must go before it in the
      -- endpoint's deadline order, and the soonest re-arms its timer.
      local long = client:start_tool("hang", {}, { timeout = 0.6 })
      local mid = client:start_tool("hang", {}, { timeout = 0.35 })
      local short = client:start_tool("hang", {}, { timeout = 0.1 })
      local order = {}
      for name, req in pairs{ long = long, mid = mid, short = short } do
        mcp.spawn(function()
          local _, err = req:wait()
          order[#order + 1] = { name = name, code = err.code, at = elapsed_ms(t0) }
        end)
      end
      while #order < 3 do mcp.sleep(0.02) end
      assert.same({ "short", "mid", "long" },
        { order[1].name, order[2].name, order[3].name })
      for _, o in ipairs(order) do assert.equal("ETIMEDOUT", o.code) end
      -- Each at its own deadline, not the long one's (600 ms).
      assert.is_true(order[1].at >= 90 and order[1].at < 550, "short at " .. order[1].at)
      assert.is_true(order[2].at >= 340, "mid at " .. order[2].at)
      assert.is_true(order[3].at >= 590, "long at " .. order[3].at)
      assert.equal(0, client._core:pending())
    end)
  end)

  it("applies the client's default timeout", function()
    run_async(function()
      -- The handshake gets its own time: a node server can take longer
      -- than 150 ms to start on a loaded machine.
      local client <close> = assert(fixture.connect("hang", { timeout = 0.15, init_timeout = 10 }))
      local _, err = client:call_tool("hang", {})
      assert.equal("ETIMEDOUT", err.code)
    end)
  end)
end)

describe("a server that prints a line that is not JSON", function()
  it("reports the line and the connection survives", function()
    run_async(function()
      local bad = {}
      local client <close> = assert(fixture.connect("garbage", {
        on_bad_message = function(err, text) bad[#bad + 1] = { err = err, text = text } end,
      }))
      local res = assert(client:call_tool("garbage", {}))
      assert.equal("after garbage", res.content[1].text)
      assert.equal(1, #bad)
      assert.equal("EJSON", bad[1].err.code)
      assert.equal("this is not json {", bad[1].text)
      assert.is_true(client:ping())
    end)
  end)
end)

describe("a server that answers with a malformed result", function()
  it("fails that call with EJSON and the connection survives", function()
    run_async(function()
      local client <close> = assert(fixture.connect("garbage", { on_bad_message = function() end }))
      local r, err = client:call_tool("broken_result", {})
      assert.is_nil(r)
      assert.equal("EJSON", err.code)
      assert.matches("leading zero", err.message)
      assert(client:call_tool("echo", { message = "fine" }))
    end)
  end)
end)

describe("a server that sends a message over the size limit", function()
  it("fails that call with ETOOBIG and keeps memory bounded", function()
    run_async(function()
      local client <close> = assert(fixture.connect("oversize",
        { max_message = 64 * 1024 }))
      local before = peak_rss_kb()
      local res, err = client:call_tool("big", { bytes = 40 * 1024 * 1024 })
      assert.is_nil(res)
      assert.equal("ETOOBIG", err.code)
      local grown = peak_rss_kb() - before
      assert.is_true(grown < 8 * 1024, "peak memory grew by " .. grown .. " KiB")
      -- just under the limit still works, and so does the connection
      local ok = assert(client:call_tool("big", { bytes = 60 * 1024 }))
      assert.equal(60 * 1024, #ok.content[1].text)
      assert.is_true(client:ping())
    end, 60)
  end)
end)

describe("a server that ignores SIGTERM", function()
  it("is killed with SIGKILL after the grace period", function()
    run_async(function()
      local client = assert(fixture.connect("ignore_sigterm", { grace = 0.2 }))
      local pid = tonumber(assert(client:call_tool("pid", {})).content[1].text)
      assert.is_true(fixture.alive(pid))
      local t0 = core.now()
      client:close()   -- waits for the ladder: stdin, SIGTERM, SIGKILL
      local took = elapsed_ms(t0)
      assert.is_false(fixture.alive(pid))
      assert.is_true(took >= 350, "closed after " .. took .. " ms")
      assert.is_true(took < 3000, "closed after " .. took .. " ms")
    end)
  end)
end)

describe("a server that starts a grandchild", function()
  it("leaves neither process alive after close", function()
    run_async(function()
      local client = assert(fixture.connect("grandchild"))
      local pids = mcp.json.decode(assert(client:call_tool("pids", {})).content[1].text)
      assert.is_true(fixture.alive(pids.parent))
      assert.is_true(fixture.alive(pids.child))
      client:close()
      assert.is_true(fixture.wait_dead(pids.parent, 2), "server still alive")
      assert.is_true(fixture.wait_dead(pids.child, 2), "grandchild still alive")
    end)
  end)
end)

describe("a server that never answers initialize", function()
  it("times out, and initialize is never cancelled", function()
    run_async(function()
      local client, err, log = fixture.connect("silent_init", { init_timeout = 0.2 })
      assert.is_nil(client)
      assert.equal("ETIMEDOUT", err.code)
      -- The era's probe, then the handshake; neither cancelled.
      assert.same({ "got server/discover", "got initialize" }, log)
    end)
  end)
end)

describe("protocol versions", function()
  it("closes with EVERSION when the server offers an unknown version", function()
    run_async(function()
      local client, err = fixture.connect("bad_version")
      assert.is_nil(client)
      assert.equal("EVERSION", err.code)
      assert.matches("1999%-01%-01", err.message)
    end)
  end)

  it("accepts an older version the client speaks", function()
    run_async(function()
      local client <close> = assert(fixture.connect("old_version"))
      assert.equal("2024-11-05", client.protocol_version)
      assert(client:call_tool("echo", { message = "x" }))
    end)
  end)
end)

describe("requests from the server", function()
  it("answers ping and refuses unknown methods with -32601", function()
    run_async(function()
      local client <close> = assert(fixture.connect("server_request"))
      local responses
      for _ = 1, 50 do
        local res = assert(client:call_tool("responses", {}))
        responses = mcp.json.decode(res.content[1].text)
        if #responses >= 2 then break end
        mcp.sleep(0.02)
      end
      local by_id = {}
      for _, r in ipairs(responses) do by_id[tostring(r.id)] = r end
      assert.same({}, by_id["srv-1"].result)         -- the string id kept
      assert.equal("string", type(by_id["srv-1"].id))
      assert.equal(-32601, by_id["42"].error.code)   -- the numeric id kept
      assert.equal("number", type(by_id["42"].id))
    end)
  end)
end)

describe("pagination", function()
  it("follows nextCursor to the end", function()
    run_async(function()
      local client <close> = assert(fixture.connect("pages"))
      local tools = assert(client:list_tools())
      local names = {}
      for _, t in ipairs(tools) do names[#names + 1] = t.name end
      assert.same({ "t1", "t2", "t3", "t4", "t5", "t6" }, names)
      assert.is_true(mcp.is_array(tools))
      assert.equal(tools[6], client.tools_by_name.t6)
    end)
  end)

  it("stops at a cursor that repeats", function()
    run_async(function()
      local client <close> = assert(fixture.connect("pages", { args = { "--repeat" } }))
      local tools, err = client:list_tools()
      assert.is_nil(tools)
      assert.equal("EPROTO", err.code)
      assert.matches("repeated the cursor", err.message)
      assert.equal(4, #err.partial)
    end)
  end)
end)

describe("starting a server", function()
  it("fails with ESPAWN for a command that does not exist", function()
    run_async(function()
      local client, err = mcp.connect{ command = { "/nonexistent/server" } }
      assert.is_nil(client)
      assert.equal("ESPAWN", err.code)
      assert.matches("/nonexistent/server", err.message)
    end)
  end)

  it("fails with ECLOSED and the stderr tail when the server exits at once", function()
    run_async(function()
      local client, err = mcp.connect{ command = { "sh", "-c", "echo 'no config found' >&2; exit 2" },
                                       on_stderr = function() end }
      assert.is_nil(client)
      assert.equal("ECLOSED", err.code)
      assert.matches("no config found", err.stderr)
    end)
  end)

  it("survives writing to a server that stopped reading (EPIPE, no SIGPIPE)", function()
    run_async(function()
      local client <close> = assert(mcp.connect{ command = { "spec/fixtures/closed_stdin.sh" },
                                                 on_stderr = function() end, grace = 0.1 })
      mcp.sleep(0.5)   -- the server closes its stdin after 0.2 s
      local r, err = client:ping()
      assert.is_nil(r)
      assert.equal("ECLOSED", err.code)
      assert.matches("broken pipe", err.message)
    end)
  end)

  it("fails a burst of requests to a closed stdin at once, none left pending", function()
    run_async(function()
      local client <close> = assert(mcp.connect{ command = { "spec/fixtures/closed_stdin.sh" },
                                                 on_stderr = function() end, grace = 0.1 })
      mcp.sleep(0.5)   -- the server closes its stdin after 0.2 s
      -- 200 requests in one loop turn fill pages of output, which go out
      -- while they are being sent: the broken pipe must still fail them
      -- all from the loop, not leave any waiting for its timeout.
      local reqs = {}
      for i = 1, 200 do
        reqs[i] = client:start("ping", nil, { timeout = 30 })
      end
      local t0 = core.now()
      for i = 1, 200 do
        local r, err = reqs[i]:wait()
        assert.is_nil(r)
        assert.equal("ECLOSED", err.code)
      end
      assert.is_true(elapsed_ms(t0) < 2000, "took " .. elapsed_ms(t0) .. " ms")
      assert.equal(0, client._core:pending())
    end)
  end)

  it("merges env overrides into the inherited environment and sets cwd", function()
    run_async(function()
      local client <close> = assert(fixture.connect("environment", {
        env = { LUAMCP_TEST_VAR = "from-lua", HOME = false },
        command = { "node", (os.getenv("PWD") or ".") .. "/spec/fixtures/environment.js" },
        cwd = "/tmp",
      }))
      local function env(name)
        return assert(client:call_tool("env", { name = name })).content[1].text
      end
      assert.equal("from-lua", env("LUAMCP_TEST_VAR"))
      assert.equal("<unset>", env("HOME"))
      assert.equal(os.getenv("PATH"), env("PATH"))
      assert.equal("/tmp", assert(client:call_tool("cwd", {})).content[1].text)
    end)
  end)

  -- Pipes, as a shell gives, rather than the socketpairs libuv would
  -- make: cheaper per message for both sides (see make_pipes).
  it("gives the server pipes for stdin, stdout and stderr", function()
    run_async(function()
      local client <close> = assert(fixture.connect("environment", {
        command = { "node", (os.getenv("PWD") or ".") .. "/spec/fixtures/environment.js" },
      }))
      assert.equal("fifo fifo fifo",
        assert(client:call_tool("stdio", {})).content[1].text)
      -- stdout widened to 1 MB: a long answer crosses in one go.
      assert.equal(tostring(1 << 20),
        assert(client:call_tool("stdout_pipe_size", {})).content[1].text)
    end)
  end)

  it("forwards the server's stderr line by line", function()
    run_async(function()
      local client <close>, _, log = fixture.connect("echo")
      assert(client:ping())
      mcp.sleep(0.05)
      assert.same({ "echo fixture ready" }, log)
    end)
  end)
end)
