-- The 2026-07-28 era against servers written with the official TypeScript
-- SDK v2 (spec/fixtures/modern: one that speaks only 2026-07-28, one that
-- speaks both eras; over stdio and Streamable HTTP): the era is chosen by
-- server/discover without the user noticing, every request carries the
-- _meta envelope (and over HTTP its headers), input_required results are
-- answered by the same Lua handlers as a 2025-11-25 server's requests,
-- and what 2026-07-28 removed fails with ENOTSUP instead of being sent.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"

local ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/clientInfo",
}

local function handlers(answers)
  return {
    elicitation = function(params)
      answers.elicited = params.message
      return { action = "accept", content = { name = "Ada" } }
    end,
    sampling = function(params)
      answers.sampled = params.messages[1].content.text
      return { role = "assistant", model = "lua-model", stopReason = "endTurn",
               content = { type = "text", text = "from Lua" } }
    end,
    roots = { { uri = "file:///srv/project", name = "project" } },
  }
end

-- What the stdio fixture received, through its `requests` tool.
local function received_stdio(client)
  return mcp.json.decode(assert(client:call_tool("requests", {})).content[1].text)
end

local function received_http(server)
  local res = assert(mcp.http.request{ url = server.url("/requests") })
  return mcp.json.decode(res.body)
end

local function methods_of(list)
  local out = {}
  for i, r in ipairs(list) do out[i] = r.method end
  return out
end

