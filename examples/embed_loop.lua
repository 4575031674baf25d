-- embed_loop.lua - `require "mcp"` inside a program that owns its main
-- loop (a game, an editor, a GUI toolkit, a server of its own): luamcp
-- does not take the loop over; the program asks it to do its share.
--
-- What luamcp offers an embedder (the C core's libuv loop):
--   mcp.backend_fd()        a file descriptor that becomes readable when
--                           luamcp has something to do (libuv's epoll fd):
--                           poll it with the program's own descriptors
--   mcp.backend_timeout()   milliseconds until luamcp's next timer (a
--                           request's timeout, a retry, mcp.sleep): -1 for
--                           none, 0 when there is work already
--   mcp.step()              runs whatever is ready, never blocks
--                           (callbacks resume the tasks waiting on them),
--                           and says whether luamcp still has anything
--                           open or pending (a server shutting down, a timer)
-- and from mcp: mcp.spawn(fn) starts a task (it runs until it first
-- waits), mcp.on_error(fn) hears of a task that fails (outside mcp.run
-- there is no run to raise it).
--
-- What the embedder must do itself (mcp.run does it otherwise): close the
-- clients and hosts it opened (<close>, or :close()) and step until
-- mcp.step() is false, so that servers are shut down in order.
--
-- Plain Lua has no poll(); this program uses LuaSocket's socket.select,
-- which polls any table with a getfd method. A C host would add the fd
-- to its own epoll/poll set, or to its toolkit's (a GLib GSource, a
-- uv_poll_t...).
--
-- Usage (from the repository; an installed luamcp needs no paths):
--   lua5.4 examples/embed_loop.lua
--   (server-everything from `make deps`; EVERYTHING_SERVER says where else)
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "examples"
local root = here:gsub("/?examples$", "")
if root == "" then root = "." end
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
if not package.searchpath("mcp.core", package.cpath) then   -- LUA_CPATH wins
  package.cpath = root .. "/build/?.so;" .. package.cpath
end

local mcp = require "mcp"
local socket = require "socket"

local everything = os.getenv("EVERYTHING_SERVER")
  or root .. "/.deps/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

-- ---- the program's own world: a clock that ticks every 100 ms -----------------

local TICK = 0.1
local ticks, next_tick = 0, socket.gettime() + TICK
local log = {}                                  -- what happened, in order
local function say(fmt, ...)
  local line = fmt:format(...)
  log[#log + 1] = line
  print(line)
end

local function on_tick()
  ticks = ticks + 1
  if ticks % 5 == 0 then say("[program] tick %d", ticks) end
end

-- ---- luamcp's work: a task, started from the program ---------------------------

local failed
mcp.on_error(function(traceback) failed = traceback end)

local finished = false
mcp.spawn(function()
  local server <close> = assert(mcp.connect{
    name = "everything", command = { "node", everything, "stdio" },
    on_stderr = function() end,
  })
  say("[mcp] connected to %s, protocol %s", server.server_info.name, server.protocol_version)
  local sum = assert(server:call_tool("get-sum", { a = 2, b = 3 }))
  say("[mcp] get-sum -> %s", sum.content[1].text)
  -- A call that takes a second and reports progress: the program's clock
  -- keeps ticking meanwhile.
  local long = assert(server:call_tool("trigger-long-running-operation",
    { duration = 1, steps = 4 }, {
      on_progress = function(p) say("[mcp] progress %s/%s", p.progress, p.total) end,
    }))
  say("[mcp] long operation -> %s", long.content[1].text:gsub("%s+", " "))
  finished = true
end)   -- here the task waits for the server; the program goes on

-- ---- the program's main loop -------------------------------------------------------

local mcp_fd = { getfd = function() return mcp.backend_fd() end }
local busy = true
while not finished or busy do
  -- Sleep until the program's next tick or luamcp's next timer, or until
  -- luamcp's fd is readable, whichever comes first.
  local wait = math.max(0, next_tick - socket.gettime())
  local timeout_ms = mcp.backend_timeout()
  if timeout_ms >= 0 then wait = math.min(wait, timeout_ms / 1000) end
  socket.select({ mcp_fd }, nil, wait)
  busy = mcp.step()                              -- luamcp's step
  if socket.gettime() >= next_tick then
    on_tick()
    next_tick = next_tick + TICK
  end
  if failed then break end
end

if failed then
  io.stderr:write("a luamcp task failed: ", failed, "\n")
  os.exit(1)
end
say("[program] done after %d ticks; luamcp has nothing left open: %s", ticks,
  tostring(not mcp.step()))
