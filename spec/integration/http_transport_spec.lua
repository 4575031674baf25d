-- MCP over HTTP against real servers: server-everything in streamableHttp
-- and sse modes, and a fault-injecting fixture of our own.
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"
local mcp = require "mcp"
local core = require "mcp.core"

local function with_server(name, args, fn)
  local srv <close> = fixture.http_server(name, args)
  fn(srv)
end

local function text_reply(t)
  return { role = "assistant", content = { type = "text", text = t }, model = "m", stopReason = "endTurn" }
end

describe("an HTTP URL that is not one", function()
  it("is refused with EINVAL at connect, before anything is sent", function()
    run_async(function()
      for _, url in ipairs{ "http://[::1", "http://exa mple.com/", "https://" } do
        local client, err = mcp.connect{ url = url }
        assert.is_nil(client)
        assert.equal("EINVAL", err.code)
        assert.matches("invalid URL", err.message, 1, true)
      end
      assert.has_error(function() mcp.connect{ url = "ftp://127.0.0.1/x" } end,
        "mcp.connect: 'url' must be an http:// or https:// URL")
    end)
  end)
end)

describe("server-everything over Streamable HTTP", function()
  it("lists and calls tools, with progress and a sampling request on the POST's stream", function()
    run_async(function()
      with_server("everything_http", { "streamableHttp" }, function(srv)
        local client <close> = assert(mcp.connect{ url = srv.url("/mcp"), on_log = function() end,
          handlers = { sampling = function() return text_reply("sampled over HTTP") end } })
        assert.equal("streamable-http", client.transport)
        assert.equal("2025-11-25", client.protocol_version)
        assert.is_true(#assert(client:list_tools()) >= 10)
        assert.matches("5", assert(client:call_tool("get-sum", { a = 2, b = 3 })).content[1].text)
        local seen = 0
        assert(client:call_tool("trigger-long-running-operation", { duration = 0.4, steps = 2 },
          { on_progress = function() seen = seen + 1 end }))
        assert.equal(2, seen)
        local r = assert(client:call_tool("trigger-sampling-request", { prompt = "x" }))
        assert.matches("sampled over HTTP", r.content[1].text)
        assert.is_true(client:ping())
      end)
    end, 40)
  end)
end)

describe("server-everything over Streamable HTTP, restarted", function()
  -- It answers a session id it does not know with HTTP 400 and a JSON-RPC
  -- error "no valid session ID" (not the specification's 404): every call
  -- failed with EHTTP 400 from then on (issue 12).
  it("starts a new session: the next 5 calls succeed", function()
    run_async(function()
      local srv <close> = fixture.http_server("everything_http", { "streamableHttp" })
      local port = srv.port
      local client <close> = assert(mcp.connect{ url = srv.url("/mcp"), on_log = function() end })
      assert(client:call_tool("get-sum", { a = 1, b = 1 }))
      srv.stop()
      local again <close> = fixture.http_server("everything_http", { "streamableHttp", tostring(port) })
      for i = 1, 5 do
        local r = assert(client:call_tool("get-sum", { a = i, b = 10 }))
        assert.matches(tostring(i + 10), r.content[1].text, 1, true)
      end
    end, 40)
  end)
end)

describe("server-everything over Streamable HTTP, down for a while", function()
  -- Issue 12: a call made while the server cannot be connected to waits
  -- (retried with backoff within its deadline) instead of failing at once.
  it("waits for it to come back, then the call succeeds in a new session", function()
    run_async(function()
      local srv <close> = fixture.http_server("everything_http", { "streamableHttp" })
      local port = srv.port
      local client <close> = assert(mcp.connect{ url = srv.url("/mcp"), on_log = function() end })
      assert(client:call_tool("get-sum", { a = 1, b = 1 }))
      srv.stop()
      -- The call finds no server (refused at once); the new one takes
      -- hundreds of ms to start: a call that did not wait has failed by then.
      local finished = event()
      mcp.spawn(function()
        finished.set(client:call_tool("get-sum", { a = 4, b = 5 }, { timeout = 20 }))
      end)
      local again <close> = fixture.http_server("everything_http", { "streamableHttp", tostring(port) })
      local result, err = finished.wait(20)
      assert(result, err)
      assert.matches("9", result.content[1].text, 1, true)
      assert.equal(2, client.sessions)
    end, 40)
  end)

  it("fails a call at its deadline, its first step (listing the tools) included", function()
    run_async(function()
      local srv <close> = fixture.http_server("everything_http", { "streamableHttp" })
      local client <close> = assert(mcp.connect{ url = srv.url("/mcp"), on_log = function() end })
      srv.stop()
      local r, err = client:call_tool("get-sum", { a = 1, b = 2 }, { timeout = 0.6 })
      assert.is_nil(r)
      assert.equal("ETIMEDOUT", err.code)
    end, 40)
  end)
end)

describe("server-everything over the legacy HTTP+SSE transport", function()
  it("is found by auto mode's fallback and works", function()
    run_async(function()
      with_server("everything_http", { "sse" }, function(srv)
        local client <close> = assert(mcp.connect{ url = srv.url("/sse"), on_log = function() end })
        assert.equal("sse", client.transport)
        assert.matches("5", assert(client:call_tool("get-sum", { a = 2, b = 3 })).content[1].text)
        local seen = 0
        assert(client:call_tool("trigger-long-running-operation", { duration = 0.3, steps = 3 },
          { on_progress = function() seen = seen + 1 end }))
        assert.equal(3, seen)
      end)
    end, 40)
  end)

  it("is used directly with transport = 'sse'", function()
    run_async(function()
      with_server("everything_http", { "sse" }, function(srv)
        local client <close> = assert(mcp.connect{ url = srv.url("/sse"), transport = "sse" })
        assert.equal("sse", client.transport)
        assert.is_true(client:ping())
      end)
    end, 40)
  end)
end)

describe("an HTTP server that misbehaves", function()
  local function connect(srv, opts)
    local o = { url = srv.url("/mcp") }
    for k, v in pairs(opts or {}) do o[k] = v end
    return mcp.connect(o)
  end

  local function stats(client)
    return mcp.json.decode(assert(client:call_tool("stats", {})).content[1].text)
  end

  it("answers as JSON or SSE, with a priming event", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv))
        assert.equal("a", assert(client:call_tool("echo", { message = "a" })).content[1].text)
        assert.equal("b", assert(client:call_tool("sse_echo", { message = "b" })).content[1].text)
      end)
    end)
  end)

  it("resumes a dropped SSE stream: nothing lost, nothing twice", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv))
        local progress = 0
        local r = assert(client:call_tool("drop", {}, { on_progress = function() progress = progress + 1 end }))
        assert.equal("survived the drop", r.content[1].text)
        assert.equal(1, progress)
        local s = stats(client)
        assert.equal(1, s.resumes)
        assert.equal(1, s.drop_answers)
      end)
    end)
  end)

  it("starts a new session after a 404, restores its set-up and retries the call", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv))
        assert(client:set_log_level("debug"))
        assert(client:subscribe_resource("test://watched", function() end))
        assert(client:call_tool("expire", {}))
        local r = assert(client:call_tool("echo", { message = "again" }))
        assert.equal("again", r.content[1].text)
        assert.equal(2, client.sessions)
        local s = stats(client)
        assert.equal(2, s.sessions)
        -- the new session got the same log level and subscriptions
        assert.same({ "level:debug", "subscribe:test://watched" }, s.restored["session-1"])
        local again = s.restored["session-2"]
        table.sort(again)
        assert.same({ "level:debug", "subscribe:test://watched" }, again)
        -- A request handle (start_tool) retries the same way.
        assert(client:call_tool("expire", {}))
        local r2 = assert(client:start_tool("echo", { message = "handle" }):wait())
        assert.equal("handle", r2.content[1].text)
        assert.equal(3, client.sessions)
      end)
    end)
  end)

  -- Issue 12: the 404s of one expired session come back at different
  -- times; those that arrive after the new session began must be sent
  -- again in it, not start yet another session each.
  it("re-initializes once for a burst of 20 calls across one expiry", function()
    run_async(function()
      with_server("http_faults", { "--no-get" }, function(srv)
        local client <close> = assert(connect(srv))
        assert(client:call_tool("expire", {}))
        local done, texts, all_done = 0, {}, event()
        for i = 1, 20 do
          mcp.spawn(function()
            local r = assert(client:call_tool("echo", { message = "m" .. i, delay_404 = (i - 1) * 25 }))
            texts[i] = r.content[1].text
            done = done + 1
            if done == 20 then all_done.set(true) end
          end)
        end
        assert(all_done.wait(20))
        for i = 1, 20 do assert.equal("m" .. i, texts[i]) end
        assert.equal(2, stats(client).sessions)
      end)
    end)
  end)

  it("fails a call answered with 5xx with EHTTP and the status", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv))
        local _, err = client:call_tool("fail500", {})
        assert.equal("EHTTP", err.code)
        assert.equal(500, err.status)
        assert.matches("boom", err.message)
        assert.is_true(client:ping())
      end)
    end)
  end)

  it("times out a stalled call and stays usable", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv))
        local _, err = client:call_tool("stall", {}, { timeout = 0.3 })
        assert.equal("ETIMEDOUT", err.code)
        assert.is_true(client:ping())
      end)
    end)
  end)

  it("fails an oversized SSE event with ETOOBIG", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv, { max_message = 64 * 1024 }))
        local _, err = client:call_tool("huge", { bytes = 1024 * 1024 })
        assert.equal("ETOOBIG", err.code)
        assert(client:call_tool("huge", { bytes = 1000 }))
      end)
    end)
  end)

  it("fails an oversized JSON answer with ETOOBIG", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv, { max_message = 64 * 1024 }))
        local _, err = client:call_tool("huge_json", { bytes = 1024 * 1024 })
        assert.equal("ETOOBIG", err.code)
        -- The limit, not the bytes that happened to be buffered (issue 11).
        assert.matches("the answer exceeds the limit of 65536 bytes", err.message, 1, true)
        assert(client:call_tool("huge_json", { bytes = 1000 }))
      end)
    end)
  end)

  it("goes on without an event stream when GET is answered 405", function()
    run_async(function()
      with_server("http_faults", { "--no-get" }, function(srv)
        local client <close> = assert(connect(srv, { idle_timeout = 0.1 }))
        mcp.sleep(0.5)
        assert(client:call_tool("echo", { message = "still fine" }))
        assert.equal(1, stats(client).gets)   -- asked once, never again
      end)
    end)
  end)

  it("fails pending calls within a second when the server is killed", function()
    run_async(function()
      local srv <close> = fixture.http_server("http_faults", {})
      local client <close> = assert(connect(srv))
      local errs = {}
      for i = 1, 3 do
        mcp.spawn(function()
          local _, err = client:call_tool("stall", {}, { timeout = 30 })
          errs[i] = err
        end)
      end
      mcp.sleep(0.1)
      local t0 = core.now()
      srv.stop()
      while #errs < 3 and core.now() - t0 < 5000 do mcp.sleep(0.02) end
      assert.equal(3, #errs)
      assert.is_true(core.now() - t0 < 1000, "took " .. (core.now() - t0) .. " ms")
      for _, err in ipairs(errs) do assert.equal("ECLOSED", err.code) end
    end)
  end)

  it("sends DELETE with the session when it closes", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client = assert(connect(srv))
        assert.is_true(client:ping())
        client:close()
        local probe <close> = assert(connect(srv))
        assert.equal(1, stats(probe).deletes)
      end)
    end)
  end)

  it("sends MCP-Protocol-Version after initialize, its user agent, and headers from a function", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local n = 0
        local client <close> = assert(connect(srv, { headers = function()
          n = n + 1
          return { ["X-Test-Token"] = "token-" .. n }
        end }))
        assert(client:call_tool("echo", { message = "x" }))
        assert(client:call_tool("echo", { message = "y" }))
        local s = stats(client)
        assert.is_nil(s.versions.none)                  -- every request after initialize
        assert.is_true(s.versions["2025-11-25"] >= 3)
        assert.matches("^luamcp/", s.user_agent)
        -- a fresh token for each request the script makes
        assert.is_true(#s.custom >= 3)
        assert.not_equal(s.custom[1], s.custom[#s.custom])
      end)
    end)
  end)

  it("reconnects a silent event stream after the idle timeout", function()
    run_async(function()
      with_server("http_faults", {}, function(srv)
        local client <close> = assert(connect(srv, { idle_timeout = 0.2 }))
        mcp.sleep(0.9)
        local s = stats(client)
        assert.is_true(s.gets >= 3, "GET streams opened: " .. s.gets)
        assert.is_true(client:ping())
      end)
    end)
  end)
end)
