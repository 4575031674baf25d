--- mcp.task: tasks (coroutines) over the event loop of mcp.core. It turns
--- callback-style core operations into waiting calls, and runs the loop
--- until every task is done. It knows nothing of MCP.
local core = require "mcp.core"

local M = {}

local tasks = {}        -- live coroutine -> true
local live = 0          -- how many, but for the background ones
local background = {}   -- tasks that do not keep mcp.run going

-- A task that ended or was closed.
local function forget(co)
  tasks[co] = nil
  if background[co] then background[co] = nil else live = live - 1 end
end
local failure = nil     -- the first task error, with its traceback
local running = false   -- inside M.run

-- Where a task that fails outside mcp.run is reported (no run is there to
-- raise it): stderr unless mcp.on_error says otherwise.
local function default_on_error(traceback)
  io.stderr:write("mcp: a task failed: ", traceback, "\n")
end
local on_error = default_on_error

local function record_failure(co, err)
  local traceback = debug.traceback(co, tostring(err))
  if not running then
    on_error(traceback, err)
  elseif not failure then
    failure = { err = err, traceback = traceback }
  end
end

--- syntax: mcp.on_error(fn)
--- fn(traceback, err) hears of every task that fails outside mcp.run
--- (inside it, the first failure ends the run and is raised). nil restores
--- the default, which writes the traceback to stderr.
function M.on_error(fn)
  if fn ~= nil and type(fn) ~= "function" then
    error("bad argument #1 to 'on_error' (function or nil expected)", 2)
  end
  on_error = fn or default_on_error
end

-- What a task's body returns when it ends, so that resume knows a task
-- ended without asking coroutine.status (it runs on every resume).
local ENDED = {}

--- Resumes co with the values; a task that ends is forgotten, a task that
--- fails is recorded (mcp.run raises it) and closed, so its <close>
--- variables run. Resuming a task that is gone is a no-op: a late callback
--- of a closed task must not revive it.
function M.resume(co, ...)
  if not tasks[co] then return end
  local ok, err = coroutine.resume(co, ...)
  if not ok or err == ENDED then
    forget(co)
    if not ok then
      record_failure(co, err)
      coroutine.close(co)
    end
  end
end

-- Starts fn(...) as a task, counted in live unless in the background.
local function start(fname, in_background, fn, ...)
  if type(fn) ~= "function" then
    error(("bad argument #1 to '%s' (function expected)"):format(fname), 3)
  end
  local co = coroutine.create(function(...)
    fn(...)
    return ENDED
  end)
  tasks[co] = true
  if in_background then background[co] = true else live = live + 1 end
  M.resume(co, ...)
  return co
end

--- syntax: co = mcp.spawn(fn, ...)
--- Starts fn(...) as a new task at once; it runs until it first waits.
function M.spawn(fn, ...)
  return start("spawn", false, fn, ...)
end

