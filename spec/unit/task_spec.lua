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

  -- Issue 12: the README's first example, pasted into a script that
  -- `luamcp run` runs as a task, calls mcp.run inside the running loop.
  it("runs a nested mcp.run in the current task, waits included", function()
    local a, b = mcp.run(function()
      local x = mcp.run(function() mcp.sleep(0.01); return "inner" end)
      return x, coroutine.running()
    end)
    assert.equal("inner", a)
    assert.equal("thread", type(b))
    local ok, inner_ok, traceback, obj = mcp.prun(function()
      return mcp.prun(function() error(setmetatable({ code = "X" },
        { __tostring = function() return "X!" end })) end)
    end)
    assert.is_true(ok)          -- the outer run: the inner one caught it
    assert.is_false(inner_ok)
    assert.matches("X!", traceback, 1, true)
    assert.equal("X", obj.code)
    assert.has_error(function() mcp.run(function() error("raised") end) end)
  end)

  it("refuses mcp.run from a callback of the running loop (not a task)", function()
    local ok, err = mcp.prun(function()
      local inner_ok, inner_err
      task.await(function(done)
        return core.timer(1, function()
          inner_ok, inner_err = pcall(mcp.run, function() end)
          done()
        end)
      end)
      return inner_ok, inner_err
    end)
    assert.is_true(ok)
    assert.is_false(err)
  end)

  -- Issue 12: a task spawned outside mcp.run that raises was lost silently.
  it("reports a task that fails outside mcp.run to mcp.on_error", function()
    local seen = {}
    mcp.on_error(function(traceback, err) seen[#seen + 1] = { traceback, err } end)
    mcp.spawn(function() error("lost?") end)
    mcp.on_error(nil)
    assert.equal(1, #seen)
    assert.matches("lost%?", seen[1][1])
    assert.matches("stack traceback", seen[1][1])
    assert.has_error(function() mcp.on_error(42) end)
  end)

  it("writes a task that fails outside mcp.run to stderr by default", function()
    -- MCP_LUA: a lua5.4 that can load this build's mcp.core (make check-asan).
    local p = assert(io.popen((os.getenv("MCP_LUA") or "lua5.4") .. [[ -e 'package.path="./lua/?.lua;./lua/?/init.lua;"..package.path
      package.cpath="./]] .. (os.getenv("MCP_BUILD_DIR") or "build") .. [[/?.so;"..package.cpath
      local mcp = require "mcp"; mcp.spawn(function() error("to stderr") end)' 2>&1]]))
    local out = p:read("a")
    p:close()
    assert.matches("mcp: a task failed: .*to stderr", out)
  end)
end)

describe("a timer started after Lua ran outside the loop for a while", function()
  it("counts its delay from now, not from the loop's last look at the clock", function()
    local core = require "mcp.core"
    local mcp = require "mcp"
    local t0
    mcp.run(function() t0 = core.now() end)   -- the loop's clock is read here
    -- Lua works outside the loop for 300 ms of CPU time (core.now would
    -- read the clock for the loop: os.clock does not).
    local until_s = os.clock() + 0.3
    while os.clock() < until_s do end
    local slept
    mcp.run(function()
      mcp.sleep(0.2)
      slept = core.now() - t0
    end)
    -- 300 ms of work, then 200 ms asleep; a sleep counted from the old
    -- clock would end at once, at about 300.
    assert.is_true(slept >= 490, "slept " .. slept .. " ms after t0")
  end)
end)

describe("task.all", function()
  local core = require "mcp.core"
  local mcp = require "mcp"
  local task = require "mcp.task"

  it("runs the jobs side by side and gives what each returned", function()
    local outcomes, timed_out, took
    mcp.run(function()
      local t0 = core.now()
      outcomes, timed_out = task.all{
        function() mcp.sleep(0.2) return "a", 1 end,
        function() mcp.sleep(0.2) return "b" end,
      }
      took = core.now() - t0
    end)
    assert.is_false(timed_out)
    assert.same({ "a", 1, n = 2 }, outcomes[1])
    assert.same({ "b", n = 1 }, outcomes[2])
    assert.is_true(took < 390, "took " .. took .. " ms: not side by side")
  end)

  it("stops the jobs still running at the deadline, after on_deadline", function()
    local outcomes, timed_out, order = nil, nil, {}
    mcp.run(function()
      outcomes, timed_out = task.all({
        function() return "quick" end,
        function()
          local _ <close> = setmetatable({}, { __close = function() order[#order + 1] = "killed" end })
          mcp.sleep(30)
          order[#order + 1] = "woke"
        end,
      }, core.now() + 100, function() order[#order + 1] = "on_deadline" end)
    end)
    assert.is_true(timed_out)
    assert.equal("quick", outcomes[1][1])
    assert.is_nil(outcomes[2])
    assert.same({ "on_deadline", "killed" }, order)
  end)

  it("raises a job's error in the caller's task", function()
    local ok, err = mcp.prun(function()
      task.all{ function() error("job failed", 0) end }
    end)
    assert.is_false(ok)
    assert.matches("job failed", err)
  end)
end)
