-- mcp.host.config: each config format read from a file as people write
-- it, the search order, the order of servers, and errors that name the
-- file, the server and the key without showing secrets.
local config = require "mcp.host.config"
local core = require "mcp.core"

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  assert(p:close(), cmd)
  return (out:gsub("%s+$", ""))
end

-- A fresh directory per test, removed afterwards.
local dir
before_each(function() dir = sh("mktemp -d") end)
after_each(function() sh("rm -rf '" .. dir .. "'") end)

local function write(rel, text)
  local path = dir .. "/" .. rel
  sh("mkdir -p '" .. path:match("^(.*)/") .. "'")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local function load_error(source, opts)
  local cfg, err = config.load(source, opts)
  assert.is_nil(cfg)
  assert.is_true(require("mcp.errors").is(err, err.code))
  return err
end

describe("config.load: OpenCode", function()
  it("reads the older form: JSONC, {env:}, {file:}, local and remote, file order", function()
    write("secrets/token", "  s3cret-token\n")
    local path = write("opencode.jsonc", [[
{
  // OpenCode's own keys are ignored
  "$schema": "https://opencode.ai/config.json",
  "theme": "opencode",
  "mcp": {
    /* a local server first, though its name sorts last */
    "zeta": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "{env:PROJECT}"],
      "environment": { "LOG": "{env:LOG_LEVEL}", "UNSET": "{env:NOPE}", },
      "enabled": true,
      "timeout": 10000,
    },
    "alpha": {
      "type": "remote",
      "url": "https://mcp.example.com/mcp", // trailing comment with "quotes, }"
      "headers": { "Authorization": "Bearer {file:secrets/token}" },
      "oauth": { "clientId": "my-app", "clientSecret": "{env:SECRET}", "scope": "read write",
                 "redirectUri": "http://127.0.0.1:8912/cb" },
      "enabled": false,
    },
    "mid": { "type": "remote", "url": "http://127.0.0.1:3000/mcp", "oauth": false },
  },
}
]])
    local env = { PROJECT = "/srv/project", LOG_LEVEL = "debug", SECRET = "xyz" }
    local cfg = assert(config.load(path, { env = env }))
    assert.equal("opencode", cfg.format)
    assert.equal(path, cfg.path)
    assert.same({ "zeta", "alpha", "mid" }, cfg.order)
    assert.same({
      name = "zeta", enabled = true,
      command = { "npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv/project" },
      env = { LOG = "debug", UNSET = "" },
      timeout = { startup = 10, catalog = 10 },
    }, cfg.servers.zeta)
    assert.same({
      name = "alpha", enabled = false, transport = "auto",
      url = "https://mcp.example.com/mcp",
      headers = { Authorization = "Bearer s3cret-token" },
      oauth = { client_id = "my-app", client_secret = "xyz", scope = "read write",
                redirect_uri = "http://127.0.0.1:8912/cb" },
    }, cfg.servers.alpha)
    assert.is_false(cfg.servers.mid.oauth)
    assert.is_true(cfg.servers.mid.enabled)
  end)

  it("reads the newer form: mcp.servers, disabled, timeouts in ms, snake_case oauth, cwd", function()
    local home = write("home/.keys/gh", "ghp_abc\n"):match("^(.*)/%.keys/gh$")
    local path = write("project/.opencode/opencode.json", [[
{
  "mcp": {
    "servers": {
      "everything": {
        "type": "local",
        "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
        "cwd": "tools",
        "timeout": { "startup": 20000, "catalog": 5000, "execution": 120000 }
      },
      "github": {
        "type": "remote",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": { "Authorization": "Bearer {file:~/.keys/gh}" },
        "oauth": { "client_id": "cid", "callback_port": 19876,
                   "client_metadata_url": "https://app.example/client.json" },
        "disabled": true
      }
    }
  }
}
]])
    local cfg = assert(config.load(path, { env = { HOME = home } }))
    assert.same({ "everything", "github" }, cfg.order)
    local e = cfg.servers.everything
    assert.equal(dir .. "/project/.opencode/tools", e.cwd)
    assert.same({ startup = 20, catalog = 5, execution = 120 }, e.timeout)
    assert.is_true(e.enabled)
    local g = cfg.servers.github
    assert.is_false(g.enabled)
    assert.equal("Bearer ghp_abc", g.headers.Authorization)
    assert.same({ client_id = "cid", callback_port = 19876,
                  client_metadata_url = "https://app.example/client.json" }, g.oauth)
  end)

  it("reads the grants without a person: key and assertion files beside the config, secrets from the environment", function()
    local path = write("project/opencode.json", [[
{ "mcp": {
    "ci": { "type": "remote", "url": "https://mcp.example.com/mcp",
            "oauth": { "grant": "client_credentials", "clientId": "bot",
                       "privateKey": "keys/bot.pem", "dpop": true } },
    "wif": { "type": "remote", "url": "https://mcp.example.com/mcp",
             "oauth": { "grant": "jwt_bearer", "assertion": "/var/run/token" } },
    "wif2": { "type": "remote", "url": "https://mcp.example.com/mcp",
              "oauth": { "grant": "jwt_bearer", "assertion": ["gcloud", "auth", "print-identity-token"] } },
    "ema": { "type": "remote", "url": "https://mcp.example.com/mcp",
             "oauth": { "grant": "token_exchange", "client_id": "app",
                        "client_secret": "{env:APP_SECRET}", "assertion": "~/id_token",
                        "idp_token_endpoint": "https://idp.example.com/token",
                        "idp_client_id": "idp-app", "idp_client_secret": "{env:IDP_SECRET}" } } } }
]])
    local cfg = assert(config.load(path, { env = { HOME = "/home/u", APP_SECRET = "a1",
                                                   IDP_SECRET = "i1" } }))
    assert.same({ grant = "client_credentials", client_id = "bot", dpop = true,
                  private_key = dir .. "/project/keys/bot.pem" }, cfg.servers.ci.oauth)
    assert.same({ grant = "jwt_bearer", assertion = "/var/run/token" }, cfg.servers.wif.oauth)
    assert.same({ grant = "jwt_bearer", assertion = { "gcloud", "auth", "print-identity-token" } },
      cfg.servers.wif2.oauth)
    assert.same({ grant = "token_exchange", client_id = "app", client_secret = "a1",
                  assertion = "/home/u/id_token",
                  idp_token_endpoint = "https://idp.example.com/token",
                  idp_client_id = "idp-app", idp_client_secret = "i1" }, cfg.servers.ema.oauth)
  end)

  it("keeps a server named 'servers' of the older form as a server", function()
    local path = write("opencode.json", [[
{ "mcp": { "servers": { "type": "local", "command": ["srv"] }, "b": { "type": "local", "command": ["b"] } } }
]])
    local cfg = assert(config.load(path))
    assert.same({ "servers", "b" }, cfg.order)
    assert.same({ "srv" }, cfg.servers.servers.command)
  end)

  it("fails on a {file:} that cannot be read, naming server and key", function()
    local path = write("opencode.json", [[
{ "mcp": { "api": { "type": "remote", "url": "https://x.example/mcp",
  "headers": { "X-Key": "{file:missing.txt}" } } } }
]])
    local err = load_error(path)
    assert.equal("ENOENT", err.code)
    assert.matches('opencode.json: server "api": mcp.api.headers.X%-Key names {file:missing.txt}',
      err.message)
    assert.equal("api", err.server)
    assert.equal("mcp.api.headers.X-Key", err.key)
  end)
