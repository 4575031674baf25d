-- The task requester against a 2025-11-25 fixture that runs tool calls
-- as tasks and misbehaves on request (spec/fixtures/tasks_legacy.js):
-- which calls become tasks, what a server's task may not do (a bogus id
-- or status, any pollInterval, a task that never ends), and what carries
-- across the whole task (progress, the deadline, the output schema).
local mcp = require "mcp"
local core = require "mcp.core"
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"

local function connect()
  return assert(fixture.connect("tasks_legacy"))
end

local function received(client)
  return mcp.json.decode(assert(client:call_tool("received", {})).content[1].text)
end

local function count(list, value)
  local n = 0
  for _, v in ipairs(list) do if v == value then n = n + 1 end end
  return n
end

describe("which tool calls become 2025-11-25 tasks", function()
  it("follows taskSupport: required always, optional when asked, otherwise never", function()
    run_async(function()
      local client <close> = connect()
      assert.equal("ran", assert(client:call_tool("maybe", {})).content[1].text)
      local seen = {}
      local res = assert(client:call_tool("maybe", {}, { task = { ttl = 5000 },
        on_status = function(t) seen[#seen + 1] = t.status end }))
      assert.equal("ran", res.content[1].text)
      assert.equal("completed", seen[#seen])
      assert.equal("ran", assert(client:call_tool("plain", {}, { task = true })).content[1].text)
      assert.equal("ran", assert(client:call_tool("job", { ms = 50, structured = { n = 1 } })).content[1].text)
      local got = received(client)
      assert.same({ mcp.null, { ttl = 5000 }, mcp.null, {} }, got.task_params)
    end)
  end)
end)

describe("start_tool of a 2025-11-25 tool that requires a task", function()
  it("follows the task without being asked, once the tools are listed (as the host and CLI do)", function()
    run_async(function()
      local client <close> = connect()
      assert(client:list_tools())
      local handle = client:start_tool("job", { ms = 50, structured = { n = 1 } })
      assert.equal("ran", assert(handle:wait()).content[1].text)
      assert.equal("task-1", handle.task_id)
      assert.equal("completed", handle.task.status)
      -- a plain tool's handle is still a request's
      local plain = client:start_tool("plain", {})
      assert.equal("ran", assert(plain:wait()).content[1].text)
      assert.is_nil(plain.task_id)
    end)
  end)

  it("cancels a task being created as soon as the server names it, with tasks/cancel", function()
    run_async(function()
      local client <close> = connect()
      local handle = client:start_tool("job", { ms = -1 }, { task = true })
      assert.is_true(handle:cancel("changed my mind"))
      local res, err = handle:wait()
      assert.is_nil(res)
      assert.equal("ECANCELED", err.code)
      local got = received(client)
      assert.equal(1, count(got.methods, "tasks/cancel"))
      assert.equal(0, count(got.methods, "tasks/get"))
      assert.equal("cancelled", assert(client:get_task(handle.task_id)).status)
    end)
  end)
end)

describe("a 2025-11-25 task by its id", function()
  it("is followed to its result by wait_task, as by the call that started it", function()
    run_async(function()
      local client <close> = connect()
      local handle = client:start_tool("job", { ms = 300, structured = { n = 1 } }, { task = true })
      local id = assert(handle:status()).taskId
      local seen = {}
      local res = assert(client:wait_task(id, { on_status = function(t) seen[#seen + 1] = t.status end }))
      assert.equal("ran", res.content[1].text)
      assert.equal(id, res._meta["io.modelcontextprotocol/related-task"].taskId)
      assert.equal("completed", seen[#seen])
      assert.equal("ran", assert(handle:wait()).content[1].text)
      local _, err = client:wait_task("task-404")
      assert.equal(-32602, err.rpc_code)
    end)
  end)
end)

describe("input_required in a 2025-11-25 task", function()
  it("calls tasks/result at once, and answers the sampling it brings, tagged with the task", function()
    run_async(function()
      local client <close> = assert(fixture.connect("tasks_legacy", { handlers = {
        sampling = function(params)
          return { role = "assistant", model = "lua-model", stopReason = "endTurn",
                   content = { type = "text", text = "teal for " .. params.messages[1].content.text } }
        end,
      } }))
      local seen = {}
      local res = assert(client:call_tool("job", { ms = 200, sample = true, poll = 50 },
        { validate_output = false, on_status = function(t) seen[#seen + 1] = t.status end }))
      assert.equal("sampled: teal for colour?", res.content[1].text)
      assert.same({ "working", "input_required" }, { seen[1], seen[2] })
      assert.equal("completed", seen[#seen])
      local got = received(client)
      assert.equal(1, #got.responses)
      assert.same({ taskId = "task-1" },
        got.responses[1].result._meta["io.modelcontextprotocol/related-task"])
    end)
  end)
end)

describe("a server's task, untrusted", function()
  it("fails with EPROTO on a task id that is not a string, or an unknown status", function()
    run_async(function()
      local client <close> = connect()
      local res, err = client:call_tool("job", { id = 42 })
      assert.is_nil(res)
      assert.equal("EPROTO", err.code)
      assert.matches("taskId", err.message)
      res, err = client:call_tool("job", { status = "paused", structured = { n = 1 } })
      assert.is_nil(res)
      assert.equal("EPROTO", err.code)
      assert.matches('unknown status "paused"', err.message, 1, true)
    end)
  end)

  it("polls no faster than its floor whatever pollInterval says (0, negative, not a number)", function()
    run_async(function()
      local client <close> = connect()
      for _, poll in ipairs{ 0, -5, "soon" } do
        assert(client:call_tool("job", { ms = 400, poll = poll, structured = { n = 1 } }))
      end
      -- 400 ms at 100 ms at the least: a handful of polls each, not thousands
      local gets = count(received(client).methods, "tasks/get")
      assert.is_true(gets >= 3 and gets <= 3 * 6, "tasks/get sent " .. gets .. " times")
    end)
  end)

  it("cancels a task that outlives the deadline, whatever pollInterval it asked for", function()
    run_async(function()
      local client <close> = connect()
      for _, args in ipairs{ { ms = -1 }, { ms = -1, poll = 1e12 } } do
        local t0 = core.now()
        local res, err = client:call_tool("job", args, { timeout = 0.5 })
        local took = core.now() - t0
        assert.is_nil(res)
        assert.equal("ETIMEDOUT", err.code)
        assert.is_true(took >= 450 and took < 1500, "returned after " .. took .. " ms")
        assert.equal("working", err.task.status)
      end
      -- both tasks were cancelled: tasks/cancel went out as the call
      -- returned, so over the one pipe it came before this
      assert.equal(2, count(received(client).methods, "tasks/cancel"))
      for _, t in ipairs(assert(client:list_tasks())) do assert.equal("cancelled", t.status) end
    end)
  end)

  it("stops following when the client is closed, without waiting out the pollInterval", function()
    run_async(function()
      local client = connect()
      local statuses = event()
      local got = event()
      mcp.spawn(function()
        got.set(client:call_tool("job", { ms = -1, poll = 20000 },
          { timeout = 60, on_status = function(t) statuses.set(t) end }))
      end)
      local task = statuses.wait(5)
      -- on_status ran inside the follower; one round trip later, it sleeps
      assert.equal("working", assert(client:get_task(task.taskId)).status)
      local t0 = core.now()
      client:close()
      local res, err = got.wait(5)
      assert.is_nil(res)
      assert.equal("ECLOSED", err.code)
      assert.is_true(core.now() - t0 < 5000)
    end)
  end)

  it("wakes at a status notification instead of waiting out a long pollInterval", function()
    run_async(function()
      local client <close> = connect()
      local t0 = core.now()
      local seen = {}
      assert(client:call_tool("job", { ms = 300, poll = 20000, notify = true, structured = { n = 1 } },
        { timeout = 10, on_status = function(t) seen[#seen + 1] = t.statusMessage end }))
      assert.is_true(core.now() - t0 < 2000)
      assert.same({ "started", "halfway", "done" }, seen)
    end)
  end)
end)

describe("what carries across a whole 2025-11-25 task", function()
  it("progress on the call's token reaches on_progress and moves the deadline", function()
    run_async(function()
      local client <close> = connect()
      local progress = 0
      local res = assert(client:call_tool("job", { ms = 1500, progress = true, structured = { n = 1 } },
        { timeout = 0.5, on_progress = function(p) progress = p.progress end }))
      assert.equal("ran", res.content[1].text)
      assert.is_true(progress >= 8, "progress " .. progress)
      -- the same task without progress outlives the deadline
      local _, err = client:call_tool("job", { ms = 1500, structured = { n = 1 } }, { timeout = 0.5 })
      assert.equal("ETIMEDOUT", err.code)
    end)
  end)

  it("checks the result against the tool's outputSchema, and passes on the task's error", function()
    run_async(function()
      local client <close> = connect()
      local res, err = client:call_tool("job", { ms = 50, structured = { n = "three" } })
      assert.is_nil(res)
      assert.equal("ESCHEMA", err.code)
      assert.matches("structuredContent of tool 'job' does not match its outputSchema", err.message, 1, true)
      assert.equal("three", err.result.structuredContent.n)
      res, err = client:call_tool("job", { ms = 50 })
      assert.is_nil(res)
      assert.matches("declares an outputSchema but returned no structuredContent", err.message, 1, true)
      res, err = client:call_tool("job", { ms = 50, error = true })
      assert.is_nil(res)
      assert.equal("ERPC", err.code)
      assert.equal(-32603, err.rpc_code)
      assert.equal("job broke", err.message)
      -- validate_output = false: the result as it came
      res = assert(client:call_tool("job", { ms = 50 }, { validate_output = false }))
      assert.equal("task-4", res._meta["io.modelcontextprotocol/related-task"].taskId)
    end)
  end)
end)
