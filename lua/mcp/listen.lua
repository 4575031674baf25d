--- mcp.listen: subscriptions/listen, how a 2026-07-28 server tells the
--- client what changed. The handshake era's server pushes list_changed
--- and resources/updated whenever it likes; a server of the stateless era
--- sends them only on the stream of a listen request that asked for them.
---
--- The client keeps one listen open while anything wants it (a
--- list-changed callback given to connect, a resource subscription, a
--- task followed), asking for every list-changed kind the server declares,
--- the subscribed URIs and the tasks' ids. The notifications it carries take the same routes as
--- in the older era (mcp.features drops caches and calls the callbacks),
--- so user code is the same in both eras. A listen that ends is opened
--- again, with a new id, after a backoff with jitter (what was cached is
--- dropped: notifications may have been lost meanwhile); a changed filter
--- opens a new listen, then cancels the old one (there is no "modify").
local core = require "mcp.core"
local errors = require "mcp.errors"
local task = require "mcp.task"

local Client = {}
local routes = {}

local SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
local TASKS = "io.modelcontextprotocol/tasks"
-- A listen is exempt from the request timeout (2.4): it waits a year.
local LISTEN_TIMEOUT = 365 * 24 * 3600
local BACKOFF_MIN, BACKOFF_MAX = 0.25, 30   -- seconds
-- A listen that lived this long was healthy: the next break starts the
-- backoff from its minimum again.
local HEALTHY_MS = 10000
-- Errors after which asking again is pointless.
local FINAL = { [-32601] = true, [-32602] = true, [-32021] = true }

