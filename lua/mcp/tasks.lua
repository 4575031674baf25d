--- mcp.tasks: tool calls that a server runs as tasks (the client as
--- requester), as a part of the Client. It decides which calls become
--- tasks, checks their results, gives scripts the tasks another process
--- started (get_task, wait_task, cancel_task, list_tasks), and routes the
--- notifications that concern them. Following one task to its end is
--- mcp.task_call's job; start_tool's handles are mcp.task_handle's;
--- answering a server's own task-augmented requests is mcp.task_receiver's.
---
--- 2025-11-25: a tool whose execution.taskSupport is "required" is always
--- called as a task, an "optional" one when the call asks ({ task = true }
--- or { task = { ttl = ms } }), and only when the server declared
--- tasks.requests.tools.call. 2026-07-28: the client declares the
--- io.modelcontextprotocol/tasks extension and the server decides, call by
--- call; either way call_tool returns the tool's result.
local core = require "mcp.core"
local errors = require "mcp.errors"
local task_call = require "mcp.task_call"
local task_handle = require "mcp.task_handle"

local Client = {}
local routes = {}

local EXTENSION = "io.modelcontextprotocol/tasks"

local function on_connect(self)
  self._task_calls = {}              -- task id -> TaskCall being followed
  self._task_tokens = {}             -- progress token -> TaskCall
end

