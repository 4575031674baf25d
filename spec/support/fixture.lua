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

--- syntax: server = fixture.http_server(name, args?)   -- inside a task
--- Starts `node spec/fixtures/<name>.js args...` in the background and
--- waits (polling with mcp.sleep) for its first stdout line "READY <port>".
--- Returns { port = n, pid = n, url = function(path) ... end,
--- stop = function() ... end }; raises (with the fixture's stderr) when the
--- line does not come within 10 s.
---
--- How: there is no public process API for a non-MCP child yet, and
--- io.popen would block the loop while reading. So the shell starts the
--- fixture with `&`, its stdout and stderr go to temp files and its pid
--- (`$!`) to a third one; os.execute returns at once. stop() (call it in
--- the spec's teardown) sends SIGTERM, waits until /proc/<pid> is gone
--- (SIGKILL after 5 s) and removes the temp files.
--- The whole text of the file at path, or "" when there is none.
function M.slurp(path)
  local f = io.open(path, "r")
  if not f then return "" end
  local text = f:read("a")
  f:close()
  return text
end

--- syntax: quoted = fixture.q(s) -- s as one word for sh
function M.q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

--- syntax: code, stdout, stderr = fixture.sh(cmd)
--- Runs a shell command to its end and gives what it printed.
function M.sh(cmd)
  local errfile = os.tmpname()
  local p = assert(io.popen(cmd .. " 2>" .. M.q(errfile)))
  local out = p:read("a")
  local _, _, code = p:close()
  local err = M.slurp(errfile)
  os.remove(errfile)
  return code, out, err
end

--- The peak resident memory of this (the test) process, in KiB.
function M.peak_rss_kb()
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmHWM:%s*(%d+)")
    if kb then return tonumber(kb) end
  end
end

--- The pid of this (the test) process.
function M.own_pid()
  local f = assert(io.open("/proc/self/stat", "r"))
  local pid = tonumber(f:read("a"):match("^(%d+)"))
  f:close()
  return pid
end

function M.http_server(name, args)
  local core = require "mcp.core"
  local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
  local out, err, pidfile = os.tmpname(), os.tmpname(), os.tmpname()
  local cmd = { "node", q("spec/fixtures/" .. name .. ".js") }
  for _, a in ipairs(args or {}) do cmd[#cmd + 1] = q(a) end
  -- The fixture exits by itself if this process dies (lib/watch_parent.js).
  assert(os.execute(("LUAMCP_TEST_PID=%d %s >%s 2>%s </dev/null & echo $! >%s"):format(
    M.own_pid(), table.concat(cmd, " "), q(out), q(err), q(pidfile))))
  local slurp = M.slurp
  local pid = tonumber(slurp(pidfile):match("%d+"))
  -- `local srv <close> = fixture.http_server(...)` stops it however the
  -- test ends, even when its task is closed by a timeout.
  local server = setmetatable({ pid = pid }, { __close = function(s) s.stop() end })
  function server.url(path) return ("http://127.0.0.1:%d%s"):format(server.port, path or "/") end
  function server.stop()
    if server.stopped then return end
    server.stopped = true
    if pid then
      os.execute("kill " .. pid .. " 2>/dev/null")
      if not M.wait_dead(pid, 5) then
        os.execute("kill -9 " .. pid .. " 2>/dev/null")
        M.wait_dead(pid, 5)
      end
    end
    os.remove(out)
    os.remove(err)
    os.remove(pidfile)
  end
  local deadline = core.now() + 10000
  while true do
    local port = ("\n" .. slurp(out)):match("\nREADY (%d+)\n")
    if port then
      server.port = tonumber(port)
      return server
    end
    if core.now() > deadline or (pid and not M.alive(pid)) then
      local stderr = slurp(err)
      server.stop()
      error(("fixture %s did not print READY <port>; stderr:\n%s"):format(name, stderr), 2)
    end
    mcp.sleep(0.02)
  end
end

return M