end)

describe("config.load: Claude", function()
  it("reads mcpServers with ${VAR} and ${VAR:-default}, stdio, http and sse", function()
    local path = write(".mcp.json", [[
{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${ROOT:-/tmp}"],
      "env": { "TOKEN": "${API_TOKEN}", "MODE": "${MODE:-safe}" }
    },
    "remote": { "type": "http", "url": "${BASE_URL:-https://mcp.example.com}/mcp",
                "headers": { "Authorization": "Bearer ${API_TOKEN}" } },
    "legacy": { "type": "sse", "url": "http://127.0.0.1:8080/sse", "disabled": true },
    "plain": { "url": "https://plain.example/mcp" }
  }
}
]])
    local cfg = assert(config.load(path, { env = { API_TOKEN = "t0k", MODE = "fast" } }))
    assert.equal("claude", cfg.format)
    assert.same({ "filesystem", "remote", "legacy", "plain" }, cfg.order)
    assert.same({
      name = "filesystem", enabled = true,
      command = { "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp" },
      env = { TOKEN = "t0k", MODE = "fast" },
    }, cfg.servers.filesystem)
    assert.same({
      name = "remote", enabled = true, transport = "streamable-http",
      url = "https://mcp.example.com/mcp", headers = { Authorization = "Bearer t0k" },
    }, cfg.servers.remote)
    assert.equal("sse", cfg.servers.legacy.transport)
    assert.is_false(cfg.servers.legacy.enabled)
    assert.equal("auto", cfg.servers.plain.transport)
  end)

  it("fails on ${VAR} unset without a default, as Claude Code does", function()
    local path = write("claude_desktop_config.json", [[
{ "mcpServers": { "gh": { "command": "gh-mcp", "env": { "GITHUB_TOKEN": "${GH_TOKEN}" } } } }
]])
    local err = load_error(path, { env = {} })
    assert.equal("EINVAL", err.code)
    assert.matches('claude_desktop_config.json: server "gh": mcpServers.gh.env.GITHUB_TOKEN uses ${GH_TOKEN}',
      err.message, 1, true)
  end)

  it("leaves keys other than command, args, env, url and headers unexpanded", function()
    local path = write(".mcp.json", [[
{ "mcpServers": { "a": { "command": "a", "cwd": "${NOT_EXPANDED}" } } }
]])
    local cfg = assert(config.load(path, { env = { NOT_EXPANDED = "x" } }))
    assert.equal(dir .. "/${NOT_EXPANDED}", cfg.servers.a.cwd)
  end)
