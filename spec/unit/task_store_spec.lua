-- The pieces of tasks that need no server: the task store of the client
-- as receiver (ids, caps, ttl, pages, outcomes) and the view of a
-- server's Task (what is refused, what both eras are given).
local mcp = require "mcp"
local task_store = require "mcp.task_store"
local task_call = require "mcp.task_call"

describe("mcp.task_store", function()
  it("makes working tasks with random ids, the ttl held to its cap", function()
    local store = task_store.new{ max_ttl = 1000 }
    local a, b = assert(store:create(500)), assert(store:create(5000))
    assert.matches("^[%w_-]+$", a.task.taskId)
    assert.equal(22, #a.task.taskId)          -- 16 random bytes, base64url
    assert.are_not.equal(a.task.taskId, b.task.taskId)
    assert.equal("working", a.task.status)
    assert.equal(500, a.task.ttl)
    assert.equal(1000, b.task.ttl)
    assert.equal(1000, assert(store:create()).task.ttl)
    assert.matches("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$", a.task.createdAt)
    assert.equal(a, store:get(a.task.taskId))
    assert.is_nil(store:get("nope"))
  end)

  it("caps the tasks that run at once; ended ones do not count", function()
    local store = task_store.new{ max_tasks = 2 }
    local a = assert(store:create())
    assert(store:create())
    local none, why = store:create()
    assert.is_nil(none)
    assert.matches("more than 2 tasks", why)
    store:finish(a, { ok = true })
    assert(store:create())
  end)

  it("keeps max_kept tasks at most, forgetting the oldest finished ones", function()
    local store = task_store.new{ max_kept = 3 }
    local first = assert(store:create())
    local ids = { first.task.taskId }
    store:finish(first, { n = 0 })
    local running = assert(store:create())          -- never finishes
    for i = 1, 10 do
      local e = assert(store:create())
      store:finish(e, { n = i })
      ids[#ids + 1] = e.task.taskId
    end
    assert.is_nil(store:get(ids[1]))               -- the oldest finished: gone
    assert.equal(running, store:get(running.task.taskId))   -- a running one stays
    assert.is_table(store:get(ids[#ids]))
    local n = 0
    for _ in pairs(store._tasks) do n = n + 1 end
    assert.is_true(n <= 3, n .. " tasks kept")
  end)

  it("settles a task once, telling whoever waits, and never changes it again", function()
    local store = task_store.new()
    local e = assert(store:create())
    local heard = {}
    store:on_settled(e, function(x) heard[#heard + 1] = x.task.status end)
    assert.is_true(store:finish(e, { n = 1 }))
    assert.is_false(store:cancel(e, "late"))
    assert.is_false(store:fail(e, "late"))
    assert.equal("completed", e.task.status)
    assert.same({ n = 1 }, e.result)
    store:on_settled(e, function(x) heard[#heard + 1] = x.task.status end)
    assert.same({ "completed", "completed" }, heard)
  end)

  it("pages its tasks with cursors of its own, and refuses others", function()
    local store = task_store.new{ page_size = 2 }
    local ids = {}
    for i = 1, 5 do ids[i] = assert(store:create()).task.taskId end
    local got, cursor = {}, nil
    repeat
      local page
      page, cursor = store:page(cursor)
      for _, t in ipairs(page) do got[#got + 1] = t.taskId end
    until cursor == nil
    assert.same(ids, got)
    assert.is_nil(store:page("p99"))
    assert.is_nil(store:page("bogus"))
    assert.is_nil(store:page(7))
  end)

  it("forgets a task once its ttl has passed, telling its on_expire", function()
    run_async(function()
      local store = task_store.new()
      local e = assert(store:create(1))
      local expired = false
      e.on_expire = function() expired = true end
      mcp.sleep(0.005)           -- the time that is under test
      assert.is_nil(store:get(e.task.taskId))
      assert.is_true(expired)
    end)
  end)
end)

describe("a server's Task, as task_call.view takes it", function()
  it("refuses a task without a usable id or with an unknown status", function()
    for _, bad in ipairs{ "x", { status = "working" }, { taskId = 42, status = "working" },
                          { taskId = "", status = "working" },
                          { taskId = ("x"):rep(513), status = "working" },
                          { taskId = "t", status = "paused" }, { taskId = "t" } } do
      local v, err = task_call.view(bad, "legacy")
      assert.is_nil(v)
      assert.equal("EPROTO", err.code)
    end
  end)

  it("gives both eras ttl and pollInterval, drops a statusMessage that is no string", function()
    local v = assert(task_call.view({ taskId = "t", status = "working", ttlMs = 5, pollIntervalMs = 7,
      statusMessage = 12, resultType = "task" }, "modern"))
    assert.equal(5, v.ttl)
    assert.equal(7, v.pollInterval)
    assert.is_nil(v.statusMessage)
    assert.is_nil(v.resultType)
    v = assert(task_call.view({ taskId = "t", status = "completed", ttl = mcp.null,
      statusMessage = ("m"):rep(10000) }, "legacy"))
    assert.equal(mcp.null, v.ttl)
    assert.equal(4096, #v.statusMessage)
  end)
end)
