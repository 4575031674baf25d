-- The luamcp command line over mcp.host: every command against real
-- servers named in a config file (the echo fixture, server-everything
-- over stdio and HTTP, a server that cannot start, a disabled one),
-- --json output read back, error exits, the progress bar on a terminal
-- (through `script`'s pseudo-terminal) and nowhere else, and Ctrl-C
-- cancelling the running call.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local LUAMCP = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"
local CWD = io.popen("pwd"):read("l")
local LUAMCP_ABS = CWD .. "/" .. LUAMCP

local q = fixture.q

-- Runs a shell command (no LUAMCP_CONFIG but what cmd sets); returns its
-- exit code, stdout and stderr.
local function run(cmd) return fixture.sh("unset LUAMCP_CONFIG; " .. cmd) end

local function count_lines(s)
  local n = 0
  for _ in s:gmatch("[^\n]*\n") do n = n + 1 end
  return n
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function decode(text)
  local value, err = mcp.json.decode(text)
  assert(value ~= nil, ("not JSON (%s): %s"):format(tostring(err), text))
  return value
end

local function by_name(list)
  local t = {}
  for _, item in ipairs(list) do t[item.name] = item end
  return t
end

-- Asserts a failure: non-zero, nothing on stdout, one line on stderr
-- that says `what`.
local function assert_fails(code, out, err, what)
  assert.is_true(code ~= 0, "exit code 0")
  assert.equal("", out)
  assert.equal(1, count_lines(err), err)
  assert.matches("^luamcp: ", err)
  assert.matches(what, err, 1, true)
end

describe("luamcp over a config file", function()
  local dir, config, good_config, luamcp, good

  setup(function()
    dir = io.popen("mktemp -d"):read("l")
    local everything = fixture.everything_command()
    if everything[2]:sub(1, 1) ~= "/" then everything[2] = CWD .. "/" .. everything[2] end
    local echo = { "node", CWD .. "/spec/fixtures/echo.js" }
    -- luamcp's own format: the OpenCode shape.
    local servers = {
      echo = { type = "local", command = echo, environment = { SECRET = "hunter2" } },
      everything = { type = "local", command = everything },
      broken = { type = "local", command = { "/nonexistent/server" } },
      off = { type = "local", command = echo, enabled = false },
    }
    config = dir .. "/luamcp.json"
    write(config, ([[{ "mcp": { "echo": %s, "everything": %s, "broken": %s, "off": %s } }]]):format(
      mcp.json.encode(servers.echo), mcp.json.encode(servers.everything),
      mcp.json.encode(servers.broken), mcp.json.encode(servers.off)))
    good_config = dir .. "/good.json"
    write(good_config, ([[{ "mcp": { "echo": %s, "everything": %s } }]]):format(
      mcp.json.encode(servers.echo), mcp.json.encode(servers.everything)))
    luamcp = LUAMCP .. " --quiet --config " .. q(config) .. " "
    good = LUAMCP .. " --quiet --config " .. q(good_config) .. " "
  end)

  teardown(function()
    if dir and dir:match("^/tmp/") then os.execute("rm -rf " .. q(dir)) end
  end)

  describe("list", function()
    it("shows every server's state, tools, transport, era and protocol, and fails when one failed", function()
      local code, out, err = run(luamcp .. "list")
      assert.equal(1, code)
      assert.matches("^NAME%s+STATE%s+TOOLS%s+TRANSPORT%s+ERA%s+PROTOCOL%s+ERROR\n", out)
      assert.matches("\necho%s+connected%s+2%s+stdio%s+legacy%s+2025%-11%-25\n", out)
      assert.matches("\neverything%s+connected%s+%d+%s+stdio%s+legacy%s+2025%-11%-25\n", out)
      assert.matches("\nbroken%s+failed%s+%-%s+stdio%s+%-%s+%-%s+cannot start '/nonexistent/server'", out)
      assert.matches("\noff%s+disabled%s", out)
      assert.equal("luamcp: 1 of 4 servers failed: broken\n", err)
    end)

    it("prints JSON with --json, in config order", function()
      local code, out = run(luamcp .. "list --json")
      assert.equal(1, code)
      local list = decode(out)
      assert.same({ "echo", "everything", "broken", "off" },
        { list[1].name, list[2].name, list[3].name, list[4].name })
      local s = by_name(list)
      assert.equal("connected", s.echo.state)
      assert.equal(2, s.echo.tools)
      assert.equal("stdio", s.echo.transport)
      assert.equal("2025-11-25", s.echo.protocol_version)
      assert.equal("echo-fixture", s.echo.server_info.name)
      assert.equal("failed", s.broken.state)
      assert.equal("ESPAWN", s.broken.error.code)
      assert.equal("disabled", s.off.state)
    end)

    it("exits 0 when every server connected, and reads LUAMCP_CONFIG", function()
      local code, out, err = run("LUAMCP_CONFIG=" .. q(good_config) .. " " .. LUAMCP .. " list --quiet")
      assert.equal(0, code, err)
      assert.equal("", err)
      assert.equal(3, count_lines(out))
    end)
  end)

  describe("tools", function()
    it("lists every connected server's tools as server_tool", function()
      local code, out, err = run(good .. "tools")
      assert.equal(0, code, err)
      assert.matches("^echo_echo\t[^\n]*\necho_add\t[^\n]*\tAdd two numbers\n", out)
      assert.matches("\neverything_get%-sum\t", out)
    end)

    it("prints the tools as a JSON array with --json", function()
      local code, out = run(good .. "tools --json")
      assert.equal(0, code)
      local tools = by_name(decode(out))
      assert.equal("echo", tools.echo_add.server)
      assert.equal("add", tools.echo_add.tool_name)
      assert.equal("object", tools.echo_add.inputSchema.type)
      assert.equal("get-sum", tools["everything_get-sum"].tool_name)
    end)

    it("lists one server's tools by their own names", function()
      local code, out = run(luamcp .. "tools echo")
      assert.equal(0, code)
      assert.matches("^echo\t[^\n]*\nadd\t[^\n]*\tAdd two numbers\n$", out)
      code, out = run(luamcp .. "tools echo --json")
      assert.equal(0, code)
      local list = decode(out)
      assert.equal(2, #list)
      assert.same({ "echo", "add" }, { list[1].name, list[2].name })
      assert.same({ "a", "b" }, list[2].inputSchema.required)
    end)

    it("shows the tools that need the CLI's elicitation and roots handlers", function()
      local code, out = run(luamcp .. "tools everything")
      assert.equal(0, code)
      assert.matches("\nget%-roots%-list\t", "\n" .. out)
      assert.matches("\ntrigger%-elicitation%-request\t", "\n" .. out)
    end)

    it("lists the others and exits non-zero when a server failed", function()
      local code, out, err = run(luamcp .. "tools")
      assert.equal(1, code)
      assert.matches("^echo_echo\t", out)
      assert.equal("luamcp: server broken: failed: ESPAWN: cannot start '/nonexistent/server': "
        .. "no such file or directory\n", err)
    end)
  end)

  describe("call", function()
    it("calls a tool by the server's own name", function()
      local code, out, err = run(luamcp .. [[call everything get-sum '{"a":2,"b":3}']])
      assert.equal(0, code, err)
      assert.equal("The sum of 2 and 3 is 5.\n", out)
    end)

    it("sends {} when no arguments are given", function()
      local code, out = run(luamcp .. "call everything get-tiny-image")
      assert.equal(0, code)
      assert.matches('"type":"image"', out, 1, true)
    end)

    it("prints the whole result as JSON with --json", function()
      local code, out = run(luamcp .. [[call --json echo add '{"a":1,"b":2}']])
      assert.equal(0, code)
      assert.equal(3, decode(out).structuredContent.sum)
    end)

    it("answers roots/list with the working directory", function()
      local code, out = run("cd " .. q(dir) .. " && " .. LUAMCP_ABS .. " --quiet --config "
        .. q(config) .. " call everything get-roots-list")
      assert.equal(0, code)
      assert.matches("URI: file://" .. dir, out, 1, true)
    end)

    it("takes a command after --, with the tool last", function()
      local code, out = run(LUAMCP .. " call --quiet -- node spec/fixtures/echo.js echo '{\"message\":\"hi\"}'")
      assert.equal(0, code)
      assert.equal("hi\n", out)
    end)

    it("takes a URL", function()
      run_async(function()
        local server <close> = fixture.http_server("everything_http", { "streamableHttp" })
        local code, out, err = run(LUAMCP .. " call --quiet " .. server.url("/mcp")
          .. [[ get-sum '{"a":4,"b":5}']])
        assert.equal(0, code, err)
        assert.equal("The sum of 4 and 5 is 9.\n", out)
        code, out = run(LUAMCP .. " list --json --quiet " .. server.url("/mcp"))
        assert.equal(0, code)
        local s = decode(out)[1]
        assert.equal("127.0.0.1", s.name)
        assert.equal("streamable-http", s.transport)
      end, 30)
    end)

    local failures = {
      { "an unknown server", "call nosuch echo", 'no server named "nosuch"' },
      { "bad JSON arguments", "call echo echo '{oops'", "bad JSON" },
      { "arguments that are not an object", "call echo echo '[1]'", "JSON object" },
      { "a server that cannot start", "call broken anything", "ESPAWN" },
      { "a disabled server", "call off echo", "disabled" },
      { "an unknown tool", "call echo nope", "ERPC" },
      { "a missing tool", "call echo", "usage: luamcp call" },
      { "a missing server", "call", "missing server" },
      { "an unknown option", "call --frobnicate echo echo", "unknown option '--frobnicate'" },
    }
    for _, case in ipairs(failures) do
      it("exits non-zero with one line for " .. case[1], function()
        local code, out, err = run(luamcp .. case[2])
        assert_fails(code, out, err, case[3])
      end)
    end
  end)

  it("fails with one line for a config file that does not exist", function()
    local code, out, err = run(LUAMCP .. " --config /nonexistent/luamcp.json tools echo")
    assert_fails(code, out, err, "/nonexistent/luamcp.json")
  end)

  describe("resources, read, prompts, prompt, ping", function()
    it("lists a server's resources, as text and as JSON", function()
      local code, out = run(luamcp .. "resources everything")
      assert.equal(0, code)
      assert.matches("^demo://resource/static/document/architecture%.md\tarchitecture%.md\ttext/markdown\t", out)
      code, out = run(luamcp .. "resources everything --json")
      assert.equal(0, code)
      local list = decode(out)
      assert.is_true(#list >= 3)
      assert.equal("demo://resource/static/document/architecture.md", list[1].uri)
    end)

    it("lists every server's resources without a server", function()
      local code, out = run(good .. "resources --json")
      assert.equal(0, code)
      local list = decode(out)
      assert.equal("everything", list[1].server)
    end)

    it("reads a resource", function()
      local code, out = run(luamcp .. "read everything demo://resource/static/document/architecture.md")
      assert.equal(0, code)
      assert.matches("#", out, 1, true)
      code, out = run(luamcp .. "read everything demo://resource/static/document/architecture.md --json")
      assert.equal(0, code)
      assert.equal("text/markdown", decode(out).contents[1].mimeType)
    end)

    it("lists prompts with their arguments", function()
      local code, out = run(luamcp .. "prompts everything")
      assert.equal(0, code)
      assert.matches("\nargs%-prompt\tcity state%?\t", "\n" .. out)
      code, out = run(luamcp .. "prompts everything --json")
      assert.equal(0, code)
      assert.equal("city", by_name(decode(out))["args-prompt"].arguments[1].name)
    end)

    it("gets a prompt's messages", function()
      local code, out = run(luamcp .. [[prompt everything args-prompt '{"city":"Paris"}']])
      assert.equal(0, code)
      assert.matches("^user: [^\n]*Paris", out)
      code, out = run(luamcp .. [[prompt everything args-prompt '{"city":"Oslo"}' --json]])
      assert.equal(0, code)
      assert.matches("Oslo", decode(out).messages[1].content.text, 1, true)
    end)

    it("pings a server", function()
      local code, out = run(luamcp .. "ping echo")
      assert.equal(0, code)
      assert.matches("^echo: pong in [%d.]+ ms\n$", out)
      code, out = run(luamcp .. "ping echo --json")
      assert.equal(0, code)
      assert.equal("echo", decode(out).server)
    end)

    it("fails with one line for a resource that does not exist", function()
      local code, out, err = run(luamcp .. "read everything demo://nope")
      assert_fails(code, out, err, "ERPC")
    end)
  end)

  describe("debug", function()
    it("shows every step of connecting, with secrets masked", function()
      local code, out = run(luamcp .. "debug echo")
      assert.equal(0, code)
      assert.matches("config: " .. config .. " (luamcp format)", out, 1, true)
      assert.matches("command: node " .. CWD .. "/spec/fixtures/echo.js", out, 1, true)
      assert.matches("env: SECRET=***", out, 1, true)
      assert.is_nil(out:find("hunter2", 1, true))
      assert.matches("echo: connecting\n", out, 1, true)
      assert.matches("echo: connected\n", out, 1, true)
      assert.matches("transport: stdio\n", out, 1, true)
      assert.matches("protocol version: 2025-11-25\n", out, 1, true)
      assert.matches('server info: {[^\n]*"name":"echo%-fixture"', out)
      assert.matches('server capabilities: {[^\n]*"tools"', out)
      assert.matches('client capabilities: {[^\n]*"elicitation"', out)
      assert.matches("tools/list: 2 tools\n  echo\t", out, 1, true)
      -- The messages themselves, as they went.
      assert.matches('ms%] > {"jsonrpc":"2.0","id":1,"method":"server/discover"', out)
      assert.matches('ms%] > {"jsonrpc":"2.0","id":2,"method":"initialize"', out)
      assert.matches('ms%] < {[^\n]*"serverInfo"', out)
    end)

    it("shows the HTTP exchange and the OAuth discovery, credentials masked", function()
      run_async(function()
        local server <close> = fixture.http_server("oauth_hostile")
        local remote = dir .. "/traced.json"
        write(remote, ([[{ "mcp": { "t": { "type": "remote", "url": "%s",
          "headers": { "X-Api-Key": "k3y-s3cret", "X-Tenant": "t1" } } } }]]):format(
          server.url("/mcp/plain")))
        local code, out, err = run(LUAMCP .. " --quiet --config " .. q(remote) .. " debug t")
        assert.is_true(code ~= 0)
        assert.matches("ms%] > POST /mcp/plain HTTP/1.1\n", out)
        assert.matches("ms%] > X%-Tenant: t1\n", out)
        assert.matches("ms%] > X%-Api%-Key: %*%*%*\n", out)
        assert.matches("ms%] < HTTP/1.1 401", out)
        assert.matches("ms%] > GET /.well%-known/oauth%-protected%-resource/mcp/plain", out)
        assert.matches("t: needs_auth", out, 1, true)
        assert.is_nil((out .. err):find("s3cret", 1, true))
      end)
    end)

    it("masks header values of a remote server", function()
      local remote = dir .. "/remote.json"
      write(remote, [[{ "mcpServers": { "r": { "type": "http",
        "url": "http://127.0.0.1:9/mcp", "headers": { "Authorization": "Bearer s3cret" } } } }]])
      local code, out, err = run(LUAMCP .. " --quiet --config " .. q(remote) .. " debug r")
      assert.is_true(code ~= 0)
      assert.matches("url: http://127.0.0.1:9/mcp", out, 1, true)
      assert.matches("header: Authorization: ***", out, 1, true)
      assert.is_nil((out .. err):find("s3cret", 1, true))
      assert.equal(1, count_lines(err), err)
    end)
  end)
end)

describe("luamcp auth and logout by config name", function()
  local dir, config

  setup(function()
    dir = io.popen("mktemp -d"):read("l")
    config = dir .. "/.mcp.json"
    write(config, [[{ "mcpServers": {
      "remote": { "type": "http", "url": "http://127.0.0.1:9/mcp" },
      "local": { "command": "node", "args": ["x.js"] } } }]])
    write(dir .. "/opencode.json", [[{ "mcp": {
      "closed": { "type": "remote", "url": "http://127.0.0.1:9/mcp", "oauth": false } } }]])
  end)

  teardown(function()
    if dir and dir:match("^/tmp/") then os.execute("rm -rf " .. q(dir)) end
  end)

  -- The token store is the temporary directory's.
  local function luamcp(rest, cfg)
    return run("XDG_DATA_HOME=" .. q(dir) .. " " .. LUAMCP .. " --config " .. q(cfg or config)
      .. " " .. rest)
  end

  it("logout takes the server's URL from the config", function()
    local code, out, err = luamcp("logout remote")
    assert.equal(0, code, err)
    assert.equal("http://127.0.0.1:9/mcp: no tokens were kept\n", out)
  end)

  it("refuses a server that runs a command, one with oauth off, and an unknown one", function()
    local code, out, err = luamcp("auth local")
    assert_fails(code, out, err, 'server "local" runs a command')
    code, out, err = luamcp("auth closed", dir .. "/opencode.json")
    assert_fails(code, out, err, 'server "closed" has oauth turned off')
    code, out, err = luamcp("logout nosuch")
    assert_fails(code, out, err, 'no server named "nosuch"')
  end)
end)

describe("luamcp call's progress bar", function()
  local args = "call --quiet -- " .. table.concat(fixture.everything_command(), " ")
    .. [[ trigger-long-running-operation '{"duration":0.4,"steps":4}']]
  local RESULT = "Long running operation completed. Duration: 0.4 seconds, Steps: 4."

  it("is drawn on a terminal with each step and cleared before the result", function()
    -- script gives the command a pseudo-terminal; what the terminal got
    -- (stdout and stderr both) comes out on script's stdout. script needs
    -- a stdin it can open and read: busted's is not one (script then
    -- prints nothing), /dev/null is.
    local code, out = run("script -qfec " .. q(LUAMCP .. " " .. args) .. " /dev/null </dev/null")
    assert.equal(0, code)
    local CLEAR = "\r\27[2K"
    for _, pct in ipairs{ " 25%", " 50%", " 75%", "100%" } do
      assert.matches(CLEAR .. "trigger-long-running-operation [", out, 1, true)
      assert.matches("] " .. pct, out, 1, true)
    end
    assert.matches("[" .. ("#"):rep(24) .. "] 100%", out, 1, true)
    -- The last thing before the result is the line being wiped.
    assert.matches("100%" .. CLEAR .. RESULT .. "\r\n", out, 1, true)
  end)

  it("is not drawn off a terminal: stdout is the result, stderr is empty", function()
    local code, out, err = run(LUAMCP .. " " .. args)
    assert.equal(0, code)
    assert.equal(RESULT .. "\n", out)
    assert.equal("", err)
  end)
end)

describe("luamcp interrupted during a call", function()
  it("cancels the call (notifications/cancelled), shuts the server down and exits 130", function()
    local dir = io.popen("mktemp -d"):read("l")
    local server, log = dir .. "/observer.js", dir .. "/cancelled"
    -- A server that never answers `slow`, says so on stderr, and writes
    -- every cancellation it receives to a file.
    write(server, ([[
      const fs = require('fs');
      const { serve, log, NO_REPLY } = require(%q);
      serve({
        name: 'observer',
        tools: { slow: { description: 'never answers',
                         handler: () => { log('stalled'); return NO_REPLY; } } },
        onNotification: (msg) => {
          if (msg.method === 'notifications/cancelled')
            fs.appendFileSync(%q, JSON.stringify(msg.params) + '\n');
        },
      });
    ]]):format(CWD .. "/spec/fixtures/lib/server", log))
    local err, pidfile, codefile = dir .. "/err", dir .. "/pid", dir .. "/code"
    finally(function()
      local pid = fixture.slurp(pidfile):match("%d+")
      if pid then os.execute("kill -KILL " .. pid .. " 2>/dev/null") end
      os.execute("rm -rf " .. q(dir))
    end)
    assert(os.execute(("(%s call -- node %s slow 2>%s & echo $! >%s; wait $!; echo $? >%s) &")
      :format(LUAMCP, q(server), q(err), q(pidfile), q(codefile))))
    local function wait_for(cond)
      for _ = 1, 500 do
        if cond() then return true end
        os.execute("sleep 0.02")
      end
      return false
    end
    assert(wait_for(function() return fixture.slurp(err):find("stalled", 1, true) end),
      "the call never reached the server: " .. fixture.slurp(err))
    local pid = tonumber(fixture.slurp(pidfile):match("%d+"))
    local children = io.popen("pgrep -P " .. pid):read("a")
    local child = tonumber(children:match("%d+"))
    assert.is_not_nil(child)
    os.execute("kill -INT " .. pid)
    assert(wait_for(function() return fixture.slurp(codefile):match("%d+") end), "luamcp did not exit")
    assert.equal(130, tonumber(fixture.slurp(codefile):match("%d+")))
    assert.is_false(fixture.alive(child), "the server was left running")
    local cancelled = decode(fixture.slurp(log):match("[^\n]+") or "")
    assert.equal("interrupted by SIGINT", cancelled.reason)
    assert.matches("luamcp: interrupted by SIGINT\n$", fixture.slurp(err))
  end)
end)
