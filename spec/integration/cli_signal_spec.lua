-- The luamcp program interrupted while a call waits: Ctrl-C (SIGINT) or a
-- kill (SIGTERM) must shut the server down (it runs in its own process
-- group, out of the terminal's reach) and exit 130 or 143 (issue 12).
local fixture = require "spec.support.fixture"

local LUAMCP = "./" .. (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"

local slurp = fixture.slurp

-- Polls cond() every 20 ms for up to `within` seconds.
local function wait_for(cond, within)
  local deadline = os.time() + within
  while not cond() do
    if os.time() > deadline then return false end
    os.execute("sleep 0.02")
  end
  return true
end

local function children_of(pid)
  local p = assert(io.popen("pgrep -P " .. pid))
  local pids = {}
  for line in p:lines() do pids[#pids + 1] = tonumber(line) end
  p:close()
  return pids
end

for signal, status in pairs{ INT = 130, TERM = 143 } do
  describe("luamcp interrupted by SIG" .. signal .. " during a call", function()
    it("shuts the server down and exits " .. status, function()
      local err, pidfile, codefile = os.tmpname(), os.tmpname(), os.tmpname()
      os.remove(codefile)
      assert(os.execute(("(%s call -- node spec/fixtures/hostile.js stall '{}' 2>%s & echo $! >%s; wait $!; echo $? >%s) &")
        :format(LUAMCP, err, pidfile, codefile)))
      assert(wait_for(function() return slurp(pidfile):match("%d+") end, 10))
      local pid = tonumber(slurp(pidfile):match("%d+"))
      -- The call waits once the server has said so.
      assert(wait_for(function() return slurp(err):find("stalled", 1, true) end, 10),
        "the call never reached the server: " .. slurp(err))
      local servers = children_of(pid)
      assert.equal(1, #servers)
      finally(function()   -- whatever the outcome, nothing is left running
        os.execute(("kill -KILL %d %d 2>/dev/null"):format(pid, servers[1]))
        os.remove(err)
        os.remove(pidfile)
        os.remove(codefile)
      end)
      os.execute("kill -" .. signal .. " " .. pid)
      assert(wait_for(function() return slurp(codefile):match("%d+") end, 10), "luamcp did not exit")
      assert.equal(status, tonumber(slurp(codefile):match("%d+")))
      assert.is_false(fixture.alive(servers[1]), "the server was left running")
      assert.matches("luamcp: interrupted by SIG" .. signal, slurp(err), 1, true)
    end)
  end)
end
