--- mcp.task_receiver: the client as receiver of tasks (2025-11-25): a
--- sampling or elicitation handler given as { handler = fn, task = true }
--- declares tasks.requests for its kind; a server's request of that kind
--- that asks for a task (params.task) gets a task id at once
--- (CreateTaskResult), its handler runs in a Lua task of its own, and the
--- server's tasks/get, tasks/result, tasks/list and tasks/cancel are
--- answered from the client's task store (mcp.task_store). mcp.handlers
--- calls it; the handlers' own checks are the same as for a plain request.
--- (2026-07-28 has no server requests, so no client-hosted tasks.)
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"
local task_store = require "mcp.task_store"

local M = {}

local RELATED_TASK = "io.modelcontextprotocol/related-task"
local INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603

-- Where each kind's task support is declared (K17).
local CAPABILITY = { sampling = { "sampling", "createMessage" },
                     elicitation = { "elicitation", "create" } }

local function rpc_error(code, message)
  return errors.new("ERPC", message, { rpc_code = code })
end

--- syntax: task_receiver.add_capabilities(client, caps)
--- tasks.requests for each kind whose handler runs as a task, with list
--- and cancel: the one server of the connection is the only requestor.
function M.add_capabilities(self, caps)
  local requests
  for kind, path in pairs(CAPABILITY) do
    local h = self._handlers[kind]
    if h and h.task then
      requests = requests or {}
      requests[path[1]] = { [path[2]] = {} }
    end
  end
  if requests then caps.tasks = { list = {}, cancel = {}, requests = requests } end
end

--- syntax: task_receiver.on_connect(client) -- after the handlers are in
--- A task store when some handler runs as a task.
function M.on_connect(self)
  for kind in pairs(CAPABILITY) do
    local h = self._handlers[kind]
    if h and h.task then self._task_store = task_store.new() end
  end
end

-- The entry of params.taskId, or nil after answering the server's error.
local function entry_of(self, id, params, respond)
  local entry = self._task_store:get(params.taskId)
  if not entry then
    respond(self, id, nil, rpc_error(INVALID_PARAMS, ("Task not found: %s"):format(
      tostring(params.taskId))))
  end
  return entry
end

--- syntax: handled = task_receiver.start(client, id, method, params, answer, respond)
--- A task-augmented request for a kind declared as task-capable: the
--- CreateTaskResult now, answer(client, params, ctx) in a task of its own,
--- its outcome kept for tasks/result (with the related-task _meta, K19).
function M.start(self, id, method, params, answer, respond)
  local store = self._task_store
  local entry, why = store:create(params.task.ttl)
  if not entry then
    respond(self, id, nil, rpc_error(INTERNAL_ERROR, "cannot start a task: " .. why))
    return true
  end
  local task_id = entry.task.taskId
  respond(self, id, { task = entry.task })
  local ctx = { client = self, id = id, method = method, server = self.name, task = task_id }
  entry.on_expire = function()    -- its ttl passed before it ended
    if entry.co then task.kill(entry.co) end
    store:fail(entry, rpc_error(INVALID_PARAMS, "Task expired: " .. task_id), "expired")
  end
  entry.co = task.spawn(function()
    local ok, result, err = pcall(answer, self, params, ctx)
    if not ok then
      if self.on_handler_error then self.on_handler_error(method, result) end
      local message = ("%s handler failed: %s"):format(method, tostring(result):gsub("\n.*", ""))
      return store:fail(entry, rpc_error(INTERNAL_ERROR, message), message)
    end
    if result == nil then
      err = err or rpc_error(INTERNAL_ERROR, method .. " handler returned nothing")
      return store:fail(entry, err, tostring(errors.is(err) and err.message or err))
    end
    result._meta = type(result._meta) == "table" and result._meta or {}
    result._meta[RELATED_TASK] = { taskId = task_id }
    store:finish(entry, result)
  end)
  return true
end

-- The server's requests about the tasks, by method.
local answers = {}

answers["tasks/get"] = function(self, id, params, respond)
  local entry = entry_of(self, id, params, respond)
  if entry then respond(self, id, entry.task) end
end

-- Blocks until the task ends (K19), then its result or its error.
answers["tasks/result"] = function(self, id, params, respond)
  local entry = entry_of(self, id, params, respond)
  if not entry then return end
  self._task_store:on_settled(entry, function(e)
    if e.task.status == "completed" then return respond(self, id, e.result) end
    if e.task.status == "cancelled" then
      return respond(self, id, nil, rpc_error(INTERNAL_ERROR, ("Task %s was cancelled")
        :format(e.task.taskId)))
    end
    respond(self, id, nil, e.err)
  end)
end

answers["tasks/list"] = function(self, id, params, respond)
  local list, next_cursor = self._task_store:page(params.cursor)
  if not list then
    return respond(self, id, nil, rpc_error(INVALID_PARAMS, "Invalid cursor"))
  end
  respond(self, id, { tasks = setmetatable(list, core.array_mt),
                      nextCursor = next_cursor })
end

-- Cancelled before the reply says so (K20); the handler's task stops.
answers["tasks/cancel"] = function(self, id, params, respond)
  local entry = entry_of(self, id, params, respond)
  if not entry then return end
  if not self._task_store:cancel(entry, "cancelled by the server") then
    return respond(self, id, nil, rpc_error(INVALID_PARAMS, ("Task %s has already ended (%s)")
      :format(entry.task.taskId, entry.task.status)))
  end
  if entry.co then task.kill(entry.co) end
  respond(self, id, entry.task)
end

--- syntax: handled = task_receiver.answer(client, id, method, params, respond)
--- A tasks/* request from the server: answered when the client runs
--- tasks (a handler declared task = true), else false (-32601).
function M.answer(self, id, method, params, respond)
  local fn = answers[method]
  if not fn or not self._task_store then return false end
  fn(self, id, params, respond)
  return true
end

return M