-- The filter this client wants now, or nil for none.
local function wanted(self)
  local caps = type(self.capabilities) == "table" and self.capabilities or {}
  local function declares(kind, flag)
    return type(caps[kind]) == "table" and caps[kind][flag] == true
  end
  local uris, task_ids = {}, {}
  if declares("resources", "subscribe") then
    for uri in pairs(self._subscriptions or {}) do uris[#uris + 1] = uri end
  end
  -- The tasks followed (mcp.tasks), where the server has the extension.
  if type(caps.extensions) == "table" and type(caps.extensions[TASKS]) == "table" then
    for id in pairs(self._task_calls or {}) do task_ids[#task_ids + 1] = id end
  end
  if #uris == 0 and #task_ids == 0 and not (self.on_tools_changed
      or self.on_prompts_changed or self.on_resources_changed) then
    return nil
  end
  table.sort(uris)
  table.sort(task_ids)
  local filter = {}
  if declares("tools", "listChanged") then filter.toolsListChanged = true end
  if declares("prompts", "listChanged") then filter.promptsListChanged = true end
  if declares("resources", "listChanged") then filter.resourcesListChanged = true end
  if #uris > 0 then filter.resourceSubscriptions = setmetatable(uris, core.array_mt) end
  if #task_ids > 0 then filter.taskIds = setmetatable(task_ids, core.array_mt) end
  if next(filter) == nil then return nil end
  return filter
end

-- Sleeps up to seconds, or until l.wake() (a restart, a close).
local function nap(l, seconds)
  local timer
  -- A task closed while asleep (mcp.run ending) stops its timer.
  local _ <close> = setmetatable({}, { __close = function()
    if timer then timer:stop() end
  end })
  task.await(function(done)
    local woken = false
    local function once()
      if woken then return end
      woken = true
      l.wake = nil
      if timer then timer:stop() end
      done()
    end
    l.wake = once
    timer = core.timer(seconds * 1000, once)
    return timer
  end)
end

local function settle_acks(l, ack, err)
  local waiters = l.ack_waiters
  l.ack_waiters = {}
  for _, done in ipairs(waiters) do done(ack, err) end
end

-- One listen's life: open, wait for its end, open again after a backoff,
-- until the client closes or wants another filter.
local function run(self, l)
  local backoff = BACKOFF_MIN
  while self._listen == l and not self._closing and not self._lost do
    local started = core.now()
    local req = self:_start("subscriptions/listen", { notifications = l.filter },
                            { timeout = LISTEN_TIMEOUT })
    l.req, l.ended_by_server = req, false
    if req.id then self._listen_ids[req.id] = true end
    local _, err = req:wait()
    if req.id then self._listen_ids[req.id] = nil end
    l.req = nil
    if not l.ack then
      settle_acks(l, nil, err or errors.new("ECLOSED",
        "the server ended subscriptions/listen before acknowledging it"))
    end
    l.ack = nil
    if self._listen ~= l or self._closing or self._lost then return end
    if err and err.rpc_code and FINAL[err.rpc_code] then
      -- Asking again is pointless: what waits for it, and what would,
      -- fails with the server's answer.
      l.refused = err
      settle_acks(l, nil, err)
      self.on_warning(("subscriptions/listen refused: %s"):format(err.message))
      return
    end
    -- A break or the server's own end: notifications may have been lost.
    self._cache = nil
    if core.now() - started > HEALTHY_MS then backoff = BACKOFF_MIN end
    nap(l, backoff * (0.5 + math.random()))
    backoff = math.min(backoff * 2, BACKOFF_MAX)
  end
end

--- (internal) Opens, replaces or ends the listen as the client's wants
--- changed. Returns the listen now wanted (nil: none).
function Client:_listen_update()
  if self.era ~= "modern" or self._closing then return nil end
  self._listen_ids = self._listen_ids or {}
  local filter = wanted(self)
  local key = filter and core.json_encode(filter)
  local old = self._listen
  if old and old.key == key and not old.refused then return old end
  local l = filter and { key = key, filter = filter, ack_waiters = {} } or nil
  self._listen = l
  -- In the background: a script that never closes its client still ends.
  if l then task.spawn_background(run, self, l) end
  -- The new one first, then the old one's end: nothing falls between.
  if old then
    if old.wake then old.wake() end
    if old.req then old.req:cancel("subscription replaced") end
    settle_acks(old, nil, errors.new("ECANCELED", "subscription replaced"))
  end
  return l
end

--- (internal) Waits until the listen l is acknowledged; returns the
--- acknowledged filter, or nil and an error.
function Client:_listen_acknowledged(l, timeout_ms)
  if l.ack then return l.ack end
  if l.refused then return nil, l.refused end
  local timer
  local _ <close> = setmetatable({}, { __close = function()
    if timer then timer:stop() end
  end })
  local ack, err = task.await(function(done)
    l.ack_waiters[#l.ack_waiters + 1] = done
    timer = core.timer(timeout_ms, function()
      done(nil, errors.new("ETIMEDOUT", "subscriptions/listen was not acknowledged in time"))
    end)
    return timer
  end)
  if timer then timer:stop() end
  return ack, err
end

--- (internal) A restart or renewal: a listen waiting to be opened again
--- goes at once.
function Client:_listen_resume()
  local l = self._listen
  if l and l.wake then l.wake() end
end

--- (internal) Whether a notification may go on: one tagged with the id of
--- no listen of ours is dropped (a race with a cancel; 1 is not "1").
function Client:_listen_accepts(method, params)
  local l = self._listen
  local current = l and l.req and l.req.id
  if method == "notifications/cancelled" and type(params) == "table"
      and params.requestId == current and current then
    -- The server tore the subscription down (stdio): it is over.
    l.req:cancel("ended by the server")
    return true
  end
  local meta = type(params) == "table" and params._meta
  local id = type(meta) == "table" and meta[SUBSCRIPTION_ID]
  if id == nil then return true end
  if not self._listen_ids[id] then return false end
  if method == "notifications/subscriptions/acknowledged" and id == current then
    local ack = type(params.notifications) == "table" and params.notifications or {}
    l.ack = ack
    settle_acks(l, ack)
  end
  return true
end

--- syntax: ok, err = client:_listen_subscribe(uri, timeout_ms)
--- (internal) subscribe_resource in the 2026-07-28 era: a listen whose
--- filter has uri, acknowledged by the server with uri in it.
function Client:_listen_subscribe(uri, timeout_ms)
  local l = self:_listen_update()
  if not l then
    return nil, errors.new("ENOTSUP", "the server offers no resource subscriptions")
  end
  local ack, err = self:_listen_acknowledged(l, timeout_ms)
  if not ack then return nil, err end
  for _, u in ipairs(type(ack.resourceSubscriptions) == "table" and ack.resourceSubscriptions or {}) do
    if u == uri then return true end
  end
  return nil, errors.new("ENOTSUP", ("the server did not accept a subscription to %s"):format(uri))
end

routes["notifications/subscriptions/acknowledged"] = function() end

return { methods = Client, routes = routes }
