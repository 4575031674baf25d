--- mcp.task_store: the tasks a client runs for a server (the client as
--- receiver of task-augmented sampling and elicitation requests): each
--- task's status, its outcome once it has one, who waits for it, and its
--- time to live. Ids are random (there is no authorization context to
--- bind them to, K22); the number of live tasks and their ttl are capped;
--- expired tasks are forgotten when the store is next used. It knows the
--- Task's shape (2025-11-25) but no method: mcp.task_receiver answers
--- the server from it.
local core = require "mcp.core"

local M = {}

local Store = {}
local Store_mt = { __name = "mcp.TaskStore", __index = Store }

local TERMINAL = { completed = true, failed = true, cancelled = true }

local DEFAULTS = {
  max_tasks = 64,               -- unfinished tasks at once
  max_kept = 256,               -- tasks kept, finished ones included
  max_ttl = 3600000,            -- ms a task is kept at most (and when none is asked)
  poll_interval = 500,          -- ms, the pollInterval the server is told
  page_size = 50,               -- tasks per tasks/list page
}

-- 16 bytes from OpenSSL's RAND_bytes, as base64url.
local function random_id()
  return assert(core.random_id())
end

local function timestamp()
  return os.date("!%Y-%m-%dT%H:%M:%SZ")
end

--- syntax: store = task_store.new(opts?) -- opts: the DEFAULTS above
function M.new(opts)
  local self = setmetatable({ _tasks = {}, _order = {} }, Store_mt)
  for k, v in pairs(DEFAULTS) do self[k] = (opts and opts[k]) or v end
  return self
end

-- Forgets the tasks whose ttl has passed.
function Store:_purge()
  local now, kept = core.now(), {}
  for _, id in ipairs(self._order) do
    local e = self._tasks[id]
    if e and now >= e.expires then
      self._tasks[id] = nil
      if e.on_expire then e.on_expire() end
    elseif e then
      kept[#kept + 1] = id
    end
  end
  self._order = kept
end

local function live_count(self)
  local n = 0
  for _, id in ipairs(self._order) do
    if not TERMINAL[self._tasks[id].task.status] then n = n + 1 end
  end
  return n
end

--- syntax: entry, err = store:create(ttl?)
--- A new task, working. ttl: what the requestor asked for (ms), held to
--- max_ttl. nil and a message when max_tasks are still running.
-- Forgets the oldest finished tasks beyond max_kept: a server that asks
-- for one task after another cannot make the store grow without bound.
function Store:_trim()
  local over = #self._order - self.max_kept
  if over < 0 then return end
  local kept = {}
  for _, id in ipairs(self._order) do
    local e = self._tasks[id]
    if over >= 0 and TERMINAL[e.task.status] then
      self._tasks[id] = nil
      if e.on_expire then e.on_expire() end
      over = over - 1
    else
      kept[#kept + 1] = id
    end
  end
  self._order = kept
end

function Store:create(ttl)
  self:_purge()
  if live_count(self) >= self.max_tasks then
    return nil, ("more than %d tasks at once"):format(self.max_tasks)
  end
  self:_trim()
  if math.type(ttl) ~= "integer" or ttl <= 0 or ttl > self.max_ttl then ttl = self.max_ttl end
  local now = timestamp()
  local id = random_id()
  local entry = {
    task = { taskId = id, status = "working", createdAt = now, lastUpdatedAt = now,
             ttl = ttl, pollInterval = self.poll_interval },
    expires = core.now() + ttl,
    waiters = {},
  }
  self._tasks[id] = entry
  self._order[#self._order + 1] = id
  return entry
end

--- syntax: entry = store:get(id) -- nil for an unknown or expired task
function Store:get(id)
  self:_purge()
  return type(id) == "string" and self._tasks[id] or nil
end

-- A terminal status with its outcome; wakes whoever waits for it. A
-- terminal task never changes again (K2).
local function settle(entry, status, message, result, err)
  if TERMINAL[entry.task.status] then return false end
  entry.task.status = status
  entry.task.statusMessage = message
  entry.task.lastUpdatedAt = timestamp()
  entry.result, entry.err = result, err
  local waiters = entry.waiters
  entry.waiters = {}
  for _, done in ipairs(waiters) do done(entry) end
  return true
end

--- syntax: store:finish(entry, result) / store:fail(entry, err, message?)
function Store:finish(entry, result)
  return settle(entry, "completed", nil, result, nil)
end

function Store:fail(entry, err, message)
  return settle(entry, "failed", message, nil, err)
end

--- syntax: ok = store:cancel(entry, message) -- false when already terminal
function Store:cancel(entry, message)
  return settle(entry, "cancelled", message, nil, nil)
end

--- syntax: store:on_settled(entry, fn) -- fn(entry) once terminal (at once if it is)
function Store:on_settled(entry, fn)
  if TERMINAL[entry.task.status] then return fn(entry) end
  entry.waiters[#entry.waiters + 1] = fn
end

--- syntax: tasks, next_cursor = store:page(cursor?)
--- One page of the tasks, oldest first; the cursor is opaque to the
--- server. nil when the cursor is not one this store gave.
function Store:page(cursor)
  self:_purge()
  local start = 1
  if cursor ~= nil then
    start = type(cursor) == "string" and tonumber(cursor:match("^p(%d+)$")) or nil
    if not start or start < 1 or start > #self._order + 1 then return nil end
  end
  local out = {}
  for i = start, math.min(#self._order, start + self.page_size - 1) do
    out[#out + 1] = self._tasks[self._order[i]].task
  end
  local after = start + self.page_size
  return out, after <= #self._order and ("p" .. after) or nil
end

M.TERMINAL = TERMINAL
return M
