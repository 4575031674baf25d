--- mcp.task_handle: the handle start_tool gives for a call that is, or
--- may become, a task: { task = true }, a 2025-11-25 tool that requires
--- one, and every call of 2026-07-28 (where the server decides, and may
--- ask for input first). The call runs in a Lua task of its own as
--- call_tool runs it (input_required answered, a task followed, the result
--- checked), each request through a request handle, so that cancel reaches
--- what is in flight: the request itself (notifications/cancelled), or the
--- server's task once there is one (tasks/cancel, never the other, K12/T11).
--- The handle has a request handle's wait, cancel and done, and status.
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"

local M = {}

local Handle = {}
local Handle_mt = { __name = "mcp.TaskHandle", __index = Handle }

local function cancelled(reason)
  return errors.new("ECANCELED", "request cancelled: " .. (reason or "cancelled by the client"))
end

-- The tool list, as call_tool fetches it first (for the schemas and
-- taskSupport); only a lost connection or a timeout is the call's error.
local function list_first(self, o)
  if self.tools_by_name ~= nil or self._listing_failed
      or self:_require("tools/list", "tools") ~= nil then
    return true
  end
  local listed, err = self:list_tools(o.timeout and { timeout = o.timeout } or nil)
  if listed then return true end
  if err.code == "ECLOSED" or err.code == "ETIMEDOUT" then return nil, err end
  self._listing_failed = true
  return true
end

-- The call behind handle h: call_tool's steps, each request a handle's.
local function run(self, h, name, args, o)
  local ok, err = list_first(self, o)
  if not ok then return nil, err end
  -- What call_tool refuses before sending, refused here too.
  local refused = self:_tool_call_refusal(name, o)
  if refused then return nil, refused end
  local as_task = self:_calls_as_task(name, o)
  h._as_task = as_task
  local call = self:_new_task_call(name, o, core.now())
  local input_schema = self:_call_schemas(name, o)
  local params = { name = name, arguments = args or {} }
  if as_task then
    params.task = { ttl = type(o.task) == "table" and o.task.ttl or nil }
  end
  local first_id
  local function ask(p)
    if h._cancel_asked and not as_task then return nil, cancelled(h._cancel_reason) end
    local req = self:_start("tools/call", p, {
      timeout = math.max(call.deadline - core.now(), 1) / 1000,
      max_timeout = o.max_timeout,
      on_progress = o.on_progress and function(params_) call:progress(params_) end,
    }, input_schema)
    first_id = first_id or req.id
    h._req = req
    local res, rerr = req:wait()
    h._req = nil
    if rerr and rerr.code == "ESCHEMA" and not req.id then
      self:_explain_arguments_error(name, rerr)
    end
    return res, rerr
  end
  local res
  res, err = ask(params)
  if not res then return nil, err end
  if self.era == "modern" then
    res, err = self:_stateless_result("tools/call", params, res, ask)
    if not res then return nil, err end
    if res.resultType == "task" then return self:_follow_task_call(call, res, nil) end
  elseif as_task and type(res.task) == "table" then
    return self:_follow_task_call(call, res.task, first_id)
  end
  return call.check(res)
end

--- syntax: handle = task_handle.start(client, name, args, opts)
--- The call starts at once, in a Lua task of its own. handle.task_id is
--- the server's task's id (false until it named one), handle.task the
--- last status seen (false when none came).
function M.start(self, name, args, opts)
  local h = setmetatable({ client = self, method = "tools/call", tool = name,
                           task_id = false, task = false,
                           _waiters = {}, _id_waiters = {} }, Handle_mt)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  local on_status = o.on_status
  o.on_status = function(t)
    h.task = t
    if on_status then on_status(t) end
  end
  o._on_call = function(call)       -- the server named the task
    h._call, h.task_id = call, call.id
    h:_named()
    if h._cancel_asked then h:_send_cancel() end
  end
  task.spawn(function()
    local res, err = run(self, h, name, args, o)
    h.outcome = table.pack(res, err)
    h:_named()
    local waiters = h._waiters
    h._waiters = {}
    for _, done in ipairs(waiters) do done(res, err) end
  end)
  return h
end

-- The server named the task, or the call ended without one.
function Handle:_named()
  local waiters = self._id_waiters
  self._id_waiters = {}
  for _, done in ipairs(waiters) do done() end
end

--- syntax: result, err = handle:wait()
--- The tool's result once the call ended (at once if it has). Several
--- tasks may wait on one handle.
function Handle:wait()
  if self.outcome then return self.outcome[1], self.outcome[2] end
  return task.await(function(done)
    self._waiters[#self._waiters + 1] = done
    return true
  end)
end

--- True once the outcome is known.
function Handle:done()
  return self.outcome ~= nil
end

-- tasks/cancel; a task the server refused to cancel (it had ended:
-- -32602) goes on to its outcome.
function Handle:_send_cancel()
  local call = self._call
  local ok, err = self.client:cancel_task(self.task_id)
  if not ok then return nil, err end
  if type(ok) == "table" then call:_update(ok) end   -- the cancelled Task (2025-11-25)
  call:_finish(nil, call:_cancelled_error())
  return true
end

--- syntax: ok, err = handle:cancel(reason?)
--- Cancels the call: its server task with tasks/cancel once there is one
--- (wait then gives ECANCELED), else the request in flight with
--- notifications/cancelled (a 2025-11-25 task being created is cancelled
--- with tasks/cancel as soon as the server names it). false when the
--- call had ended.
function Handle:cancel(reason)
  if self.outcome then return false end
  local call = self._call
  if call and call.id then
    -- tasks/cancel is a round trip: it goes in a task of its own, so that
    -- cancel returns at once, from a callback too.
    task.spawn(function() self:_send_cancel() end)
    return true
  end
  self._cancel_asked, self._cancel_reason = true, reason
  local req = self._req
  if req and not self._as_task then req:cancel(reason) end
  return true
end

--- syntax: task, err = handle:status(opts?)
--- The task as the server says it is now (tasks/get), once the server
--- created it (waited for); after the call ended, the last status seen
--- (handle.task: false when the server ran the call without a task).
function Handle:status(opts)
  if not self.task_id and not self.outcome then
    task.await(function(done)
      self._id_waiters[#self._id_waiters + 1] = done
      return true
    end)
  end
  local id = self.task_id
  if not id or self.outcome then return self.task end
  local t, err = self.client:get_task(id, opts)
  if not t then return nil, err end
  self.task = t
  return t
end

M.Handle = Handle
return M
