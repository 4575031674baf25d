-- Tasks over the loop: run, spawn, sleep, await's edge cases, failures.
local mcp = require "mcp"
local task = require "mcp.task"
local core = require "mcp.core"

describe("tasks", function()
  it("returns the main function's results", function()
    assert.same({ 1, "two" }, { mcp.run(function() return 1, "two" end) })
  end)

  it("runs spawned tasks concurrently and waits for all of them", function()
    local order = {}
    mcp.run(function()
      mcp.spawn(function() mcp.sleep(0.05); order[#order + 1] = "slow" end)
      mcp.spawn(function() mcp.sleep(0.01); order[#order + 1] = "fast" end)
      order[#order + 1] = "main"
    end)
    assert.same({ "main", "fast", "slow" }, order)
  end)

  it("sleeps at least as long as asked", function()
    local elapsed = mcp.run(function()
      local t0 = core.now()
      mcp.sleep(0.05)
      return core.now() - t0
    end)
    assert.is_true(elapsed >= 45, "slept " .. elapsed .. " ms")
  end)

  it("handles a callback that fires before the task yields", function()
    local a, b = mcp.run(function()
      return task.await(function(done) done("now", 2); return true end)
    end)
    assert.equal("now", a)
    assert.equal(2, b)
  end)

  it("returns nil, err when the operation cannot start", function()
    local v, err = mcp.run(function()
      return task.await(function() return nil, "no" end)
    end)
    assert.is_nil(v)
    assert.equal("no", err)
  end)

  it("reports a failing task with its traceback", function()
    local ok, err = mcp.prun(function()
      mcp.spawn(function() mcp.sleep(0.01); error("boom in a task") end)
      mcp.sleep(1)
    end)
    assert.is_false(ok)
    assert.matches("boom in a task", err)
    assert.matches("stack traceback", err)
  end)

  it("raises when a waiting call is made outside a task", function()
    assert.has_error(function() mcp.sleep(0.01) end,
      "mcp: this call waits; run it inside mcp.run() or mcp.spawn()")
  end)

  it("detects tasks that can never be woken", function()
    local ok, err = mcp.prun(function()
      task.await(function() return true end)   -- nothing will call done
    end)
    assert.is_false(ok)
    assert.matches("can never happen", err)
  end)

  it("refuses to nest mcp.run", function()
    local ok, err = mcp.prun(function() mcp.run(function() end) end)
    assert.is_false(ok)
    assert.matches("already running", err)
  end)
end)