-- The 2026-07-28 extension, declared on every request: a call may then
-- come back as a task, which call_tool follows. (The core keeps the
-- 2025-11-25 "tasks" capability, the receiver's, out of that era.)
local function add_capabilities(_, caps)
  caps.extensions = caps.extensions or {}
  caps.extensions[EXTENSION] = {}
end

local function seconds_opt(opts, key)
  local s = opts and opts[key]
  if s == nil then return nil end
  if type(s) ~= "number" or s <= 0 then
    error(("bad option '%s' (positive number of seconds expected)"):format(key), 4)
  end
  return math.ceil(s * 1000)
end

local function check_task_opts(opts)
  if opts == nil then return end
  local t = opts.task
  if t ~= nil and t ~= true and t ~= false and (type(t) ~= "table"
      or (t.ttl ~= nil and math.type(t.ttl) ~= "integer")) then
    error("bad option 'task' (true or { ttl = milliseconds } expected)", 4)
  end
  if opts.on_status ~= nil and type(opts.on_status) ~= "function" then
    error("bad option 'on_status' (function expected)", 4)
  end
end

-- The server's 2025-11-25 tasks capability at a path, or nil.
local function server_tasks(self, a, b)
  local t = type(self.capabilities) == "table" and self.capabilities.tasks
  if type(t) ~= "table" then return nil end
  local v = t[a]
  if b ~= nil then v = type(v) == "table" and v[b] or nil end
  return v
end

--- syntax: yes = client:_calls_as_task(name, opts)
--- Whether a 2025-11-25 call of tool `name` goes out as a task (K6). The
--- tool's taskSupport is in the tool list, which is fetched first when
--- the client has none and the server could run tasks.
function Client:_calls_as_task(name, opts)
  if self.era == "modern" then return false end
  local tools = server_tasks(self, "requests", "tools")
  if type(tools) ~= "table" or tools.call == nil then return false end
  if self.tools_by_name == nil and not self._listing_failed then
    if not self:list_tools(opts and opts.timeout and { timeout = opts.timeout } or nil) then
      self._listing_failed = true
    end
  end
  local tool = self.tools_by_name and self.tools_by_name[name]
  local execution = tool and tool.execution
  local support = type(execution) == "table" and execution.taskSupport or nil
  if support == "required" then return true end
  return support == "optional" and opts ~= nil and (opts.task or false) ~= false
end

-- The checks of a tool's result that call_tool makes on a plain call
-- (the core makes them there, on the JSON received): structuredContent
-- against the outputSchema, unless isError.
local function result_checker(self, name, opts)
  local _, output = self:_call_schemas(name, opts)
  return function(res)
    if type(res) ~= "table" then
      return nil, errors.new("EPROTO", ("tool '%s': the task's result is not an object"):format(name))
    end
    if not output or res.isError == true then return res end
    local err
    if res.structuredContent == nil then
      err = errors.new("ESCHEMA", "no structuredContent", { result = res })
    else
      local ok
      ok, err = output:validate(res.structuredContent)
      if ok then return res end
      err.result = res
    end
    return nil, self:_explain_result_error(name, err)
  end
end

local function new_call(self, name, opts, started)
  local timeout = seconds_opt(opts, "timeout") or self._timeout
  return task_call.new(self, {
    era = self.era, tool = name, started = started,
    on_status = opts and opts.on_status, on_progress = opts and opts.on_progress,
    timeout_ms = timeout, max_timeout_ms = seconds_opt(opts, "max_timeout"),
    check = result_checker(self, name, opts),
    on_created = opts and opts._on_call,   -- start_tool's handle
  })
end

-- Follows call's task from created (its wire form) to the end, known to
-- the notification routes meanwhile.
-- (2026-07-28: the listen asks for the notifications of the tasks
-- followed, mcp.listen, while polling goes on.)
local function follow(self, call, created, token)
  local id = type(created) == "table" and created.taskId
  if type(id) == "string" then
    self._task_calls[id] = call
    self:_listen_update()
  end
  if token then self._task_tokens[token] = call end
  local _ <close> = setmetatable({}, { __close = function()
    if type(id) == "string" and self._task_calls[id] == call then
      self._task_calls[id] = nil
      self:_listen_update()
    end
    if token then self._task_tokens[token] = nil end
  end })
  return call:follow(created)
end

--- syntax: call = client:_new_task_call(name, opts, started)
--- syntax: result, err = client:_follow_task_call(call, created, token?)
--- For mcp.task_handle: a TaskCall for tool `name`, and following it.
function Client:_new_task_call(name, opts, started)
  return new_call(self, name, opts, started)
end

function Client:_follow_task_call(call, created, token)
  return follow(self, call, created, token)
end

--- syntax: result, err = client:_call_tool_as_task(name, args, opts)
--- A 2025-11-25 tools/call sent as a task (params.task), followed to its
--- result. The progress token of the call stays the task's (K15).
function Client:_call_tool_as_task(name, args, opts)
  check_task_opts(opts)
  local started = core.now()
  local call = new_call(self, name, opts, started)
  local ttl = type(opts and opts.task) == "table" and opts.task.ttl or nil
  local req_opts = { timeout = (opts and opts.timeout) or self._timeout / 1000,
                     max_timeout = opts and opts.max_timeout,
                     on_progress = opts and opts.on_progress and function(p) call:progress(p) end }
  local input_schema = self:_call_schemas(name, opts)
  local req = self:_start("tools/call", { name = name, arguments = args or {},
    task = { ttl = ttl } }, req_opts, input_schema)
  local created, err = req:wait()
  if not created then
    if err.code == "ESCHEMA" and not req.id then self:_explain_arguments_error(name, err) end
    return nil, err
  end
  if type(created.task) ~= "table" then
    -- The server ran it at once: a plain result.
    return call.check(created)
  end
  return follow(self, call, created.task, req.id)
end

--- syntax: result, err = client:_follow_task(name, created, opts, started)
--- A 2026-07-28 tools/call whose answer was a task (resultType "task"),
--- followed to its result.
function Client:_follow_task(name, created, opts, started)
  check_task_opts(opts)
  local call = new_call(self, name, opts, started)
  return follow(self, call, created, nil)
end

-- ---- handles ---------------------------------------------------------------------

--- syntax: yes = client:_requires_task(name)
--- Whether start_tool must make a handle that follows a task, without
--- waiting: a 2025-11-25 tool known (listed) to require one.
function Client:_requires_task(name)
  if self.era == "modern" then return false end
  local tools = server_tasks(self, "requests", "tools")
  local tool = self.tools_by_name and self.tools_by_name[name]
  local execution = tool and tool.execution
  return type(tools) == "table" and tools.call ~= nil and type(execution) == "table"
    and execution.taskSupport == "required"
end

--- syntax: handle = client:_start_tool_task(name, args, opts)
--- start_tool of a call that is or may become a task (mcp.task_handle).
function Client:_start_tool_task(name, args, opts)
  check_task_opts(opts)
  return task_handle.start(self, name, args, opts)
end

-- ---- tasks by id ---------------------------------------------------------------

local function check_id(id, fname)
  if type(id) ~= "string" then
    error(("bad argument #1 to '%s' (task id string expected)"):format(fname), 3)
  end
end

-- ENOTSUP unless the server can run tasks in this client's era.
local function require_tasks(self, method)
  if self.era == "modern" then return nil end
  if type(self.capabilities) == "table" and type(self.capabilities.tasks) == "table" then
    return nil
  end
  return errors.new("ENOTSUP", ("%s: the server did not declare the 'tasks' capability")
    :format(method))
end

--- syntax: task, err = client:get_task(id, opts?)
--- The task as the server says it is now (tasks/get): taskId, status,
--- statusMessage, createdAt, lastUpdatedAt, ttl and pollInterval (ms) in
--- both eras; in 2026-07-28 also result, error or inputRequests.
function Client:get_task(id, opts)
  self:_check()
  check_id(id, "get_task")
  local err = require_tasks(self, "tasks/get")
  if err then return nil, err end
  local res
  res, err = self:request("tasks/get", { taskId = id }, opts)
  if not res then return nil, err end
  return task_call.view(res, self.era)
end

--- syntax: task, err = client:cancel_task(id, opts?)
--- Asks the server to cancel the task (tasks/cancel). Returns the task as
--- the server's answer says it is (2025-11-25), or true (2026-07-28: an
--- empty acknowledgement). A task that had already ended gives ERPC
--- -32602 in 2025-11-25.
function Client:cancel_task(id, opts)
  self:_check()
  check_id(id, "cancel_task")
  local err = require_tasks(self, "tasks/cancel")
  if err then return nil, err end
  local res
  res, err = self:request("tasks/cancel", { taskId = id }, opts)
  if not res then return nil, err end
  return task_call.view(res, self.era) or true
