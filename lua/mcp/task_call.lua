--- mcp.task_call: follows one task a server runs for a tool call (the
--- client as requester) from its creation to its result: polls tasks/get
--- at the server's pollInterval, reports each status and message, answers
--- what the task asks for while it waits (input_required), and fetches the
--- result. One deadline covers it all; progress moves it, as it moves a
--- request's; a task that outlives it is cancelled with tasks/cancel.
--- The two eras differ in wire form only (ERAS below): 2025-11-25's
--- experimental tasks (tasks/result blocks and carries the server's
--- requests) and 2026-07-28's io.modelcontextprotocol/tasks extension (the
--- result and the input requests inline in tasks/get, answers through
--- tasks/update). It does not decide which calls become tasks (mcp.tasks).
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"

local M = {}

local TaskCall = {}
local TaskCall_mt = { __name = "mcp.TaskCall", __index = TaskCall }

M.STATUSES = { working = true, input_required = true, completed = true,
               failed = true, cancelled = true }
M.TERMINAL = { completed = true, failed = true, cancelled = true }

-- A server's pollInterval is advice: none means this, and whatever it
-- says is held between the two bounds, so that 0 cannot make us spin
-- and an hour cannot make a task outlive its deadline unseen.
local DEFAULT_POLL_MS, MIN_POLL_MS, MAX_POLL_MS = 1000, 100, 30000
local MAX_ID = 512            -- bytes in a task id
local MAX_MESSAGE = 4096      -- bytes of a statusMessage kept
local MAX_INPUT_KEYS = 256    -- input requests one task may make (2026-07-28)
local CANCEL_TIMEOUT = 5      -- seconds for the tasks/cancel sent on expiry

local function protocol_error(fmt, ...)
  return errors.new("EPROTO", fmt:format(...))
end

--- syntax: view, err = task_call.view(wire, era)
--- The Task a server sent, checked, as scripts see it in both eras: every
--- field the server sent, plus ttl and pollInterval (milliseconds; the
--- 2026-07-28 names are ttlMs and pollIntervalMs). nil, EPROTO for a task
--- without a usable taskId or with a status the specification lacks.
function M.view(wire, era)
  if type(wire) ~= "table" then return nil, protocol_error("the server's task is not an object") end
  local id = wire.taskId
  if type(id) ~= "string" or id == "" or #id > MAX_ID then
    return nil, protocol_error("the server's task has no valid taskId")
  end
  if not M.STATUSES[wire.status] then
    return nil, protocol_error("task %s has an unknown status %q", id, tostring(wire.status))
  end
  local v = {}
  for k, val in pairs(wire) do v[k] = val end
  if type(v.statusMessage) ~= "string" then
    v.statusMessage = nil
  elseif #v.statusMessage > MAX_MESSAGE then
    v.statusMessage = v.statusMessage:sub(1, MAX_MESSAGE)
  end
  if era == "modern" then
    v.ttl, v.pollInterval = wire.ttlMs, wire.pollIntervalMs
  end
  v.resultType = nil
  return v
end

local function poll_ms(view)
  local ms = view.pollInterval
  if type(ms) ~= "number" or ms ~= ms then return DEFAULT_POLL_MS end
  return math.max(MIN_POLL_MS, math.min(MAX_POLL_MS, math.floor(ms)))
end

-- ---- the two wire forms --------------------------------------------------------

local ERAS = {}

-- 2025-11-25: input_required means "call tasks/result now": it blocks
-- until the task ends and the server sends its requests (tagged with the
-- task) meanwhile, which the client's handlers answer like any other.
-- Its answer is the tool's result, or the error the call would have had.
ERAS.legacy = {
  input = function(call) call:_fetch_result() end,
  terminal = function(call, view)
    if view.status == "cancelled" then return call:_finish(nil, call:_cancelled_error()) end
    call:_fetch_result()
  end,
  cancel = function(client, id, timeout)
    return client:request("tasks/cancel", { taskId = id }, { timeout = timeout })
  end,
}

-- 2026-07-28: tasks/get carries what the task waits for (inputRequests,
-- answered once each with tasks/update) and, once it ended, its result
-- or its JSON-RPC error.
ERAS.modern = {
  input = function(call, view) call:_answer(view.inputRequests) end,
  terminal = function(call, view)
    if view.status == "completed" then
      if type(view.result) ~= "table" then
        return call:_finish(nil, protocol_error("task %s completed without a result", call.id))
      end
      return call:_finish(view.result)
    elseif view.status == "failed" then
      local e = view.error
      if type(e) == "table" and math.type(e.code) == "integer" then
        return call:_finish(nil, errors.new("ERPC", tostring(e.message),
          { rpc_code = e.code, data = e.data }))
      end
      -- T6: a failed task carries its JSON-RPC error; one without is the
      -- server's fault.
      return call:_finish(nil, protocol_error("task %s failed without an error%s", call.id,
        view.statusMessage and (": " .. view.statusMessage) or ""))
    end
    call:_finish(nil, call:_cancelled_error())
  end,
  cancel = function(client, id, timeout)
    return client:request("tasks/cancel", { taskId = id }, { timeout = timeout })
  end,
}