end)

describe("config.load: VS Code", function()
  local function vscode_file()
    write(".env", [[
# comments and blank lines are skipped

DB_URL="postgres://localhost/db"
export REGION=eu-west-1
SHARED='from file'
PLAIN=value # a comment
]])
    return write(".vscode/mcp.json", [[
{
  // VS Code keeps inputs at the top level
  "inputs": [
    { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
    { "type": "promptString", "id": "region", "description": "Region", "default": "us" }
  ],
  "servers": {
    "db": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/db-mcp",
      "args": ["--key", "${input:api-key}", "--home", "${userHome}"],
      "envFile": "${workspaceFolder}/.env",
      "env": { "SHARED": "from env", "KEY_AGAIN": "${input:api-key}", "USER": "${env:USER}" },
      "cwd": "${workspaceFolder}/data"
    },
    "web": { "type": "http", "url": "https://mcp.example.com/${input:region}",
             "headers": { "X-Key": "${input:api-key}" } },
    "events": { "type": "sse", "url": "http://127.0.0.1:9000/sse" },
    "off": { "command": "off", "args": ["${input:never}"], "disabled": true }
  }
}
]])
  end

  it("reads servers, inputs via opts.ask (once per id), envFile, ${workspaceFolder}", function()
    local path = vscode_file()
    local asked = {}
    local cfg = assert(config.load(path, {
      env = { HOME = "/home/me", USER = "me" },
      ask = function(input)
        asked[#asked + 1] = input.id
        if input.id == "api-key" then
          assert.is_true(input.password)
          assert.equal("API key", input.description)
          return "k-123"
        end
        return ""                                 -- empty: the default
      end,
    }))
    assert.equal("vscode", cfg.format)
    assert.same({ "db", "web", "events", "off" }, cfg.order)
    table.sort(asked)
    assert.same({ "api-key", "region" }, asked)
    assert.same({
      name = "db", enabled = true,
      command = { dir .. "/bin/db-mcp", "--key", "k-123", "--home", "/home/me" },
      env = { DB_URL = "postgres://localhost/db", REGION = "eu-west-1",
              SHARED = "from env", PLAIN = "value", KEY_AGAIN = "k-123", USER = "me" },
      cwd = dir .. "/data",
    }, cfg.servers.db)
    assert.same({
      name = "web", enabled = true, transport = "streamable-http",
      url = "https://mcp.example.com/us", headers = { ["X-Key"] = "k-123" },
    }, cfg.servers.web)
    assert.equal("sse", cfg.servers.events.transport)
    assert.is_false(cfg.servers.off.enabled)
  end)

  it("takes answers from opts.inputs and the workspace from opts.workspace", function()
    local path = vscode_file()
    write("elsewhere/.env", "DB_URL=other\n")
    local cfg = assert(config.load(path, {
      workspace = dir .. "/elsewhere",
      inputs = { ["api-key"] = "given", region = "ap" },
      ask = function(input) error("asked for " .. input.id) end,
    }))
    assert.equal(dir .. "/elsewhere/bin/db-mcp", cfg.servers.db.command[1])
    assert.equal("given", cfg.servers.db.command[3])
    assert.equal("other", cfg.servers.db.env.DB_URL)
    assert.equal("https://mcp.example.com/ap", cfg.servers.web.url)
  end)

  -- The terminal is a pseudo-terminal made by script(1); the answer is
  -- typed once, and a second load in the same process must not ask again.
  it("asks at the terminal once per process and id, and restores the terminal", function()
    local root = core.cwd()
    local program = write("ask.lua", ([[
package.path = %q .. "/lua/?.lua;" .. %q .. "/lua/?/init.lua;" .. package.path
package.cpath = %q .. "/?.so;" .. package.cpath
local config = require "mcp.host.config"
local function stty() local p = io.popen("stty -g < /dev/tty"); local s = p:read("a"); p:close(); return s end
local before = stty()
local file = { inputs = { { id = "key", description = "Your API key", password = true } },
  servers = { a = { command = "a", args = { "${input:key}" } } } }
local one = assert(config.load(file))
local two = assert(config.load(file))
print("ANSWERS " .. one.servers.a.command[2] .. " " .. two.servers.a.command[2]
  .. " restored=" .. tostring(stty() == before))
]]):format(root, root, os.getenv("MCP_BUILD_DIR") and root .. "/" .. os.getenv("MCP_BUILD_DIR")
      or root .. "/build"))
    -- MCP_LUA: the lua5.4 that loads this build's core.so (ASan preloaded).
    local p = assert(io.popen(("printf 'hunter2\\n' | timeout 10 script -qec '%s %s' /dev/null 2>&1")
      :format(os.getenv("MCP_LUA") or "lua5.4", program)))
    local out = p:read("a"):gsub("\r", "")
    p:close()
    assert.matches("Your API key: ", out, 1, true)
    assert.matches("ANSWERS hunter2 hunter2 restored=true", out, 1, true)
    local _, prompts = out:gsub("Your API key", "")
    assert.equal(1, prompts)
  end)

  it("fails on an input no entry declares, and on a missing envFile", function()
    local path = write(".vscode/mcp.json", [[
{ "servers": { "s": { "command": "s", "args": ["${input:ghost}"] } } }
]])
    local err = load_error(path, { ask = function() return "x" end })
    assert.matches('mcp.json: server "s": servers.s.args[0] uses ${input:ghost}',
      err.message, 1, true)
    path = write(".vscode/mcp.json", [[
{ "servers": { "s": { "command": "s", "envFile": "${workspaceFolder}/nope.env" } } }
]])
    err = load_error(path)
    assert.equal("ENOENT", err.code)
    assert.equal("servers.s.envFile", err.key)
  end)
end)

describe("config.load: luamcp's own", function()
  it("reads handlers, tool filters, restart, roots and protocol", function()
    local path = write("luamcp.json", [[
{
  "mcp": {
    "fs": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
      "handlers": { "sampling": "myproject.sampling", "elicitation": "myproject.ask" },
      "tools": { "include": ["read_*", "list_*"], "exclude": ["*_dangerous"] },
      "restart": { "max": 3, "backoff": 500 },
      "roots": [ "docs", "~/notes", { "uri": "file:///srv/data", "name": "data" } ],
      "protocol": "2025-11-25",
      "timeout": { "startup": 30000 }
    }
  }
}
]])
    local cfg = assert(config.load(path, { env = { HOME = "/home/me" } }))
    assert.equal("luamcp", cfg.format)
    local fs = cfg.servers.fs
    assert.same({ sampling = "myproject.sampling", elicitation = "myproject.ask" }, fs.handlers)
    assert.same({ include = { "read_*", "list_*" }, exclude = { "*_dangerous" } }, fs.tools)
    assert.same({ max = 3, backoff = 0.5 }, fs.restart)
    assert.same({
      { uri = core.file_uri(dir .. "/docs"), name = "docs" },
      { uri = "file:///home/me/notes", name = "notes" },
      { uri = "file:///srv/data", name = "data" },
    }, fs.roots)
    assert.equal("2025-11-25", fs.protocol)
    assert.same({ startup = 30 }, fs.timeout)
  end)

  it("reads tool filters in OpenCode files but luamcp's other keys only in its own", function()
    local text = [[
{ "mcp": { "a": { "type": "local", "command": ["a"], "tools": { "exclude": ["x"] },
  "restart": { "max": 2 }, "protocol": "auto" } } }
]]
    local cfg = assert(config.load(write("opencode.json", text)))
    assert.same({ exclude = { "x" } }, cfg.servers.a.tools)
    assert.is_nil(cfg.servers.a.restart)
    cfg = assert(config.load(write("opencode.json", text), { format = "luamcp" }))
    assert.equal("luamcp", cfg.format)
    assert.same({ max = 2 }, cfg.servers.a.restart)
    assert.equal("auto", cfg.servers.a.protocol)
  end)

  it("refuses a handler kind it does not know and a bad protocol", function()
    local err = load_error(write("luamcp.json", [[
{ "mcp": { "a": { "command": ["a"], "handlers": { "sampeling": "m" } } } }
]]))
    assert.equal('luamcp.json: server "a": mcp.a.handlers.sampeling is not a handler '
      .. "(sampling, elicitation or roots)", err.message:match("[^/]*$"))
    err = load_error(write("luamcp.json", [[
{ "mcp": { "a": { "command": ["a"], "protocol": "latest" } } }
]]))
    assert.equal("mcp.a.protocol", err.key)
  end)
end)

