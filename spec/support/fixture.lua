-- spec/support/fixture.lua - starts the servers tests talk to: the
-- project's own fixtures in spec/fixtures and the official
-- server-everything installed by `make deps`.
local mcp = require "mcp"

local M = {}

M.EVERYTHING = os.getenv("EVERYTHING_SERVER")
  or ".deps/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

--- The command that starts server-everything over stdio. Raises (the
--- test fails, it does not skip) when it is not installed.
function M.everything_command(mode)
  assert(exists(M.EVERYTHING), "server-everything is not installed at "
    .. M.EVERYTHING .. ": run `make deps`")
  return { "node", M.EVERYTHING, mode or "stdio" }
end

--- syntax: client, err, log = fixture.connect(name, opts?)
--- Connects to spec/fixtures/<name>.js; opts are merged into mcp.connect's.
--- The server's stderr lines are collected in `log` instead of printed.
function M.connect(name, opts)
  local log = {}
  local o = { name = name, command = { "node", "spec/fixtures/" .. name .. ".js" },
              on_stderr = function(line) log[#log + 1] = line end }
  for k, v in pairs(opts or {}) do o[k] = v end
  if opts and opts.args then
    for _, a in ipairs(opts.args) do o.command[#o.command + 1] = a end
    o.args = nil
  end
  local client, err = mcp.connect(o)
  return client, err, log
end

--- True while a process with this pid exists and is not a zombie.
function M.alive(pid)
  local f = io.open("/proc/" .. tostring(pid) .. "/stat", "r")
  if not f then return false end
  local stat = f:read("a")
  f:close()
  local state = stat:match("^%d+ %b() (%a)")
  return state ~= nil and state ~= "Z" and state ~= "X"
end

--- Waits (inside a task) until pid is gone, up to `within` seconds.
function M.wait_dead(pid, within)
  local core = require "mcp.core"
  local deadline = core.now() + (within or 5) * 1000
  while M.alive(pid) do
    if core.now() > deadline then return false end
    mcp.sleep(0.02)
  end
  return true
end

return M