--- syntax: co = task.spawn_background(fn, ...)
--- As spawn, for a task that serves the others and ends with what it
--- serves (a client's subscriptions/listen): mcp.run does not wait for it,
--- and closes it where it waits when the other tasks are done.
function M.spawn_background(fn, ...)
  return start("spawn_background", true, fn, ...)
end

--- syntax: ... = task.await(start)
--- Suspends the running task until start(done) calls done(...), and
--- returns those values. start returns a truthy value, or nil and an error
--- when the operation could not start (then nothing will call done, and
--- await returns nil, err).
function M.await(start)
  local co, is_main = coroutine.running()
  if is_main or not tasks[co] then
    error("mcp: this call waits; run it inside mcp.run() or mcp.spawn()", 3)
  end
  local state, early = "starting", nil
  local ok, err = start(function(...)
    if state == "waiting" then
      state = "done"
      M.resume(co, ...)
    elseif state == "starting" then   -- finished before we yielded
      state, early = "done", table.pack(...)
    end
  end)
  if not ok then
    state = "failed"
    return nil, err
  end
  if state == "done" then return table.unpack(early, 1, early.n) end
  state = "waiting"
  return coroutine.yield()
end

--- syntax: stopped = task.kill(co)
--- Stops a task where it waits: its <close> variables run, and whatever
--- it was waiting for will not resume it. Returns false for a task that is
--- not waiting (finished, or the one running).
function M.kill(co)
  if not tasks[co] or coroutine.status(co) ~= "suspended" then return false end
  forget(co)
  coroutine.close(co)
  return true
end

--- syntax: co = task.current() -- the running task; raises outside one.
--- For waiting primitives that yield and are resumed with task.resume
--- themselves (the fast path of a request's wait).
function M.current()
  local co, is_main = coroutine.running()
  if is_main or not tasks[co] then
    error("mcp: this call waits; run it inside mcp.run() or mcp.spawn()", 3)
  end
  return co
end

--- True inside a task that may wait.
function M.in_task()
  local co, is_main = coroutine.running()
  return not is_main and tasks[co] == true
end

--- syntax: mcp.sleep(seconds)
function M.sleep(seconds)
  if type(seconds) ~= "number" or seconds < 0 then
    error("bad argument #1 to 'sleep' (non-negative number expected)", 2)
  end
  local timer
  -- A task closed while asleep (mcp.run ending early) stops its timer.
  local _ <close> = setmetatable({}, { __close = function()
    if timer then timer:stop() end
  end })
  return M.await(function(done)
    timer = core.timer(seconds * 1000, done)
    return timer
  end)
end

--- syntax: outcomes, timed_out = task.all(jobs, deadline?, on_deadline?)
--- Runs every job (a function) in a task of its own and waits until all
--- have returned or the deadline (core.now() milliseconds; nil: none)
--- passes. outcomes[i] is what job i returned (a table.pack); timed_out is
--- true when the deadline cut the wait short: on_deadline() runs first
--- then (to cancel requests cleanly), and the jobs still running are
--- killed (also when the caller's own task is killed while it waits). A
--- job that raises makes this raise, in the caller's task.
function M.all(jobs, deadline, on_deadline)
  local outcomes, failures, tasks = {}, {}, {}
  local left = #jobs
  local timer
  local _ <close> = setmetatable({}, { __close = function()
    if timer then timer:stop() end
    for _, co in ipairs(tasks) do M.kill(co) end
  end })
  local timed_out = false
  if left > 0 then
    timed_out = M.await(function(done)
      for i, job in ipairs(jobs) do
        tasks[i] = M.spawn(function()
          local packed = table.pack(pcall(job))
          if packed[1] then
            outcomes[i] = table.pack(table.unpack(packed, 2, packed.n))
          else
            failures[#failures + 1] = packed[2]
          end
          left = left - 1
          if left == 0 then done(false) end
        end)
      end
      if left > 0 and deadline then
        timer = core.timer(math.max(0, deadline - core.now()), function() done(true) end)
      end
      return true
    end)
  end
  if timed_out and on_deadline then on_deadline() end
  if failures[1] ~= nil then error(failures[1], 0) end
  return outcomes, timed_out
end

-- Hooks run when the last task has ended (or one failed), before the loop
-- is drained: client.lua closes the connections left open.
local at_end = {}
function M.at_end(fn) at_end[#at_end + 1] = fn end

local function drain()
  for co in pairs(tasks) do
    forget(co)
    coroutine.close(co)
  end
  for _, fn in ipairs(at_end) do fn() end
  core.run("default")
end

--- syntax: ok, ... = mcp.prun(fn, ...)
--- Runs fn as the first task and the loop until every task has ended and
--- every handle is closed. Returns true and fn's results, or false and the
--- first task error (with its traceback) when any task failed. Inside a
--- task of a loop that already runs (a script of `luamcp run`), fn runs
--- in that task, as a protected call.
function M.prun(fn, ...)
  if running and M.in_task() then
    local err_obj
    local res = table.pack(xpcall(fn, function(err)
      err_obj = err
      return debug.traceback(tostring(err), 2)
    end, ...))
    if not res[1] then return false, res[2], err_obj end
    return table.unpack(res, 1, res.n)
  elseif running then
    error("mcp.run: the loop is already running (use mcp.spawn)", 2)
  end
  running, failure = true, nil
  local results
  M.spawn(function(...) results = table.pack(fn(...)) end, ...)
  local ok, loop_err = pcall(function()
    while live > 0 and not failure do
      local alive = core.run("once")
      if not alive and live > 0 and not failure then
        failure = { traceback = ("mcp.run: %d task(s) wait for something "
          .. "that can never happen"):format(live) }
      end
    end
  end)
  local drained, drain_err = pcall(drain)
  running = false
  if not ok then return false, loop_err end
  if failure then return false, failure.traceback, failure.err end
  if not drained then return false, drain_err end
  return true, table.unpack(results or {}, 1, results and results.n or 0)
end

--- syntax: task.interrupt(message)
--- Ends the running mcp.run as a failure with message: its tasks are
--- closed where they wait (their <close> variables run), and the
--- connections left open are closed, servers shut down, before it
--- returns. No-op outside mcp.run or once a task has failed.
function M.interrupt(message)
  if running and not failure then
    failure = { err = message, traceback = message }
  end
end

--- syntax: ... = mcp.run(fn, ...)
--- As prun, but raises the first task error.
function M.run(fn, ...)
  local res = table.pack(M.prun(fn, ...))
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

return M
