-- A server that attacks its client (spec/fixtures/hostile.js): each case
-- that fuzzing found (issue 11) and the faults that already passed, over
-- stdio and over Streamable HTTP. Each must end in a clear error, with
-- memory bounded, and leave a client that goes on working.
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"
local mcp = require "mcp"
local core = require "mcp.core"

local LUAMCP = "./" .. (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"

local peak_rss_kb = fixture.peak_rss_kb

-- syntax: with_client(transport, fn, opts?) -- inside a task
-- Connects to the hostile server over transport ("stdio" or "http") and
-- calls fn(client, bad, srv), where bad collects what on_bad_message saw.
local function with_client(transport, fn, opts)
  local bad = {}
  local o = { name = "hostile", on_stderr = function() end,
              on_bad_message = function(err) bad[#bad + 1] = err end }
  for k, v in pairs(opts or {}) do o[k] = v end
  if transport == "stdio" then
    o.command = o.command or { "node", "spec/fixtures/hostile.js" }
    local client <close> = assert(mcp.connect(o))
    fn(client, bad)
  else
    local srv <close> = fixture.http_server("hostile", { "--http" })
    o.url = srv.url("/mcp")
    local client <close> = assert(mcp.connect(o))
    fn(client, bad, srv)
  end
end

local function still_works(client)
  assert.equal("fine", assert(client:call_tool("ok", { text = "fine" })).content[1].text)
end

for _, transport in ipairs{ "stdio", "http" } do
  describe("a hostile server over " .. transport, function()
    it("sends a string that fails after 3,000 escapes: EJSON, at every depth", function()
      run_async(function()
        with_client(transport, function(client)
          for _, depth in ipairs{ 0, 1, 8, 40 } do
            local r, err = client:call_tool("escaped_late", { depth = depth })
            assert.is_nil(r)
            assert.equal("EJSON", err.code)
            assert.matches("bad \\u escape", err.message, 1, true)
            still_works(client)
          end
        end)
      end)
    end)

    it("declares schemas whose $ref points into an invalid subschema: no crash", function()
      run_async(function()
        with_client(transport, function(client)
          -- The validator cannot compile them, so the check is skipped (as
          -- for any schema it cannot compile) and the call goes through.
          assert.equal("ran", assert(client:call_tool("bad_ref_in", { a = 1 })).content[1].text)
          assert.equal("ran", assert(client:call_tool("bad_ref_out", {})).content[1].text)
          local ok, err = core.schema_compile(client.tools_by_name.bad_ref_out.outputSchema)
          assert.is_nil(ok)
          assert.equal("EINVAL", err.code)
          still_works(client)
        end)
      end)
    end)

    it("makes the output check a 12-second regex: ETOOBIG well before the deadline", function()
      run_async(function()
        with_client(transport, function(client)
          local t0 = core.now()
          local r, err = client:call_tool("regex_freeze", {}, { timeout = 5 })
          assert.is_nil(r)
          assert.equal("ETOOBIG", err.code)
          assert.matches("could not be checked against the outputSchema", err.message, 1, true)
          assert.equal("long", err.result.content[1].text)   -- the result is not lost
          assert.is_true(core.now() - t0 < 5000, "took " .. (core.now() - t0) .. " ms")
          still_works(client)
        end)
      end)
    end)

    it("makes the input check a 12-second regex: ETOOBIG, and nothing is sent", function()
      run_async(function()
        with_client(transport, function(client)
          local r, err = client:call_tool("regex_freeze_in", { s = string.rep("a", 300000) })
          assert.is_nil(r)   -- the server would have answered "ran"
          assert.equal("ETOOBIG", err.code)
          assert.matches("could not be checked against the inputSchema: validation stopped after",
            err.message, 1, true)
          assert.equal("ran", assert(client:call_tool("regex_freeze_in", { s = "aab" })).content[1].text)
        end)
      end)
    end)

    it("forges an answer under the key \"id\\u0000\": the real answer is taken", function()
      run_async(function()
        with_client(transport, function(client, bad)
          assert.equal("real", assert(client:call_tool("forged_nul_key", {})).content[1].text)
          assert.equal("EJSON", bad[1].code)
          assert.matches("NUL in an object key", bad[1].message, 1, true)
        end)
      end)
    end)

    -- The forged answer carries the call's id: the call fails with the
    -- reason at once (the real answer that follows is then a late one).
    for tool, how in pairs{ forged_control = "prefixes an answer with a control byte",
                            forged_member = "adds a malformed member to an answer" } do
      it(how .. ": EJSON for that call", function()
        run_async(function()
          with_client(transport, function(client)
            local r, err = client:call_tool(tool, {})
            assert.is_nil(r)
            assert.equal("EJSON", err.code)
            still_works(client)
          end)
        end)
      end)
    end

    -- Issue 12: one decoder for every result, whatever its envelope (the
    -- slow one went through cJSON: 2^53 + 1 lost its last digit, "a\0b"
    -- became "a").
    it("gets the same values from a result whatever its envelope", function()
      run_async(function()
        with_client(transport, function(client)
          for _, slow in ipairs{ false, true } do
            local sc = assert(client:call_tool("envelope", { slow = slow })).structuredContent
            assert.equal(9007199254740993, sc.big)
            assert.equal(-9007199254740993, sc.neg)
            assert.equal("a\0b", sc.nul)
          end
        end)
      end)
    end)

    it("gets exact values in a notification's params and an error's data", function()
      run_async(function()
        with_client(transport, function(client)
          local got
          client:on_notification("test/exact", function(params) got = params end)
          local r, err = client:call_tool("exact_values", {})
          assert.is_nil(r)
          assert.equal("ERPC", err.code)
          assert.equal(9007199254740993, err.data.big)
          assert.equal("a\0b", err.data.nul)
          assert.equal(9007199254740993, got.big)
          assert.equal("a\0b", got.nul)
        end)
      end)
    end)

    it("sends a line that is not JSON: reported, and the answer still arrives", function()
      run_async(function()
        with_client(transport, function(client, bad)
          assert.equal("after garbage", assert(client:call_tool("garbage", {})).content[1].text)
          assert.equal("EJSON", bad[1].code)
        end)
      end)
    end)

    it("sends a 100 MB answer: ETOOBIG, memory bounded", function()
      run_async(function()
        with_client(transport, function(client)
          local before = peak_rss_kb()
          local r, err = client:call_tool("huge", { bytes = 100 * 1024 * 1024 })
          assert.is_nil(r)
          assert.equal("ETOOBIG", err.code)
          assert.matches("exceeds the limit", err.message, 1, true)
          local grown = peak_rss_kb() - before
          assert.is_true(grown < 8 * 1024, "peak memory grew by " .. grown .. " KiB")
          still_works(client)
        end, { max_message = 64 * 1024 })
      end, 60)
    end)

    it("never answers: ETIMEDOUT at the deadline, and the client goes on", function()
      run_async(function()
        with_client(transport, function(client)
          local r, err = client:call_tool("stall", {}, { timeout = 0.3 })
          assert.is_nil(r)
          assert.equal("ETIMEDOUT", err.code)
          still_works(client)
        end)
      end)
    end)
  end)
end

describe("a hostile server over stdio", function()
  it("closes its stdout and stays alive: ECLOSED, and no process is left", function()
    run_async(function()
      local pid
      with_client("stdio", function(client)
        pid = client.pid
        local r, err = client:call_tool("close_stdout", {}, { timeout = 5 })
        assert.is_nil(r)
        assert.equal("ECLOSED", err.code)
      end, { grace = 0.2 })
      assert.is_true(fixture.wait_dead(pid, 5))
    end)
  end)
end)

-- Issue 12: restart = { max, backoff } starts a dead stdio server again.
describe("a stdio server that dies, with restart", function()
  it("fails calls at once while it is down, starts it again with its set-up, and calls succeed", function()
    run_async(function()
      local new_session, down = event(), event()
      with_client("stdio", function(client)
        assert(client:set_log_level("debug"))
        local r, err = client:call_tool("crash", {})
        assert.is_nil(r)
        assert.equal("ECLOSED", err.code)
        assert.matches("crashing", err.stderr, 1, true)
        -- The owner hears that it is down and will be started again.
        assert.equal("ECLOSED", down.wait(10).code)
        -- Down: a call fails at once, with the dead server's stderr.
        r, err = client:call_tool("ok", { text = "too early" })
        assert.is_nil(r)
        assert.equal("ECLOSED", err.code)
        assert.matches("it is being restarted", err.message, 1, true)
        assert.matches("crashing", err.stderr, 1, true)
        assert.equal(2, new_session.wait(10))
        assert.equal(2, client.sessions)
        -- The new server got the log level and was told of the roots.
        assert.equal("debug roots:1", assert(client:call_tool("level", {})).content[1].text)
        still_works(client)
      end, { restart = { max = 3, backoff = 0.1 },
             handlers = { roots = { { uri = "file:///tmp", name = "tmp" } } },
             on_down = function(e) down.set(e) end,
             on_session = function(_, n) new_session.set(n) end })
    end)
  end)

  it("gives up after max restarts in a row and reports the loss", function()
    run_async(function()
      local marker = os.tmpname()
      os.remove(marker)
      local lost = event()
      with_client("stdio", function(client)
        assert(io.open(marker, "w")):close()   -- from now on it cannot start
        local _, err = client:call_tool("crash", {})
        assert.equal("ECLOSED", err.code)
        local why = assert(lost.wait(10))
        assert.equal("ECLOSED", why.code)
        _, err = client:call_tool("ok", {})
        assert.equal("ECLOSED", err.code)
      end, { command = { "node", "spec/fixtures/hostile.js", "--die-if-exists", marker },
             restart = { max = 2, backoff = 0.05 },
             on_lost = function(err) lost.set(err) end })
      os.remove(marker)
    end)
  end)
end)

describe("a server whose request ids are past 2^53", function()
  -- Found by fuzzing (issue 11): cJSON holds numbers as doubles, so the
  -- answer to id 9007199254740993 went out as 9007199254740992.
  it("gets its ids back digit for digit, from the core and from a Lua handler", function()
    run_async(function()
      with_client("stdio", function(client)
        for _, method in ipairs{ "ping", "roots/list" } do
          local r = assert(client:call_tool("big_id", { method = method }))
          assert.matches('"id":9007199254740993[,}]', r.content[1].text, nil, method)
        end
        -- What a handler answers goes through the one encoder too.
        local r = assert(client:call_tool("big_id", { method = "roots/list" }))
        assert.matches('"_meta":{"n":9007199254740993}', r.content[1].text, 1, true)
      end, { handlers = { roots = { { uri = "file:///tmp", name = "tmp",
                                      _meta = { n = 9007199254740993 } } } } })
    end)
  end)
end)

describe("a hostile server over HTTP", function()
  local function stats(client)
    return mcp.json.decode(assert(client:call_tool("stats", {})).content[1].text)
  end

  it("cuts a reused connection after a tool call arrives: not sent again", function()
    run_async(function()
      with_client("http", function(client)
        local r, err = client:call_tool("resend", {})
        assert.is_nil(r)
        assert.equal("ECLOSED", err.code)
        assert.matches("may have received it, so it was not sent again", err.message, 1, true)
        local s = stats(client)
        assert.is_true(s.resend_reused, "the call did not come on a reused connection")
        assert.equal(1, s.resend_posts)   -- libcurl alone would have sent it twice
      end)
    end)
  end)

  it("answers 200 with text/html: EPROTO naming the Content-Type", function()
    run_async(function()
      with_client("http", function(client)
        local r, err = client:call_tool("wrong_type", {})
        assert.is_nil(r)
        assert.equal("EPROTO", err.code)
        assert.matches("the server's answer is text/html, neither application/json nor text/event-stream",
          err.message, 1, true)
        still_works(client)
      end)
    end)
  end)

  it("refuses a call with 401: ENEEDSAUTH with the status and the WWW-Authenticate challenge", function()
    run_async(function()
      with_client("http", function(client)
        local r, err = client:call_tool("unauthorized", {})
        assert.is_nil(r)
        assert.equal("ENEEDSAUTH", err.code)
        assert.equal(401, err.status)
        assert.equal('Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource", '
          .. 'scope="tools"', err.www_authenticate)
        still_works(client)
      end)
    end)
  end)

  it("redirects a call elsewhere: EHTTP with the Location", function()
    run_async(function()
      with_client("http", function(client)
        local r, err = client:call_tool("redirect", {})
        assert.is_nil(r)
        assert.equal("EHTTP", err.code)
        assert.equal(307, err.status)
        assert.matches("HTTP 307 redirect to http://127.0.0.1:9/elsewhere, not followed",
          err.message, 1, true)
        still_works(client)
      end)
    end)
  end)

  it("keeps an active event stream open past the idle timeout", function()
    run_async(function()
      with_client("http", function(client)
        -- The stream gets a comment every 50 ms; the idle timeout is 300 ms.
        -- Wait until one stream has carried a second's worth of them.
        local s = stats(client)
        local deadline = core.now() + 5000
        while s.pings < 20 and s.gets <= 1 and core.now() < deadline do
          mcp.sleep(0.05)
          s = stats(client)
        end
        assert.equal(1, s.gets, "the active stream was torn down and opened again")
        assert.is_true(s.pings >= 20, "pings on the stream: " .. s.pings)
      end, { idle_timeout = 0.3 })
    end)
  end)
end)

describe("luamcp call against a hostile server", function()
  it("survives a tool whose schemas point into an invalid subschema", function()
    for _, tool in ipairs{ "bad_ref_in", "bad_ref_out" } do
      local p = assert(io.popen(LUAMCP .. " call --quiet -- node spec/fixtures/hostile.js "
        .. tool .. " '{}' 2>&1"))
      local out = p:read("a")
      local _, how, code = p:close()
      assert.equal("exit", how, out)
      assert.equal(0, code, out)
      assert.equal("ran\n", out)
    end
  end)
end)

describe("an HTTP URL that serves neither transport", function()
  it("fails to connect with what the POST and the legacy GET each got", function()
    run_async(function()
      local srv <close> = fixture.http_server("hostile", { "--http" })
      local client, err = mcp.connect{ url = srv.url("/wrong-path") }
      assert.is_nil(client)
      assert.equal("ECLOSED", err.code)
      assert.matches("the Streamable HTTP POST got HTTP 404: Not Found; "
        .. "the legacy HTTP+SSE GET got HTTP 404: Not Found", err.message, 1, true)
    end)
  end)
end)

describe("a server of the 2026-07-28 era only, over HTTP", function()
  it("is reported as a version it does not speak, without a legacy fallback", function()
    run_async(function()
      local srv <close> = fixture.http_server("hostile", { "--http", "--modern-only" })
      local client, err = mcp.connect{ url = srv.url("/mcp") }
      assert.is_nil(client)
      assert.equal("EVERSION", err.code)
      assert.equal(-32022, err.rpc_code)
      assert.matches("Unsupported protocol version", err.message, 1, true)
    end)
  end)
end)