--- syntax: call = task_call.new(client, opts)
--- opts: era, tool (the tool's name, for error messages), on_status(task),
--- on_progress(params), timeout_ms, max_timeout_ms (as for a request),
--- check(result) -> result, err (the tool-result checks), started (loop ms),
--- on_created(call) once the task's id is known.
function M.new(client, opts)
  local started = opts.started or core.now()
  local timeout = opts.timeout_ms
  return setmetatable({
    client = client, era = opts.era, tool = opts.tool,
    on_status = opts.on_status, on_progress = opts.on_progress, check = opts.check,
    on_created = opts.on_created,
    timeout_ms = timeout,
    deadline = started + timeout,
    hard_deadline = started + (opts.max_timeout_ms or timeout * 10),
    id = false, task = false,
    _answered = {}, _answered_n = 0,
  }, TaskCall_mt)
end

function TaskCall:_cancelled_error()
  local msg = self.task and self.task.statusMessage
  return errors.new("ECANCELED", ("task %s was cancelled%s"):format(tostring(self.id),
    msg and (": " .. msg) or ""), { task = self.task or nil })
end

-- The outcome, once: result, or nil and err.
function TaskCall:_finish(res, err)
  if self.outcome then return end
  self.outcome = table.pack(res, err)
  self:_wake()
end

-- Sleeps up to ms, or until _wake (an outcome, a status notification)
-- or the client's close (its close waiters, called once the core closed).
function TaskCall:_sleep(ms)
  local timer, waker
  local waiters = self.client._close_waiters
  local _ <close> = setmetatable({}, { __close = function()
    if timer then timer:stop() end
    self._waker = nil
    -- Out of the list again, unless the close is going through it now
    -- (it took the list first): removing would make it skip the next.
    if self.client._close_waiters == waiters then
      for i = #waiters, 1, -1 do
        if waiters[i] == waker then table.remove(waiters, i) end
      end
    end
  end })
  task.await(function(done)
    waker = done
    self._waker = done
    waiters[#waiters + 1] = done
    timer = core.timer(ms, done)
    return true
  end)
end

-- The client was closed: no request may go out any more.
function TaskCall:_closed()
  return self.client._closing
end

function TaskCall:_wake()
  local done = self._waker
  if done then
    self._waker = nil
    done()
  end
end

--- A status the server told of (notifications/tasks/status or
--- notifications/tasks): taken at the next turn of the loop.
function TaskCall:notice(wire)
  local v = M.view(wire, self.era)
  if v and v.taskId == self.id and not M.TERMINAL[self.task.status] then
    self._noticed = v
    self:_wake()
  end
end

--- Progress for the call's token: the caller's on_progress, and the
--- deadline moves as a request's does, up to the hard deadline.
function TaskCall:progress(params)
  local now = core.now()
  if now < self.hard_deadline then
    self.deadline = math.min(now + self.timeout_ms, self.hard_deadline)
  end
  if self.on_progress then self.on_progress(params) end
end

-- Takes a fresh view of the task and reports it when its status or
-- message changed.
function TaskCall:_update(view)
  local last = self.task
  if last and M.TERMINAL[last.status] then return end  -- a terminal status never changes
  self.task = view
  if self.on_status and (not last or last.status ~= view.status
      or last.statusMessage ~= view.statusMessage) then
    self.on_status(view)
  end
end

-- 2025-11-25: starts tasks/result once; its answer ends the call.
function TaskCall:_fetch_result()
  if self._result_req then return end
  local req = self.client:_start("tasks/result", { taskId = self.id },
    { timeout = math.max(self.deadline - core.now(), 1) / 1000 })
  self._result_req = req
  task.spawn(function()
    local res, err = req:wait()
    if self.outcome then return end
    if res == nil and err.code == "ETIMEDOUT" then
      -- The loop decides on the deadline (progress may have moved it):
      -- input_required asks again.
      self._result_req = nil
      return
    end
    self:_finish(res, err)
  end)
end

-- 2026-07-28: answers the input requests not answered yet, side by side
-- (mcp.stateless' _answer_inputs), and sends them with tasks/update. A
-- request the person declined (or a handler's failure) ends the call.
function TaskCall:_answer(requests)
  if type(requests) ~= "table" then return end
  local fresh, n = {}, 0
  for key, req in pairs(requests) do
    if not self._answered[key] then
      fresh[key], n = req, n + 1
    end
  end
  if n == 0 then return end
  if self._answered_n + n > MAX_INPUT_KEYS then
    return self:_finish(nil, protocol_error("task %s asked for more than %d inputs",
      self.id, MAX_INPUT_KEYS))
  end
  local answers, err = self.client:_answer_inputs(fresh)
  if not answers then return self:_abandon(err) end
  for key in pairs(fresh) do self._answered[key] = true end
  self._answered_n = self._answered_n + n
  local ok
  ok, err = self.client:request("tasks/update", { taskId = self.id, inputResponses = answers },
    { timeout = math.max(self.deadline - core.now(), 1) / 1000 })
  if not ok then self:_abandon(err) end
end

-- tasks/get, its answer checked.
function TaskCall:_get()
  local res, err = self.client:request("tasks/get", { taskId = self.id },
    { timeout = math.max(self.deadline - core.now(), 1) / 1000 })
  if not res then return nil, err end
  local v
  v, err = M.view(res, self.era)
  if not v then return nil, err end
  if v.taskId ~= self.id then
    return nil, protocol_error("tasks/get for %s answered task %s", self.id, v.taskId)
  end
  return v
end

-- Sends tasks/cancel for a task that has not ended, without waiting for
-- the answer: the call that followed it is over.
function TaskCall:_cancel_quietly()
  if self.id and self.task and not M.TERMINAL[self.task.status] and not self:_closed() then
    local client, id, cancel = self.client, self.id, ERAS[self.era].cancel
    task.spawn(function() cancel(client, id, CANCEL_TIMEOUT) end)
  end
end

-- The call ends with err (an input the person declined, an update the
-- server refused): the task, which would wait for nothing, is cancelled.
function TaskCall:_abandon(err)
  self:_cancel_quietly()
  self:_finish(nil, err)
end

-- The deadline passed: the task is cancelled and the call fails.
function TaskCall:_expire()
  self:_cancel_quietly()
  return nil, errors.new("ETIMEDOUT", ("task %s of tool '%s' did not finish in time")
    :format(tostring(self.id), tostring(self.tool)), { task = self.task or nil })
end

--- syntax: result, err = call:follow(created)
--- Follows the task the server created (created: its Task, wire form) to
--- its end, in the calling task. Returns the tool's result (checked), or
--- nil and an mcp.error.
function TaskCall:follow(created)
  local view, err = M.view(created, self.era)
  if not view then return nil, err end
  self.id = view.taskId
  if self.on_created then self.on_created(self) end
  self:_update(view)
  local era = ERAS[self.era]
  -- However the call ends, a tasks/result still out is not waited for.
  local _ <close> = setmetatable({}, { __close = function()
    local req = self._result_req
    if req and not req:done() and not self:_closed() then req:cancel() end
  end })
  local tick = false     -- the poll timer ran out (not a wake)
  while true do
    if self:_closed() then
      return nil, errors.new("ECLOSED", ("the client was closed while task %s ran"):format(self.id))
    end
    if self._noticed then
      self:_update(self._noticed)
      self._noticed = nil
    elseif tick then
      view, err = self:_get()
      if not view then
        if self.outcome then break end
        if err.code == "ETIMEDOUT" or core.now() >= self.deadline then return self:_expire() end
        return nil, err
      end
      self:_update(view)
    end
    local status = self.task.status
    if M.TERMINAL[status] then
      era.terminal(self, self.task)
    elseif status == "input_required" then
      era.input(self, self.task)
    end
    if self.outcome then break end
    local left = self.deadline - core.now()
    if left <= 0 then return self:_expire() end
    self:_sleep(math.min(poll_ms(self.task), left))
    if self.outcome then break end
    -- Woken by a notification: its status is taken without a poll.
    tick = self._noticed == nil
    if core.now() >= self.deadline then return self:_expire() end
  end
  local res
  res, err = self.outcome[1], self.outcome[2]
  if res == nil then return nil, err end
  if not M.TERMINAL[self.task.status] then
    -- tasks/result came back before a poll saw the end: one more look,
    -- so that the final status is reported too.
    view = self:_get()
    if view then self:_update(view) end
  end
  if self.check then return self.check(res) end
  return res
end

M.TaskCall = TaskCall
return M
