-- core.read_line over a pipe: every line arrives, however the writes cut
-- them (a read brings many lines, or half of one), CR LF and a last line
-- without a newline included, then nil at the end.
local LUA = os.getenv("MCP_LUA") or "lua5.4"
local BUILD = os.getenv("MCP_BUILD_DIR") or "build"

local q = require("spec.support.fixture").q

local READER = [[
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = BUILD .. "/?.so;" .. package.cpath
local mcp, core, task = require "mcp", require "mcp.core", require "mcp.task"
mcp.run(function()
  repeat
    local line = task.await(function(done) return core.read_line(done) end)
    io.write(line and ("[" .. line .. "]\n") or "END\n")
  until line == nil
end)
]]

local function read_lines(feeder)
  local script = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(("local BUILD = %q\n"):format(BUILD), READER)
  f:close()
  local p = assert(io.popen(("(%s) | %s %s 2>&1"):format(feeder, LUA, q(script))))
  local out = p:read("a")
  p:close()
  os.remove(script)
  return out
end

describe("core.read_line on a pipe", function()
  it("gives every line of one write, CR LF and an unended last line included", function()
    assert.equal("[one]\n[two]\n[]\n[three]\nEND\n",
      read_lines([[printf 'one\r\ntwo\n\nthree']]))
  end)

  it("joins a line written in pieces", function()
    assert.equal("[hello world]\n[next]\nEND\n",
      read_lines([[printf 'hel'; sleep 0.1; printf 'lo wor'; sleep 0.1; printf 'ld\nnext\n']]))
  end)

  it("says the end at once on an empty pipe", function()
    assert.equal("END\n", read_lines("true"))
  end)
end)
