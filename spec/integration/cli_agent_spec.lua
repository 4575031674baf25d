-- luamcp agent and luamcp chat against server-everything and the scripted
-- LLM fixture (spec/fixtures/llm.js), pointed at it the way users point
-- them at any OpenAI- or Anthropic-compatible server: OPENAI_BASE_URL /
-- ANTHROPIC_BASE_URL and a key. Piped: plain requests, the answer alone
-- on stdout, tool activity on stderr; --stream; on a terminal,
-- streaming as the text comes; the Anthropic provider;
-- no key: one line saying what to set; --max-turns; a conversation kept
-- across the lines of luamcp chat; Ctrl-C during a tool call.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local LUAMCP = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"
local CWD = io.popen("pwd"):read("l")
local CLEAN_ENV = "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ANTHROPIC_API_KEY "
  .. "-u ANTHROPIC_BASE_URL -u LUAMCP_CONFIG "

local q = fixture.q

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- Runs a shell command with a clean environment plus env (a string of
-- NAME=value words); returns its exit code, stdout and stderr.
local function run(env, cmd)
  return fixture.sh(CLEAN_ENV .. env .. " sh -c " .. q(cmd))
end

local function count_lines(s)
  local n = 0
  for _ in s:gmatch("[^\n]*\n") do n = n + 1 end
  return n
end

-- The request bodies the fixture received.
local function requests(llm)
  local res = assert(mcp.http.request{ url = llm.url("/requests") })
  return assert(mcp.json.decode(res.body))
end

local SUM_SCRIPT = {
  { text = "Adding.", tool_calls = { { name = "everything_get-sum", arguments = { a = 2, b = 3 } } },
    expect_tool = "everything_get-sum" },
  { text = "The sum is {{last_tool_result}}" },
}

