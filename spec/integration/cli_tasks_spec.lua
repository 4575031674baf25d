-- luamcp call of a tool that server-everything runs as a task: the
-- result on stdout as for any call, and on a terminal (through script's
-- pseudo-terminal) the task's statuses drawn on the progress line.
local fixture = require "spec.support.fixture"

local LUAMCP = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"

describe("luamcp call of a tool that runs as a task", function()
  local args = "call --quiet -- " .. table.concat(fixture.everything_command(), " ")
    .. [[ simulate-research-query '{"topic":"tides"}']]

  it("prints the task's result, and nothing else off a terminal", function()
    local code, out, err = fixture.sh(LUAMCP .. " " .. args)
    assert.equal(0, code)
    assert.matches("^# Research Report: tides\n", out)
    assert.equal("", err)
  end)

  it("draws each status and message on a terminal, wiped before the result", function()
    -- as cli_host_spec's progress bar: script needs a stdin it can read
    local code, out = fixture.sh("script -qfec " .. fixture.q(LUAMCP .. " " .. args)
      .. " /dev/null </dev/null")
    assert.equal(0, code)
    local CLEAR = "\r\27[2K"
    for _, line in ipairs{ "[working] Gathering sources...", "[working] Analyzing content...",
                           "[working] Generating report...", "[completed] Generating report..." } do
      assert.matches(CLEAR .. "simulate-research-query " .. line, out, 1, true)
    end
    assert.matches("[completed] Generating report..." .. CLEAR .. "# Research Report: tides",
      out, 1, true)
  end)
end)