describe("config.load: tables, detection and order", function()
  it("takes a decoded table, detects its format and orders servers by name", function()
    local cfg = assert(config.load({
      servers = { b = { type = "http", url = "https://b.example/mcp" },
                  a = { command = "a", args = { "--x" } } },
    }))
    assert.equal("vscode", cfg.format)
    assert.is_nil(cfg.path)
    assert.same({ "a", "b" }, cfg.order)
    assert.same({ "a", "--x" }, cfg.servers.a.command)
  end)

  it("keeps the file order of many servers, escaped names included", function()
    local names = { "m", "b", "z\"q", "a", "k/1", "c" }
    local parts = {}
    for i, n in ipairs(names) do
      parts[i] = ('%s: { "command": "srv%d" }'):format(core.json_encode(n), i)
    end
    local path = write(".mcp.json", '{ "mcpServers": {\n  ' .. table.concat(parts, ",\n  ")
      .. ',\n  // the last one\n} }')
    local cfg = assert(config.load(path))
    assert.same(names, cfg.order)
    assert.same({ "srv3" }, cfg.servers['z"q'].command)
  end)

  it("reads an OpenCode file without MCP servers as no servers", function()
    local cfg = assert(config.load(write("opencode.json", '{ "theme": "dark" }')))
    assert.equal("opencode", cfg.format)
    assert.same({}, cfg.order)
  end)

  it("fails on a file of no known shape", function()
    local err = load_error(write("other.json", '{ "theme": "dark" }'))
    assert.matches("other.json: holds no MCP servers", err.message, 1, true)
  end)
end)

