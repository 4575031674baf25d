-- spec/support/event.lua - a one-shot event, so that a spec waits on the
-- callback it expects instead of polling a flag with sleeps.
--   local ev = event()
--   ... on_something = function(x) ev.set(x) end ...
--   local x = ev.wait(5)   -- x, or nil and "timed out" after 5 seconds
local task = require "mcp.task"
local core = require "mcp.core"

return function()
  local ev, waiters, fired = {}, {}, nil

  function ev.set(...)
    if fired then return end
    fired = table.pack(...)
    for _, done in ipairs(waiters) do done(...) end
  end

  function ev.wait(within)
    if fired then return table.unpack(fired, 1, fired.n) end
    local timer
    local _ <close> = setmetatable({}, { __close = function()
      if timer then timer:stop() end
    end })
    return task.await(function(done)
      waiters[#waiters + 1] = done
      timer = core.timer((within or 10) * 1000, function() done(nil, "timed out") end)
      return true
    end)
  end

  return ev
end
