-- spec/helper.lua - loaded by busted before the specs: module paths, and
-- run_async(), which runs a test body as an mcp task with a watchdog and
-- then checks that nothing was left running.
package.path = "./lua/?.lua;./lua/?/init.lua;./?.lua;" .. package.path
-- MCP_BUILD_DIR picks the build under test (make check-asan: build-asan).
package.cpath = (os.getenv("MCP_BUILD_DIR") or "build") .. "/?.so;"
  .. package.cpath

local mcp = require "mcp"
local core = require "mcp.core"

TEST_TIMEOUT = 20   -- seconds

--- syntax: ... = run_async(fn, timeout?)
--- Runs fn as the first task of mcp.run, fails the test if it raises or
--- takes longer than timeout, and afterwards if any libuv handle (a timer,
--- a pipe, a child process) is still active.
function run_async(fn, timeout)
  local timed_out = false
  local results = table.pack(mcp.prun(function()
    -- <close>: a failing test must not leave the watchdog running.
    local watchdog <close> = core.timer((timeout or TEST_TIMEOUT) * 1000, function()
      timed_out = true
      error(("test did not finish within %ss"):format(timeout or TEST_TIMEOUT))
    end)
    local r = table.pack(fn())
    watchdog:stop()
    return table.unpack(r, 1, r.n)
  end))
  collectgarbage()
  collectgarbage()
  if not results[1] then
    error(results[2], 0)
  end
  assert(not timed_out, "test timed out")
  assert(not core.alive(), "a handle was left active after the test")
  return table.unpack(results, 2, results.n)
end