end

--- syntax: result, err = client:wait_task(id, opts?)
--- Follows a task by its id (one this process or another started) to
--- its end, as call_tool does: opts.on_status, opts.timeout. The result
--- is not checked against a schema: the tool is not known.
function Client:wait_task(id, opts)
  self:_check()
  check_id(id, "wait_task")
  check_task_opts(opts)
  local err = require_tasks(self, "tasks/get")
  if err then return nil, err end
  local call = task_call.new(self, { era = self.era, tool = "?",
    on_status = opts and opts.on_status,
    timeout_ms = seconds_opt(opts, "timeout") or self._timeout })
  local res
  res, err = self:request("tasks/get", { taskId = id }, opts)
  if not res then return nil, err end
  return follow(self, call, res, nil)
end

--- syntax: tasks, err = client:list_tasks(opts?)
--- Every task the server lists (tasks/list, all pages), as get_task
--- gives them. 2025-11-25 only, and only when the server declared
--- tasks.list (K13); 2026-07-28 removed it (ENOTSUP).
function Client:list_tasks(opts)
  self:_check()
  if self.era == "modern" then
    return nil, errors.new("ENOTSUP", "tasks/list: 2026-07-28 has no tasks/list")
  end
  if server_tasks(self, "list") == nil then
    return nil, errors.new("ENOTSUP", "tasks/list: the server did not declare 'tasks.list'")
  end
  local list, err = self:_paginate("tasks/list", "tasks", opts)
  if not list then return nil, err end
  local out = setmetatable({}, core.array_mt)
  for _, wire in ipairs(list) do
    local v = task_call.view(wire, self.era)
    if v then out[#out + 1] = v end      -- a malformed entry is left out
  end
  return out
end

-- ---- notifications ---------------------------------------------------------------

-- A status the server chose to send (2025-11-25; never relied upon, K10).
routes["notifications/tasks/status"] = function(self, params)
  local call = type(params) == "table" and self._task_calls[params.taskId]
  if call then call:notice(params) end
end

-- 2026-07-28's notification of a task (a DetailedTask), on a listen stream.
routes["notifications/tasks"] = routes["notifications/tasks/status"]

-- Progress for a call that became a task: the core hands on the tokens
-- of requests that have ended, and the task keeps its call's (K15).
routes["notifications/progress"] = function(self, params)
  local call = type(params) == "table" and self._task_tokens[params.progressToken]
  if call then call:progress(params) end
end

return { methods = Client, routes = routes, on_connect = on_connect,
         capabilities = add_capabilities }
