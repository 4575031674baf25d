--- mcp.cli: the luamcp command line. Reads the options and the command,
--- and runs it (mcp.cli.commands, .auth, .debug); every failure becomes
--- one line on stderr and a non-zero exit.
local mcp = require "mcp"
local args = require "mcp.cli.args"
local session = require "mcp.cli.session"

local M = {}

local USAGE = [[
usage: luamcp [OPTIONS] COMMAND ...

SERVER is a name from the config file, a URL, or -- CMD ARGS (last).
  luamcp list [--json]                  every configured server: state, tools,
                                        transport, protocol (non-zero if one failed)
  luamcp tools [SERVER] [--json]        a server's tools, or every server's as server_tool
  luamcp call SERVER TOOL ['JSON']      call a tool (arguments default to {})
  luamcp resources [SERVER] [--json]    list resources
  luamcp read SERVER URI [--json]       read a resource
  luamcp prompts [SERVER] [--json]      list prompts
  luamcp prompt SERVER NAME ['JSON']    get a prompt's messages
  luamcp ping SERVER
  luamcp debug SERVER                   every step of connecting, shown
  luamcp auth [OAUTH OPTIONS] SERVER    authorize luamcp with a remote server
  luamcp logout SERVER                  forget the server's tokens
  luamcp agent [AGENT OPTIONS] "PROMPT"  an agent: the model with every configured
                                        server's tools; the answer on stdout,
                                        tool calls on stderr (no PROMPT: stdin)
  luamcp chat [AGENT OPTIONS]           a conversation with that agent, a line a turn
  luamcp run SCRIPT.lua [ARGS...]       run a script as a task
  luamcp version | help

options (anywhere before -- CMD):
  --config FILE        the config file (else $LUAMCP_CONFIG, ./luamcp.json,
                       ./opencode.json, ./.mcp.json, ./.vscode/mcp.json, ...)
  --timeout SECONDS    startup and per-request timeout
  --env NAME=VALUE     set a variable for a -- CMD server (repeatable)
  --cwd DIR            working directory of a -- CMD server
  --header 'N: V'      an HTTP header for a URL server (repeatable)
  --quiet              do not show the servers' stderr
  --json               machine-readable output (the whole result for call)

AGENT OPTIONS: --provider openai|anthropic, --model M, --stream (also when
  piped; a terminal always streams), --max-turns N, --system TEXT. The model
  comes from OPENAI_API_KEY (OPENAI_BASE_URL) or ANTHROPIC_API_KEY
  (ANTHROPIC_BASE_URL).

OAUTH OPTIONS: --client-id ID, --client-secret-env NAME (the variable that
  holds the secret) or --client-secret-file PATH, --scope 'A B',
  --callback-port PORT, --redirect-uri URI, --client-metadata-url URL.
  The browser is $BROWSER, else xdg-open; the URL is printed too, so the
  flow works over SSH.]]

local COMMANDS = {
  list = { "mcp.cli.commands", "list" },
  tools = { "mcp.cli.commands", "tools" },
  call = { "mcp.cli.commands", "call" },
  resources = { "mcp.cli.commands", "resources" },
  read = { "mcp.cli.commands", "read" },
  prompts = { "mcp.cli.commands", "prompts" },
  prompt = { "mcp.cli.commands", "prompt" },
  ping = { "mcp.cli.commands", "ping" },
  debug = { "mcp.cli.debug", "debug" },
  auth = { "mcp.cli.auth", "auth" },
  logout = { "mcp.cli.auth", "logout" },
  agent = { "mcp.cli.agent", "agent" },
  chat = { "mcp.cli.agent", "chat" },
}

-- luamcp run SCRIPT ARGS: the script's main chunk as a task, with arg set.
local function run_script(words, program)
  local script = words[2]
  if not script then return session.fail("usage: luamcp run SCRIPT.lua [ARGS...]") end
  local chunk, lerr = loadfile(script)
  if not chunk then return session.fail(lerr) end
  local script_arg = { [0] = script, [-1] = program }
  table.move(words, 3, #words, 1, script_arg)
  _G.arg = script_arg
  local signum, ok, err_text = session.prun_interruptible(chunk, table.unpack(script_arg))
  if not ok then
    io.stderr:write("luamcp: ", tostring(err_text), "\n")
    return signum and 128 + signum or 1
  end
  return 0
end

--- syntax: code = cli.main(argv) -- argv[0] is the program
function M.main(argv)
  -- Options before the command, then the command's words (a script's
  -- arguments are its own: not read as options).
  local first = argv[1]
  if first == "--help" or first == "-h" or first == "--version" then
    return M.main{ [0] = argv[0], first == "--version" and "version" or "help" }
  end
  local opts, words = args.parse(argv, 1, true)
  if not opts then return session.fail(words) end
  if opts.config == nil then
    local from_env = os.getenv("LUAMCP_CONFIG")
    if from_env and from_env ~= "" then opts.config = from_env end
  end
  local cmd = words[1]
  if cmd == "run" then return run_script(words, argv[0]) end
  if cmd == "version" then
    print(mcp._VERSION)
    return 0
  end
  if cmd == "help" then
    print(USAGE)
    return 0
  end
  local entry = COMMANDS[cmd]
  if not entry then
    io.stderr:write(USAGE, "\n")
    return session.fail(cmd and ("unknown command '" .. cmd .. "'") or "missing command")
  end
  local rest = table.move(words, 2, #words, 1, {})
  local perr, command
  opts, perr, command = args.parse(rest, 1, false, opts)
  if not opts then return session.fail(perr) end
  return require(entry[1])[entry[2]](opts, perr, command)
end

return M