describe("config.load: errors", function()
  local function err_of(name, text, opts)
    return load_error(write(name, text), opts)
  end

  it("names file, server and key for a command that is not an array", function()
    local err = err_of("opencode.json", '{ "mcp": { "fs": { "type": "local", "command": "npx fs" } } }')
    assert.equal("EINVAL", err.code)
    assert.equal(dir .. '/opencode.json: server "fs": mcp.fs.command must be an array of strings',
      err.message)
    assert.equal("fs", err.server)
    assert.equal("mcp.fs.command", err.key)
    assert.equal(dir .. "/opencode.json", err.file)
  end)

  it("names a server that has neither command nor url", function()
    local err = err_of(".mcp.json", '{ "mcpServers": { "ok": { "command": "x" }, "empty": { "env": {} } } }')
    assert.matches('server "empty": mcpServers.empty has neither a command nor a url',
      err.message, 1, true)
  end)

  it("gives a JSON error with the file, line and column", function()
    local err = err_of("opencode.jsonc", '{\n  // c\n  "mcp": {\n    "a": { "type" "local" }\n  }\n}')
    assert.matches("opencode.jsonc: bad JSON: .* at line 4, column 19", err.message)
  end)

  it("never shows header or env values", function()
    local err = err_of(".mcp.json", [[
{ "mcpServers": { "api": { "type": "http", "url": "https://x.example/mcp",
  "headers": { "Authorization": "Bearer SUPERSECRET", "X-Count": 3 } } } }
]])
    assert.equal("mcpServers.api.headers.X-Count", err.key)
    assert.is_nil(err.message:find("SUPERSECRET", 1, true))
    err = err_of("opencode.json", [[
{ "mcp": { "s": { "type": "local", "command": ["s"], "environment": { "TOKEN": "HUSH", "BAD": [1] } } } }
]])
    assert.equal("mcp.s.environment.BAD", err.key)
    assert.is_nil(err.message:find("HUSH", 1, true))
  end)

  it("checks the type of each key", function()
    local cases = {
      { '{ "mcp": { "a": { "type": "lokal", "command": ["a"] } } }', "mcp.a.type" },
      { '{ "mcp": { "a": { "type": "remote", "url": "ftp://x" } } }', "mcp.a.url" },
      { '{ "mcp": { "a": { "command": ["a"], "enabled": "no" } } }', "mcp.a.enabled" },
      { '{ "mcp": { "a": { "command": ["a"], "timeout": -5 } } }', "mcp.a.timeout" },
      { '{ "mcp": { "a": { "command": ["a"], "timeout": { "startup": "1s" } } } }', "mcp.a.timeout.startup" },
      { '{ "mcp": { "a": { "url": "https://x", "oauth": true } } }', "mcp.a.oauth" },
      { '{ "mcp": { "a": { "url": "https://x", "oauth": { "callbackPort": 70000 } } } }', "mcp.a.oauth.callbackPort" },
      { '{ "mcp": { "a": { "url": "https://x", "oauth": { "grant": "password" } } } }', "mcp.a.oauth.grant" },
      { '{ "mcp": { "a": { "url": "https://x", "oauth": { "dpop": "yes" } } } }', "mcp.a.oauth.dpop" },
      { '{ "mcp": { "a": { "command": ["a"], "tools": { "include": "x*" } } } }', "mcp.a.tools.include" },
      { '{ "mcp": { "a": { "command": [] } } }', "mcp.a.command" },
      { '{ "mcp": { "a": { "type": "local", "url": "https://x" } } }', "mcp.a.command" },
      { '{ "mcp": { "a": "npx a" } }', "mcp.a" },
      { '{ "mcp": { "a": { "command": ["a"], "url": "https://x" } } }', "mcp.a" },
      { '{ "mcp": [] }', "mcp" },
    }
    for _, case in ipairs(cases) do
      local err = err_of("opencode.json", case[1])
      assert.equal(case[2], err.key, case[1])
      assert.matches(case[2], err.message, 1, true)
    end
  end)

  it("ignores keys it does not know", function()
    local cfg = assert(config.load(write(".mcp.json", [[
{ "mcpServers": { "a": { "command": "a", "alwaysAllow": ["x"], "autoApprove": true } },
  "globalShortcut": "Ctrl+Space" }
]])))
    assert.same({ "a" }, cfg.servers.a.command)
  end)

  it("reports a missing file as ENOENT", function()
    local err = load_error(dir .. "/missing.json")
    assert.equal("ENOENT", err.code)
    assert.matches("missing.json: cannot be read", err.message, 1, true)
  end)
end)