for _, era in ipairs{ "modern", "dual" } do
  describe("a " .. era .. " SDK v2 server over stdio", function()
    it("is spoken to in 2026-07-28: discover first, the envelope on every request, no handshake", function()
      run_async(function()
        local answers = {}
        local client <close> = assert(fixture.connect("modern/modern",
          { args = { "--era", era }, handlers = handlers(answers) }))
        assert.equal("modern", client.era)
        assert.equal("2026-07-28", client.protocol_version)
        assert.equal("luamcp-modern-fixture", client.server_info.name)
        assert.is_table(client.capabilities.tools)
        assert.is_string(client.instructions)
        -- tools, resources, prompts and completion, as in the older era
        local names = {}
        for _, t in ipairs(assert(client:list_tools())) do names[t.name] = true end
        assert.is_true(names.add and names.ask and true)
        local sum = assert(client:call_tool("add", { a = 2, b = 3 }))
        assert.equal("5", sum.content[1].text)
        assert.equal("Hello, world", assert(client:read_resource("text://hello")).contents[1].text)
        local prompt = assert(client:get_prompt("greet", { name = "Ada", style = "formal" }))
        assert.is_table(prompt.messages[1])
        assert(client:complete({ type = "ref/prompt", name = "greet" }, { name = "style", value = "" }))
        local seen = received_stdio(client)
        assert.equal("server/discover", seen[1].method)
        for _, r in ipairs(seen) do
          assert.are_not.equal("initialize", r.method)
          assert.are_not.equal("notifications/initialized", r.method)
          if r.id ~= nil then
            for _, key in ipairs(ENVELOPE) do
              assert.is_not_nil(r.meta and r.meta[key], r.method .. " lacks " .. key)
            end
            assert.equal("2026-07-28", r.meta["io.modelcontextprotocol/protocolVersion"])
          end
        end
      end)
    end)

    it("answers input_required with the Lua handlers and sends the request again with its state", function()
      run_async(function()
        local answers = {}
        local client <close> = assert(fixture.connect("modern/modern",
          { args = { "--era", era }, handlers = handlers(answers) }))
        assert.equal("hello Ada", assert(client:call_tool("ask", {})).content[1].text)
        assert.equal("What is your name?", answers.elicited)
        assert.matches("from Lua", assert(client:call_tool("ask_sample", {})).content[1].text)
        assert.is_string(answers.sampled)
        assert.matches("file:///srv/project", assert(client:call_tool("ask_roots", {})).content[1].text)
        local seen, asks = received_stdio(client), {}
        for _, r in ipairs(seen) do
          if r.method == "tools/call" and r.params.name == "ask" then asks[#asks + 1] = r end
        end
        assert.equal(2, #asks)
        assert.is_nil(asks[1].params.requestState)
        assert.equal("ask-state-1", asks[2].params.requestState)
        assert.same({ action = "accept", content = { name = "Ada" } },
          asks[2].params.inputResponses.answer)
        assert.are_not.equal(asks[1].id, asks[2].id)
      end)
    end)

    it("fails what 2026-07-28 removed with ENOTSUP, sending nothing", function()
      run_async(function()
        local client <close> = assert(fixture.connect("modern/modern", { args = { "--era", era } }))
        local before = #received_stdio(client)
        for _, call in ipairs{
          function() return client:ping() end,
          function() return client:set_log_level("debug") end,
          function() return client:request("resources/subscribe", { uri = "text://hello" }) end,
        } do
          local ok, err = call()
          assert.is_nil(ok)
          assert.equal("ENOTSUP", err.code)
          assert.matches("2026%-07%-28", err.message)
        end
        -- only the `requests` call itself came in since
        assert.equal(before + 1, #received_stdio(client))
      end)
    end)
  end)
end

describe("a modern SDK v2 server over Streamable HTTP", function()
  it("gets the version, method and name headers on every POST, and no session", function()
    run_async(function()
      local server <close> = fixture.http_server("modern/modern", { "--transport", "http" })
      local answers = {}
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"),
        handlers = handlers(answers), oauth = false })
      assert.equal("modern", client.era)
      assert.equal("streamable-http", client.transport)
      assert.equal("7", assert(client:call_tool("add", { a = 3, b = 4 })).content[1].text)
      assert.equal("hello Ada", assert(client:call_tool("ask", {})).content[1].text)
      assert(client:read_resource("text://hello"))
      assert(client:read_resource("text://greet/Zo\u{eb}"))
      local seen = received_http(server)
      assert.same({ "server/discover", "tools/list", "tools/call", "tools/call", "tools/call",
                    "resources/read", "resources/read" }, methods_of(seen))
      -- A value a header cannot carry plainly goes in the base64 sentinel.
      assert.equal("=?base64?dGV4dDovL2dyZWV0L1pvw6s=?=", seen[7].headers["mcp-name"])
      for _, r in ipairs(seen) do
        assert.equal("2026-07-28", r.headers["mcp-protocol-version"])
        assert.equal(r.method, r.headers["mcp-method"])
        assert.is_nil(r.headers["mcp-session-id"])
      end
      assert.equal("add", seen[3].headers["mcp-name"])
      assert.equal("text://hello", seen[6].headers["mcp-name"])
    end)
  end)
end)

describe("x-mcp-header parameters over Streamable HTTP", function()
  it("are mirrored into Mcp-Param-* headers the SDK's server checks", function()
    run_async(function()
      local server <close> = fixture.http_server("modern/modern", { "--transport", "http" })
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = false })
      assert(client:list_tools())
      local res = assert(client:call_tool("route", { region = " eu west ", priority = 7, query = "q" }))
      assert.is_falsy(res.isError)
      assert.equal(" eu west /7: q", res.content[1].text)
      -- absent: no header (the server accepts that too)
      assert.equal("us/undefined: q", assert(client:call_tool("route", { region = "us", query = "q" })).content[1].text)
      local seen = received_http(server)
      local first, second = seen[#seen - 1], seen[#seen]
      assert.equal("=?base64?IGV1IHdlc3Qg?=", first.headers["mcp-param-region"])
      assert.equal("7", first.headers["mcp-param-priority"])
      assert.is_nil(first.headers["mcp-param-query"])
      assert.equal("us", second.headers["mcp-param-region"])
      assert.is_nil(second.headers["mcp-param-priority"])
    end)
  end)

  it("after a -32020 for a stale schema, lists the tools again and calls once more", function()
    run_async(function()
      local server <close> = fixture.http_server("modern/modern", { "--transport", "http" })
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = false })
      assert(client:list_tools())            -- kept for the list's ttlMs
      assert(client:call_tool("rename_header", { name = "Zone" }))
      local res = assert(client:call_tool("route", { region = "eu", query = "q" }))
      assert.equal("eu/undefined: q", res.content[1].text)
      local seen = received_http(server)
      local tail = {}
      for i = #seen - 3, #seen do
        tail[#tail + 1] = seen[i].method .. " " .. (seen[i].headers["mcp-name"] or "")
      end
      assert.same({ "tools/call route", "tools/list ", "tools/call route" }, { table.unpack(tail, 2) })
      assert.equal("eu", seen[#seen - 2].headers["mcp-param-region"])
      assert.equal("eu", seen[#seen].headers["mcp-param-zone"])
      assert.is_nil(seen[#seen].headers["mcp-param-region"])
    end)
  end)
end)

describe("what a 2026-07-28 server lets the client keep", function()
  it("serves a list and a read again without a round trip until their ttlMs, unless fresh", function()
    run_async(function()
      local client <close> = assert(fixture.connect("modern/modern"))
      local function count(method)
        local n = 0
        for _, r in ipairs(received_stdio(client)) do
          if r.method == method then n = n + 1 end
        end
        return n
      end
      local first = assert(client:list_tools())      -- ttlMs 60000
      assert.equal(first, assert(client:list_tools()))
      local r1 = assert(client:read_resource("text://hello"))   -- ttlMs 30000
      assert.equal(r1, assert(client:read_resource("text://hello")))
      -- (the requests tool itself lists nothing: tools/list is counted)
      assert.equal(1, count("tools/list"))
      assert.equal(1, count("resources/read"))
      assert.are_not.equal(first, assert(client:list_tools{ fresh = true }))
      assert(client:read_resource("text://hello", { fresh = true }))
      assert.equal(2, count("tools/list"))
      assert.equal(2, count("resources/read"))
    end)
  end)

  it("keeps no read that came after input was given, however long its ttlMs", function()
    run_async(function()
      local asked = 0
      local client <close> = assert(fixture.connect("modern/modern", { handlers = {
        elicitation = function() asked = asked + 1; return { action = "accept", content = { name = "pw" } } end } }))
      for _ = 1, 2 do
        assert.equal("the secret", assert(client:read_resource("text://secret")).contents[1].text)
      end
      assert.equal(2, asked)
      local reads = 0
      for _, r in ipairs(received_stdio(client)) do
        if r.method == "resources/read" then reads = reads + 1 end
      end
      assert.equal(4, reads)        -- each read asked, answered, sent again
    end)
  end)

  it("keeps nothing from a server of the handshake era", function()
    run_async(function()
      local client <close> = assert(fixture.connect("modern/modern",
        { args = { "--era", "dual" }, protocol = "2025-11-25" }))
      assert.are_not.equal(assert(client:list_tools()), assert(client:list_tools()))
    end)
  end)
end)

-- The listens the fixture received (stdio: its `requests` tool; HTTP: GET /requests).
local function listens(list)
  local out = {}
  for _, r in ipairs(list) do
    if r.method == "subscriptions/listen" then out[#out + 1] = r end
  end
  return out
end

describe("subscriptions/listen", function()
  for _, transport in ipairs{ "stdio", "http" } do
    it("carries a resource subscription and list changes over " .. transport, function()
      run_async(function()
        local server = transport == "http"
          and fixture.http_server("modern/modern", { "--transport", "http" }) or nil
        local _s <close> = server
        local changed, hello, greet = event(), event(), event()
        local updates = {}
        local opts = { oauth = false, on_tools_changed = function(tools) changed.set(tools) end }
        local client
        if server then
          opts.url = server.url("/mcp")
          client = assert(mcp.connect(opts))
        else
          client = assert(fixture.connect("modern/modern", opts))
        end
        local _ <close> = client
        local function received()
          return server and received_http(server) or received_stdio(client)
        end
        local function lists()
          local n = 0
          for _, r in ipairs(received()) do if r.method == "tools/list" then n = n + 1 end end
          return n
        end
        assert.equal("modern", client.era)
        -- a list kept for its ttlMs: no second round trip ...
        assert(client:list_tools())
        local before = lists()
        assert(client:list_tools())
        assert.equal(before, lists())
        -- returns once the server acknowledged the subscription
        assert(client:subscribe_resource("text://hello", function(params)
          updates[#updates + 1] = params.uri
          hello.set(params.uri)
        end))
        assert(client:call_tool("touch", { uri = "text://other" }))   -- not subscribed
        assert(client:call_tool("touch", { uri = "text://hello" }))
        assert.equal("text://hello", hello.wait(10))
        assert.same({ "text://hello" }, updates)
        -- ... until the list changed: then it is asked again.
        assert(client:call_tool("toggle", {}))
        local tools = assert(changed.wait(10))
        local names = {}
        for _, t in ipairs(tools) do names[t.name] = true end
        assert.is_true(names.extra)
        assert.equal(before + 1, lists())
        local l = listens(received())
        local filter = l[#l].params.notifications
        assert.is_true(filter.toolsListChanged)
        assert.same({ "text://hello" }, filter.resourceSubscriptions)
        -- unsubscribing replaces the listen with one without that URI
        assert(client:unsubscribe_resource("text://hello"))
        assert(client:subscribe_resource("text://greet/x", function(p) greet.set(p.uri) end))
        assert(client:call_tool("touch", { uri = "text://hello" }))
        assert(client:call_tool("touch", { uri = "text://greet/x" }))
        assert.equal("text://greet/x", greet.wait(10))
        assert.same({ "text://hello" }, updates)
        l = listens(received())
        assert.same({ "text://greet/x" }, l[#l].params.notifications.resourceSubscriptions)
      end)
    end)
  end

  it("is opened again after the server restarts (stdio)", function()
    run_async(function()
      local down, session, updated = event(), event(), event()
      local client <close> = assert(fixture.connect("modern/modern", {
        restart = { max = 2, backoff = 0.05 },
        on_down = function() down.set() end,
        on_session = function(_, n) session.set(n) end }))
      local function on_update(params) updated.set(params.uri) end
      assert(client:subscribe_resource("text://hello", on_update))
      local first = listens(received_stdio(client))
      assert.equal(1, #first)
      local _, err = client:call_tool("crash", {})
      assert.equal("ECLOSED", err.code)
      down.wait(10)
      assert.equal(2, session.wait(10))
      -- the same subscription, asked again: it waits for the new listen's
      -- acknowledgement (the restarted server knew nothing of it)
      assert(client:subscribe_resource("text://hello", on_update))
      assert(client:call_tool("touch", { uri = "text://hello" }))
      assert.equal("text://hello", updated.wait(10))
      local again = listens(received_stdio(client))
      assert.equal(1, #again)
      assert.same({ "text://hello" }, again[1].params.notifications.resourceSubscriptions)
    end)
  end)
end)

describe("a listen of a client its script never closes", function()
  it("does not keep the script running: it ends, and the server with it", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
local mcp = require "mcp"
local client = assert(mcp.connect{ command = { "node", "spec/fixtures/modern/modern.js" },
  on_tools_changed = function() end })
assert(client:subscribe_resource("text://hello", function() end))
print(client.era, client._listen ~= nil)
]])
    f:close()
    local luamcp = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"
    local p = assert(io.popen(("timeout 20 %s run %s 2>&1; echo status $?"):format(luamcp, script)))
    local out = p:read("a")
    p:close()
    os.remove(script)
    assert.matches("modern\ttrue", out, 1, true)
    assert.matches("status 0\n$", out)
  end)
end)

describe("subscriptions/listen against a scripted server", function()
  it("brings the update of a sub-resource to the subscriber of the whole", function()
    run_async(function()
      local client <close> = assert(mcp.connect{ command = { "node", "spec/fixtures/listen_faults.js" } })
      local updates, leaf = {}, event()
      assert(client:subscribe_resource("a://tree", function(p)
        updates[#updates + 1] = p.uri
        if p.uri == "a://tree/leaf" then leaf.set(p.uri) end
      end))
      assert(client:call_tool("touch", { uri = "a://treehouse" }))   -- no part of it
      assert(client:call_tool("touch", { uri = "a://tree/leaf" }))
      assert.equal("a://tree/leaf", leaf.wait(10))
      assert.same({ "a://tree/leaf" }, updates)
    end)
  end)

  for _, how in ipairs{ "result", "cancelled" } do
    it("drops what is tagged for no listen of ours, and listens again after the server's end (" .. how .. ")", function()
      run_async(function()
        local changed = 0
        local client <close> = assert(mcp.connect{
          command = { "node", "spec/fixtures/listen_faults.js" },
          on_tools_changed = function() changed = changed + 1 end })
        assert.equal("modern", client.era)
        local function noop() end
        assert(client:subscribe_resource("a://x", noop))
        assert(client:list_tools())
        assert.is_table(client._cache and client._cache["tools/list"])
        -- one for on_tools_changed, replaced by one with the subscription
        local before = listens(received_stdio(client))
        assert.equal(2, #before)
        assert(client:call_tool("end_listen", { how = how }))
        -- The same subscription, asked again: it waits for the next
        -- listen's acknowledgement, after a backoff.
        assert(client:subscribe_resource("a://x", noop))
        local all = listens(received_stdio(client))
        assert.equal(3, #all)
        assert.is_true(all[3].id > all[2].id)
        assert.same({ "a://x" }, all[3].params.notifications.resourceSubscriptions)
        -- notifications may have been lost meanwhile: nothing kept
        assert.is_nil(client._cache and client._cache["tools/list"])
        -- the list_changed tagged "not-yours" before each ack never counted
        assert.equal(0, changed)
      end)
    end)
  end
end)

describe("an answer stream that breaks in 2026-07-28 (HTTP)", function()
  it("is not resumed: a read is asked again under a new id, a tool call fails as of unknown outcome", function()
    run_async(function()
      local server <close> = fixture.http_server("modern_http_faults")
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = false,
        validate_input = false, validate_output = false })
      assert.equal("modern", client.era)
      local tools = assert(client:list_tools())
      assert.equal(3, #tools)
      local r, err = client:call_tool("drop", {})
      assert.is_nil(r)
      assert.equal("ECLOSED", err.code)
      assert.is_true(err.outcome_unknown)
      assert.matches("may or may not have taken effect", err.message, 1, true)
      assert.equal("hi", assert(client:call_tool("echo", { text = "hi" })).content[1].text)
      local stats = mcp.json.decode(assert(client:call_tool("stats", {})).content[1].text)
      assert.equal(2, #stats.lists)
      assert.are_not.equal(stats.lists[1], stats.lists[2])
      assert.equal(1, stats.drops)              -- the call was not sent again
      assert.equal(0, stats.last_event_ids)     -- nothing resumed
      assert.equal(0, stats.gets)               -- no GET stream
      assert.equal(0, stats.session_ids)        -- the server's session id never sent back
    end)
  end)
end)

describe("cancelling in 2026-07-28", function()
  it("closes the request's stream over HTTP, and sends notifications/cancelled over stdio", function()
    run_async(function()
      local server <close> = fixture.http_server("modern/modern", { "--transport", "http" })
      local http <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = false })
      local stdio <close> = assert(fixture.connect("modern/modern"))
      for _, c in ipairs{ http, stdio } do
        local call = c:start_tool("slow", { steps = 1, delay_ms = 30000 })
        assert(c:call_tool("add", { a = 1, b = 1 }))   -- the slow call has gone out
        call:cancel("no longer needed")
        assert.equal("ECANCELED", select(2, call:wait()).code)
      end
      local function cancels(list)
        local n = 0
        for _, r in ipairs(list) do
          if r.method == "notifications/cancelled" then n = n + 1 end
        end
        return n
      end
      assert.equal(0, cancels(received_http(server)))
      assert.equal(1, cancels(received_stdio(stdio)))
    end)
  end)
end)

describe("a dual-era SDK v2 server", function()
  it("is spoken to in 2025-11-25 when the client is told so", function()
    run_async(function()
      local client <close> = assert(fixture.connect("modern/modern",
        { args = { "--era", "dual" }, protocol = "2025-11-25" }))
      assert.equal("legacy", client.era)
      assert.equal("2025-11-25", client.protocol_version)
      assert.equal("5", assert(client:call_tool("add", { a = 2, b = 3 })).content[1].text)
      assert.equal("initialize", received_stdio(client)[1].method)
    end)
  end)
end)

describe("a connection that asks for 2026-07-28 only", function()
  it("speaks it to a server that does, and refuses one of the older era with EVERSION", function()
    run_async(function()
      local client <close> = assert(fixture.connect("modern/modern",
        { args = { "--era", "dual" }, protocol = "2026-07-28" }))
      assert.equal("modern", client.era)
      local lines = {}
      local old, err = mcp.connect{ command = fixture.everything_command(), protocol = "2026-07-28",
        on_stderr = function() end, on_trace = function(l) lines[#lines + 1] = l end }
      assert.is_nil(old)
      assert.equal("EVERSION", err.code)
      assert.matches("2026%-07%-28 only", err.message)
      for _, l in ipairs(lines) do
        assert.is_nil(l:find('"method":"initialize"', 1, true), "initialize was sent")
      end
    end)
  end)
end)

describe("server-everything, of the handshake era", function()
  it("answers the probe as an older server does, and the handshake follows on the same pipe", function()
    run_async(function()
      local lines = {}
      local client <close> = assert(mcp.connect{ command = fixture.everything_command(),
        on_stderr = function() end, on_trace = function(l) lines[#lines + 1] = l end })
      assert.equal("legacy", client.era)
      assert.equal("2025-11-25", client.protocol_version)
      assert.matches('^> {"jsonrpc":"2.0","id":1,"method":"server/discover"', lines[1])
      assert.matches('"code":%-32601', lines[2])
      assert.matches('^> {"jsonrpc":"2.0","id":2,"method":"initialize"', lines[3])
      assert(client:ping())
    end)
  end)

  it("keeps its verdict for the client's life: a restarted server is not probed again", function()
    run_async(function()
      local lines, session = {}, event()
      local client <close> = assert(mcp.connect{ command = { "node", "spec/fixtures/hostile.js" },
        restart = { max = 2, backoff = 0.05 }, on_stderr = function() end,
        on_session = function(_, n) session.set(n) end,
        on_trace = function(l) lines[#lines + 1] = l end })
      assert.equal("legacy", client.era)
      assert.equal("ECLOSED", select(2, client:call_tool("crash", {})).code)
      assert.equal(2, session.wait(10))
      local probes, handshakes = 0, 0
      for _, l in ipairs(lines) do
        if l:match('^> .*"method":"server/discover"') then probes = probes + 1 end
        if l:match('^> .*"method":"initialize"') then handshakes = handshakes + 1 end
      end
      assert.equal(1, probes)
      assert.equal(2, handshakes)
    end)
  end)
end)
