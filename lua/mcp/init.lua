--- mcp: the public Lua API of luamcp. Re-exports the task runner, the
--- client constructor, JSON helpers and errors; holds no state of its own.
local core = require "mcp.core"
local task = require "mcp.task"
local client = require "mcp.client"
local errors = require "mcp.errors"
local handlers = require "mcp.handlers"

local M = {
  _VERSION = "luamcp " .. core.version,
  version = core.version,
  run = task.run,
  prun = task.prun,
  spawn = task.spawn,
  sleep = task.sleep,
  on_error = task.on_error,
  connect = client.connect,
  errors = errors,
  http = require "mcp.http",
  oauth = require "mcp.oauth",
  llm = require "mcp.llm",
  handlers = handlers,
  agent = require "mcp.agent",
  reject = handlers.reject,
  null = core.null,
  array_mt = core.array_mt,
}

-- ---- a program that owns its loop ----------------------------------------------

--- syntax: fd = mcp.backend_fd()
--- A descriptor that becomes readable when luamcp has work: poll it with
--- the program's own (epoll, poll, a toolkit's watch), then call mcp.step.
M.backend_fd = core.backend_fd

--- syntax: ms = mcp.backend_timeout()
--- Milliseconds until luamcp's next timer: -1 for none, 0 for work now.
M.backend_timeout = core.backend_timeout

--- syntax: busy = mcp.step()
--- Runs what is ready without blocking (callbacks resume the tasks that
--- wait on them) and says whether luamcp still has anything open or
--- pending. Outside mcp.run a program starts tasks with mcp.spawn, hears
--- of failed ones through mcp.on_error, closes what it opened and steps
--- until mcp.step() is false, so that servers are shut down in order.
function M.step()
  core.run("nowait")
  return core.alive()
end

--- syntax: t = mcp.array(t?) -- marks t (or a new table) as a JSON array,
--- so that it encodes as [] even when empty.
function M.array(t)
  return setmetatable(t or {}, core.array_mt)
end

--- syntax: yes = mcp.is_array(t)
function M.is_array(t)
  return type(t) == "table" and getmetatable(t) == core.array_mt
end

M.json = {
  --- syntax: text = mcp.json.encode(value)
  encode = core.json_encode,
  --- syntax: value, err = mcp.json.decode(text)
  decode = core.json_decode,
  null = core.null,
}

--- syntax: host, err = mcp.host(opts) -- many servers from a config file
--- (mcp.host.new; loaded on first use).
function M.host(opts)
  return require("mcp.host").new(opts)
end

--- syntax: err = mcp.error(code, message?, fields?)
M.error = errors.new

return M