describe("luamcp agent", function()
  local dir, config

  -- Starts the fixture with a script (inside a task); returns it.
  local function llm_fixture(script)
    local path = dir .. "/script.json"
    write(path, mcp.json.encode(script))
    return fixture.http_server("llm", { "--script", path })
  end

  local function openai_env(llm)
    return ("OPENAI_BASE_URL=%s OPENAI_API_KEY=test"):format(q(llm.url("/v1")))
  end

  local function agent(args)
    return ("%s agent --config %s %s"):format(LUAMCP, q(config), args)
  end

  setup(function()
    dir = io.popen("mktemp -d"):read("l")
    local everything = fixture.everything_command()
    if everything[2]:sub(1, 1) ~= "/" then everything[2] = CWD .. "/" .. everything[2] end
    config = dir .. "/luamcp.json"
    write(config, mcp.json.encode{ mcp = { everything = { type = "local", command = everything } } })
  end)

  teardown(function() os.execute("rm -rf " .. q(dir)) end)

  it("piped: plain requests, the final answer alone on stdout, tool activity on stderr", function()
    run_async(function()
      local llm <close> = llm_fixture(SUM_SCRIPT)
      local code, out, err = run(openai_env(llm), agent("--model m add 2 and 3"))
      assert.equal(0, code, err)
      assert.equal("The sum is The sum of 2 and 3 is 5.\n", out)
      assert.matches('call everything_get%-sum {"[ab]":[23],"[ab]":[23]}\n', err)
      assert.matches("done everything_get-sum: The sum of 2 and 3 is 5.\n", err, 1, true)
      local reqs = requests(llm)
      assert.equal(2, #reqs)
      for _, r in ipairs(reqs) do
        assert.is_not_true(r.stream)
        assert.equal("m", r.model)
      end
      -- The words are the prompt; the servers' tools are offered.
      assert.equal("add 2 and 3", reqs[1].messages[#reqs[1].messages].content)
      local names = {}
      for _, t in ipairs(reqs[1].tools) do names[t["function"].name] = true end
      assert.is_true(names["everything_get-sum"] and names["everything_echo"])
      -- The second request carries the tool's result.
      local last = reqs[2].messages[#reqs[2].messages]
      assert.equal("tool", last.role)
    end, 60)
  end)

  it("reads the prompt from stdin when none is given", function()
    run_async(function()
      local llm <close> = llm_fixture(SUM_SCRIPT)
      local code, out, err = run(openai_env(llm), "printf 'add 2\\nand 3\\n\\n' | " .. agent("--quiet"))
      assert.equal(0, code, err)
      assert.equal("The sum is The sum of 2 and 3 is 5.\n", out)
      local first = requests(llm)[1]
      assert.equal("add 2\nand 3", first.messages[#first.messages].content)
    end, 60)
  end)

  it("--stream: streaming requests, the text on stdout as it comes", function()
    run_async(function()
      local llm <close> = llm_fixture(SUM_SCRIPT)
      local code, out, err = run(openai_env(llm), agent("--stream 'add 2 and 3'"))
      assert.equal(0, code, err)
      assert.matches("The sum is The sum of 2 and 3 is 5.\n$", out)
      assert.matches("done everything_get-sum: The sum of 2 and 3 is 5.", err, 1, true)
      local reqs = requests(llm)
      assert.equal(2, #reqs)
      assert.is_true(reqs[1].stream)
      assert.is_true(reqs[2].stream)
    end, 60)
  end)

  it("on a terminal: streams without being asked, text and tool calls as they come", function()
    run_async(function()
      local llm <close> = llm_fixture(SUM_SCRIPT)
      -- script(1) gives luamcp a pseudo-terminal for stdout and stderr.
      local code, out, err = run(openai_env(llm), "script -qfec "
        .. q(agent("--quiet 'add 2 and 3'")) .. " /dev/null </dev/null")
      assert.equal(0, code, err)
      out = out:gsub("\r", "")
      assert.matches("luamcp: openai model gpt%-[^\n]*, %d+ tools\n", out)
      -- The first turn's text, its line ended before the tool activity,
      -- then the tool call and its result, then the answer.
      assert.matches("Adding.\ncall everything_get%-sum {[^\n]*}\ndone everything_get%-sum: "
        .. "The sum of 2 and 3 is 5%.\nThe sum is The sum of 2 and 3 is 5%.\n", out)
      local reqs = requests(llm)
      assert.equal(2, #reqs)
      assert.is_true(reqs[1].stream)
    end, 60)
  end)

  it("speaks Anthropic's API when ANTHROPIC_API_KEY is the key set", function()
    run_async(function()
      local llm <close> = llm_fixture(SUM_SCRIPT)
      local env = ("ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=test"):format(q(llm.url("")))
      local code, out, err = run(env, agent("--model claude-x 'add 2 and 3'"))
      assert.equal(0, code, err)
      assert.equal("The sum is The sum of 2 and 3 is 5.\n", out)
      local reqs = requests(llm)
      assert.equal(2, #reqs)
      -- The Anthropic shape: max_tokens, tools with input_schema, the
      -- servers' instructions in the top-level system.
      assert.equal("claude-x", reqs[1].model)
      assert.is_number(reqs[1].max_tokens)
      assert.is_table(reqs[1].tools[1].input_schema)
      assert.matches("Instructions from the servers", reqs[1].system, 1, true)
      -- --provider anthropic says the same.
      local code2 = run(env .. " OPENAI_API_KEY=unused", agent("--provider anthropic hello"))
      assert.is_true(code2 ~= 0)     -- the script is exhausted: the fixture answered 400
      assert.equal(3, #requests(llm))
    end, 60)
  end)

  it("without a key: one line saying which variables to set, and nothing started", function()
    local code, out, err = run("", agent("'add 2 and 3'"))
    assert.is_true(code ~= 0)
    assert.equal("", out)
    assert.equal(1, count_lines(err), err)
    assert.matches("^luamcp: no model to talk to: set OPENAI_API_KEY", err)
    assert.matches("ANTHROPIC_API_KEY", err, 1, true)
    code, out, err = run("OPENAI_API_KEY=x", agent("--provider anthropic hi"))
    assert.is_true(code ~= 0)
    assert.equal("", out)
    assert.equal("luamcp: --provider anthropic needs ANTHROPIC_API_KEY "
      .. "(and ANTHROPIC_BASE_URL for another server)\n", err)
  end)

  it("--max-turns: stops there and says so in one line", function()
    run_async(function()
      local llm <close> = llm_fixture{ SUM_SCRIPT[1], SUM_SCRIPT[1], SUM_SCRIPT[1] }
      local code, out, err = run(openai_env(llm), agent("--max-turns 2 'add forever'"))
      assert.equal(1, code)
      assert.equal("Adding.\n", out)
      assert.matches("luamcp: stopped after 2 turns without a final answer (--max-turns)\n",
        err, 1, true)
      assert.equal(2, #requests(llm))
    end, 60)
  end)

  it("an error of the model fails in one line", function()
    run_async(function()
      local llm <close> = llm_fixture{ { error = { status = 400, message = "Bad model name" } } }
      local code, out, err = run(openai_env(llm), agent("--quiet hello"))
      assert.equal(1, code)
      assert.equal("", out)
      assert.equal(1, count_lines(err), err)
      assert.matches("^luamcp: .*Bad model name", err)
    end, 60)
  end)

  it("luamcp chat keeps the conversation across lines until EOF", function()
    run_async(function()
      local llm <close> = llm_fixture{
        SUM_SCRIPT[1], SUM_SCRIPT[2],
        { tool_calls = { { name = "everything_get-sum", arguments = { a = 4, b = 5 } } } },
        { text = "Then {{last_tool_result}}" },
      }
      local code, out, err = run(openai_env(llm), ("printf 'add 2 and 3\\n\\nand 4 and 5?\\n' | %s chat --config %s")
        :format(LUAMCP, q(config)))
      assert.equal(0, code, err)
      assert.equal("The sum is The sum of 2 and 3 is 5.\nThen The sum of 4 and 5 is 9.\n", out)
      local reqs = requests(llm)
      assert.equal(4, #reqs)
      -- The second line's first request holds the whole first exchange.
      local m = reqs[3].messages
      local texts = {}
      for _, msg in ipairs(m) do
        if msg.role ~= "system" and type(msg.content) == "string" then
          texts[#texts + 1] = msg.role .. ": " .. msg.content
        end
      end
      assert.same({ "user: add 2 and 3", "assistant: Adding.", "tool: The sum of 2 and 3 is 5.",
                    "assistant: The sum is The sum of 2 and 3 is 5.", "user: and 4 and 5?" }, texts)
    end, 60)
  end)

  it("luamcp chat at a terminal reads each line through the loop, with a prompt", function()
    run_async(function()
      local llm <close> = llm_fixture{ SUM_SCRIPT[1], SUM_SCRIPT[2],
        { text = "Second: {{last_tool_result}}" } }
      -- The terminal hands luamcp one line per read; script(1) passes the
      -- end of its input on as the terminal's end of file.
      local code, out, err = run(openai_env(llm), "printf 'add 2 and 3\\nagain\\n' | script -qfec "
        .. q(("%s chat --quiet --config %s"):format(LUAMCP, q(config))) .. " /dev/null")
      assert.equal(0, code, err)
      out = out:gsub("\r", "")
      assert.matches("> Adding.\ncall everything_get%-sum", out)
      assert.matches("The sum is The sum of 2 and 3 is 5%.\n\n> Second: The sum of 2 and 3 is 5%.\n", out)
      local reqs = requests(llm)
      assert.equal(3, #reqs)
      assert.equal("again", reqs[3].messages[#reqs[3].messages].content)
      assert.equal(5, #reqs[3].messages - 1)   -- the first exchange, then "again" (and the system)
    end, 60)
  end)

  it("Ctrl-C during a tool call shuts the servers down and exits 130", function()
    run_async(function()
      local llm <close> = llm_fixture{ { tool_calls = { {
        name = "everything_trigger-long-running-operation",
        arguments = { duration = 60, steps = 60 } } } } }
      local err, pidfile, codefile = os.tmpname(), os.tmpname(), os.tmpname()
      os.remove(codefile)
      assert(os.execute(("(%s %s %s 2>%s & echo $! >%s; wait $!; echo $? >%s) &"):format(
        CLEAN_ENV, openai_env(llm), agent("'take your time'"), q(err), q(pidfile), q(codefile))))
      local function wait_for(cond)
        local deadline = os.time() + 20
        while not cond() do
          if os.time() > deadline then return false end
          mcp.sleep(0.02)
        end
        return true
      end
      assert(wait_for(function() return fixture.slurp(pidfile):match("%d+") end))
      local pid = tonumber(fixture.slurp(pidfile):match("%d+"))
      local servers = {}
      finally(function()
        os.execute(("kill -KILL %d %s 2>/dev/null"):format(pid, table.concat(servers, " ")))
        os.remove(err)
        os.remove(pidfile)
        os.remove(codefile)
      end)
      assert(wait_for(function()
        return fixture.slurp(err):find("call everything_trigger-long-running-operation", 1, true)
      end), "the tool was never called: " .. fixture.slurp(err))
      for line in io.popen("pgrep -P " .. pid):lines() do servers[#servers + 1] = line end
      assert.equal(1, #servers)
      os.execute("kill -INT " .. pid)
      assert(wait_for(function() return fixture.slurp(codefile):match("%d+") end), "luamcp did not exit")
      assert.equal(130, tonumber(fixture.slurp(codefile):match("%d+")))
      assert.is_false(fixture.alive(tonumber(servers[1])), "the server was left running")
      assert.matches("luamcp: interrupted by SIGINT\n$", fixture.slurp(err))
    end, 60)
  end)
end)
