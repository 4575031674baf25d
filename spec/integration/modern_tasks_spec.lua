-- Tasks of the 2026-07-28 era (the io.modelcontextprotocol/tasks
-- extension) against a fixture that follows its wire form
-- (spec/fixtures/modern_tasks.js), over stdio and Streamable HTTP: the
-- client declares the extension on every request, follows a tools/call
-- the server made a task (resultType "task") by polling tasks/get, answers
-- the task's inputRequests once each with tasks/update, takes the result
-- or the error from tasks/get, cancels with tasks/cancel (Mcp-Name: the
-- task's id over HTTP), and refuses a task where only tools/call may be one.
local mcp = require "mcp"
local core = require "mcp.core"
local fixture = require "spec.support.fixture"

local EXTENSION = "io.modelcontextprotocol/tasks"

local TRANSPORTS = {
  stdio = {
    server = function() return nil end,
    connect = function(_, opts)
      local o = { command = { "node", "spec/fixtures/modern_tasks.js" } }
      for k, v in pairs(opts or {}) do o[k] = v end
      return assert(mcp.connect(o))
    end,
    -- What the server received; with method and count, once it has
    -- received that many of that method (the fixture waits, up to 5 s).
    received = function(client, _, method, count)
      return mcp.json.decode(assert(client:call_tool("received",
        { method = method, count = count })).content[1].text)
    end,
  },
  http = {
    server = function() return fixture.http_server("modern_tasks", { "--transport", "http" }) end,
    connect = function(srv, opts)
      local o = { url = srv.url("/mcp"), oauth = false }
      for k, v in pairs(opts or {}) do o[k] = v end
      return assert(mcp.connect(o))
    end,
    received = function(_, srv, method, count)
      local query = method and ("?method=%s&count=%d"):format(method, count) or ""
      return mcp.json.decode(assert(mcp.http.request{ url = srv.url("/requests" .. query) }).body)
    end,
  },
}

local function only(list, method)
  local out = {}
  for _, r in ipairs(list) do
    if r.method == method then out[#out + 1] = r end
  end
  return out
end

for _, name in ipairs{ "stdio", "http" } do
  local t = TRANSPORTS[name]

  describe("2026-07-28 tasks over " .. name, function()
    it("follows a call the server made a task, polling tasks/get, to the tool's checked result", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv)
        assert.equal("modern", client.era)
        local seen = {}
        local res = assert(client:call_tool("job", { ms = 600, poll = 50, structured = { n = 2 } },
          { on_status = function(task) seen[#seen + 1] = task.status .. ":" .. task.statusMessage end }))
        assert.equal("ran", res.content[1].text)
        assert.same({ "working:started", "completed:done" }, seen)
        local got = t.received(client, srv)
        local calls = only(got, "tools/call")
        assert.same({}, calls[1].params._meta["io.modelcontextprotocol/clientCapabilities"]
          .extensions[EXTENSION])
        local gets = only(got, "tasks/get")
        -- every 100 ms (50 is held to the shortest interval taken) for
        -- 600 ms, give or take, until the listen told of the end: polled,
        -- not spun
        assert.is_true(#gets >= 3 and #gets <= 12, #gets .. " polls")
        for _, g in ipairs(gets) do
          assert.equal("mt-1", g.params.taskId)
          if name == "http" then
            assert.equal("mt-1", g.headers["mcp-name"])
            assert.equal("tasks/get", g.headers["mcp-method"])
          end
        end
        assert.same({}, only(got, "tasks/result"))
      end)
    end)

    it("hears of the task on a listen with its id, long before the next poll", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv)
        -- Polls 30 s apart (the longest interval taken): only the
        -- notification can end the call within its 10 s.
        local res = assert(client:call_tool("job", { ms = 100, poll = 60000, structured = { n = 1 } },
          { timeout = 10 }))
        assert.equal("ran", res.content[1].text)
        local listens = only(t.received(client, srv), "subscriptions/listen")
        assert.is_true(#listens >= 1)
        assert.same({ "mt-1" }, listens[1].params.notifications.taskIds)
      end)
    end)

    it("answers the task's input request once, however often tasks/get repeats it", function()
      run_async(function()
        local asked = 0
        local srv <close> = t.server()
        local client <close> = t.connect(srv, { handlers = {
          elicitation = function(params)
            asked = asked + 1
            assert.equal("Favourite colour?", params.message)
            return { action = "accept", content = { color = "teal" } }
          end,
        } })
        local statuses = {}
        local res = assert(client:call_tool("job", { ms = 200, poll = 20, input = true },
          { on_status = function(task) statuses[#statuses + 1] = task.status end, validate_output = false }))
        assert.equal("colour: teal", res.content[1].text)
        assert.equal(1, asked)
        assert.same({ "working", "input_required", "working", "completed" }, statuses)
        local updates = only(t.received(client, srv), "tasks/update")
        assert.equal(1, #updates)
        assert.same({ action = "accept", content = { color = "teal" } },
          updates[1].params.inputResponses.color)
        if name == "http" then assert.equal("mt-1", updates[1].headers["mcp-name"]) end
      end)
    end)

    it("cancels the task when its input cannot be given (the handler failed)", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv, { handlers = {
          elicitation = function() error("no terminal here") end,
        } })
        local res, err = client:call_tool("job", { ms = 100, poll = 20, input = true })
        assert.is_nil(res)
        assert.equal("EPROTO", err.code)
        assert.matches("elicitation/create handler failed: .*no terminal here", err.message)
        -- sent as the call returned, unanswered: the server says when it came
        local cancels = only(t.received(client, srv, "tasks/cancel", 1), "tasks/cancel")
        assert.equal(1, #cancels)
        assert.same({}, only(t.received(client, srv), "tasks/update"))
      end)
    end)

    it("gives a failed task's error, a completed isError result, and checks the outputSchema", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv)
        local res, err = client:call_tool("job", { ms = 50, poll = 20, fail = true })
        assert.is_nil(res)
        assert.equal("ERPC", err.code)
        assert.equal(-32603, err.rpc_code)
        assert.equal("job broke", err.message)
        res, err = client:call_tool("job", { ms = 50, poll = 20, fail = "bare" })
        assert.is_nil(res)
        assert.equal("EPROTO", err.code)
        assert.matches("failed without an error: broke", err.message, 1, true)
        res = assert(client:call_tool("job", { ms = 50, poll = 20, is_error = true }))
        assert.is_true(res.isError)
        res, err = client:call_tool("job", { ms = 50, poll = 20, structured = { n = 1.5 } })
        assert.is_nil(res)
        assert.equal("ESCHEMA", err.code)
        assert.equal(1.5, err.result.structuredContent.n)
        -- a server that labels tasks/get's answer "task" (T17) is understood
        assert(client:call_tool("job", { ms = 50, poll = 20, label = "task", structured = { n = 1 } }))
        -- and one that answers at once is answered at once
        assert.equal("quick", assert(client:call_tool("quick", {})).content[1].text)
      end)
    end)

    it("cancels with tasks/cancel: a handle's cancel, and a task that outlives the deadline", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv)
        local handle = client:start_tool("job", { never = true, poll = 20 }, { task = true })
        local task = assert(handle:status())
        assert.equal("working", task.status)
        assert.equal(60000, task.ttl)
        assert.is_true(assert(handle:cancel()))
        local res, err = handle:wait()
        assert.is_nil(res)
        assert.equal("ECANCELED", err.code)
        assert.equal("cancelled", assert(client:get_task(handle.task_id)).status)
        local t0 = core.now()
        res, err = client:call_tool("job", { never = true, poll = 1e9 }, { timeout = 0.4 })
        assert.is_nil(res)
        assert.equal("ETIMEDOUT", err.code)
        assert.is_true(core.now() - t0 < 1400)
        local cancels = only(t.received(client, srv, "tasks/cancel", 2), "tasks/cancel")
        assert.equal(2, #cancels)
        assert.equal("mt-2", cancels[2].params.taskId)
        if name == "http" then assert.equal("mt-2", cancels[2].headers["mcp-name"]) end
        local _, lerr = client:list_tasks()
        assert.equal("ENOTSUP", lerr.code)
      end)
    end)

    it("refuses a task where only tools/call may be one, and a status the extension lacks", function()
      run_async(function()
        local srv <close> = t.server()
        local client <close> = t.connect(srv)
        local res, err = client:get_prompt("odd")
        assert.is_nil(res)
        assert.equal("EPROTO", err.code)
        assert.matches("only tools/call", err.message)
        res, err = client:call_tool("job", { poll = 20, status = "paused" })
        assert.is_nil(res)
        assert.equal("EPROTO", err.code)
        assert.matches('unknown status "paused"', err.message, 1, true)
      end)
    end)
  end)
end