describe("config.find", function()
  local home
  before_each(function() home = dir .. "/home" end)

  local candidates = {
    "proj/luamcp.json", "proj/opencode.json", "proj/opencode.jsonc",
    "proj/.opencode/opencode.json", "proj/.opencode/opencode.jsonc", "proj/.mcp.json",
    "proj/.vscode/mcp.json", "home/.config/luamcp/luamcp.json",
    "home/.config/opencode/opencode.json", "home/.config/opencode/opencode.jsonc",
  }

  it("takes the first existing file of the search order", function()
    for _, c in ipairs(candidates) do write(c, "{}") end
    for _, c in ipairs(candidates) do
      assert.equal(dir .. "/" .. c, config.find{ cwd = dir .. "/proj", env = { HOME = home } })
      os.remove(dir .. "/" .. c)
    end
    local path, err = config.find{ cwd = dir .. "/proj", env = { HOME = home } }
    assert.is_nil(path)
    assert.equal("ENOENT", err.code)
    assert.matches(dir .. "/proj/.vscode/mcp.json", err.message, 1, true)
    assert.matches(home .. "/.config/opencode/opencode.jsonc", err.message, 1, true)
  end)

  it("prefers --config, then LUAMCP_CONFIG, to any file", function()
    write("proj/luamcp.json", "{}")
    local env = { HOME = home, LUAMCP_CONFIG = dir .. "/chosen.json" }
    assert.equal(dir .. "/chosen.json", config.find{ cwd = dir .. "/proj", env = env })
    assert.equal("cli.json", config.find{ path = "cli.json", cwd = dir .. "/proj", env = env })
    env.LUAMCP_CONFIG = ""
    assert.equal(dir .. "/proj/luamcp.json", config.find{ cwd = dir .. "/proj", env = env })
  end)

  it("skips a directory of a candidate's name and honours XDG_CONFIG_HOME", function()
    sh("mkdir -p '" .. dir .. "/proj/luamcp.json'")
    write("xdg/opencode/opencode.json", "{}")
    write("home/.config/opencode/opencode.json", "{}")
    assert.equal(dir .. "/xdg/opencode/opencode.json", config.find{
      cwd = dir .. "/proj", env = { HOME = home, XDG_CONFIG_HOME = dir .. "/xdg" } })
  end)
end)

describe("config.normalize_server", function()
  it("normalizes one server given outside a file", function()
    local spec = assert(config.normalize_server("cli", { command = { "node", "s.js" } }, "opencode"))
    assert.same({ name = "cli", enabled = true, command = { "node", "s.js" } }, spec)
    local _, err = config.normalize_server("u", { url = 3 }, "claude")
    assert.equal("mcpServers.u.url", err.key)
  end)
end)
