-- The luamcp program: run, tools and call against real servers, and a
-- one-line message with a non-zero exit for every failure.
local fixture = require "spec.support.fixture"

local LUAMCP = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"

-- Runs a shell command; returns its exit code, stdout and stderr.
local run = fixture.sh

local function count_lines(s)
  local n = 0
  for _ in s:gmatch("[^\n]*\n") do n = n + 1 end
  return n
end

describe("luamcp tools", function()
  it("prints each tool on one line: name, title, description", function()
    local code, out = run(LUAMCP .. " tools --quiet -- node spec/fixtures/echo.js")
    assert.equal(0, code)
    assert.matches("^echo\t[^\n]*\tEcho[^\n]*\nadd\t[^\n]*\tAdd two numbers\n$", out)
  end)

  it("lists server-everything's tools", function()
    local code, out = run(LUAMCP .. " tools --quiet -- "
      .. table.concat(fixture.everything_command(), " "))
    assert.equal(0, code)
    assert.matches("\nget%-sum\t", "\n" .. out)
    assert.is_true(count_lines(out) >= 10)
  end)
end)

describe("luamcp call", function()
  it("prints the result of a tool", function()
    local code, out = run(LUAMCP .. " call --quiet -- "
      .. table.concat(fixture.everything_command(), " ") .. [[ get-sum '{"a":2,"b":3}']])
    assert.equal(0, code)
    assert.equal("The sum of 2 and 3 is 5.\n", out)
  end)

  it("prints the whole result as JSON with --json", function()
    local code, out = run(LUAMCP .. [[ call --json --quiet -- node spec/fixtures/echo.js add '{"a":1,"b":2}']])
    assert.equal(0, code)
    assert.matches('"structuredContent":{"sum":3}', out)
  end)

  it("works when started with stdin closed", function()
    local code, out = run(LUAMCP .. [[ call --quiet -- node spec/fixtures/echo.js echo '{"message":"hi"}' <&-]])
    assert.equal(0, code)
    assert.equal("hi\n", out)
  end)

  local failures = {
    { "an unknown tool", [[-- node spec/fixtures/echo.js nope '{}']], "ERPC" },
    { "bad JSON arguments", [[-- node spec/fixtures/echo.js echo '{oops']], "bad JSON" },
    { "a command that does not exist", [[-- /nonexistent/server echo '{}']], "ESPAWN" },
    { "a server that crashes", [[-- node spec/fixtures/crash.js crash '{}']], "ECLOSED" },
    { "a missing command", [[-- echo '{}']], "missing server command" },
    { "words before --", [[echo -- node spec/fixtures/echo.js echo]], "before --" },
    { "arguments that are not an object", [[-- node spec/fixtures/echo.js echo '[1]']], "JSON object" },
  }
  for _, case in ipairs(failures) do
    it("exits non-zero with one line for " .. case[1], function()
      local code, out, err = run(LUAMCP .. " call --quiet " .. case[2])
      assert.is_true(code ~= 0)
      assert.equal("", out)
      assert.equal(1, count_lines(err), err)
      assert.matches("^luamcp: ", err)
      assert.matches(case[3], err, 1, true)
    end)
  end
end)

describe("luamcp run", function()
  it("runs a script's main chunk as a task, with arg set", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
      local mcp = require "mcp"
      local c <close> = assert(mcp.connect{ command = { "node", arg[1] },
                                            on_stderr = function() end })
      mcp.sleep(0.01)
      print(arg[0] == ... and "no" or "args:", arg[1], arg[2], select("#", ...))
      print(assert(c:call_tool("echo", { message = arg[2] })).content[1].text)
    ]])
    f:close()
    local code, out = run(LUAMCP .. " run " .. script .. " spec/fixtures/echo.js hello")
    os.remove(script)
    assert.equal(0, code)
    assert.equal("args:\tspec/fixtures/echo.js\thello\t2\nhello\n", out)
  end)

  it("prints a server's log messages to stderr with its name and level by default", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
      local mcp = require "mcp"
      local c <close> = assert(mcp.connect{ name = "logger", command = { "node", arg[1] },
                                            on_stderr = function() end })
      assert(c:call_tool("notify", { method = "notifications/message",
        params = { level = "warning", logger = "disk", data = "space is low" } }))
      mcp.sleep(0.05)
    ]])
    f:close()
    local code, _, err = run(LUAMCP .. " run " .. script .. " spec/fixtures/client_requests.js")
    os.remove(script)
    assert.equal(0, code)
    assert.equal("[logger] warning (disk): space is low\n", err)
  end)

  it("shows Lua warnings once a script turns them on, as lua does", function()
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write('warn("before")\nwarn("@on")\nwarn("in ", "pieces")\nwarn("@off")\nwarn("after")\n')
    f:close()
    local code, _, err = run(LUAMCP .. " run " .. script)
    os.remove(script)
    assert.equal(0, code)
    assert.equal("Lua warning: in pieces\n", err)
  end)

  it("exits 1 with the error when the script fails", function()
    local code, _, err = run(LUAMCP .. " run /nonexistent/script.lua")
    assert.equal(1, code)
    assert.matches("^luamcp: ", err)
  end)

  it("exits non-zero for an unknown command", function()
    local code, _, err = run(LUAMCP .. " frobnicate")
    assert.is_true(code ~= 0)
    assert.matches("unknown command 'frobnicate'", err)
  end)
end)
