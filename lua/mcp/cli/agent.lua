--- mcp.cli.agent: `luamcp agent "prompt"` and `luamcp chat`, an agent
--- (mcp.agent) over the configured servers (mcp.host, as the other
--- commands open it) and a model from the environment (mcp.llm.from_env)
--- or --provider / --model.
---
--- Where things go: the answer on stdout, tool activity on stderr. On a
--- terminal (stdout is a tty) the answer streams as the model writes it;
--- piped, requests are plain (not streaming: several OpenAI-compatible
--- servers cannot stream tool calls) unless --stream, and stdout holds
--- the final answer and nothing else.
local core = require "mcp.core"
local task = require "mcp.task"
local format = require "mcp.cli.format"
local progress = require "mcp.cli.progress"
local session = require "mcp.cli.session"

local M = {}
local fail = session.fail

local NO_KEY = "no model to talk to: set OPENAI_API_KEY (and OPENAI_BASE_URL for "
  .. "another OpenAI-compatible server) or ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL)"
local KEY_OF = { openai = "OPENAI_API_KEY", anthropic = "ANTHROPIC_API_KEY" }

local function set(name)
  local v = os.getenv(name)
  return v ~= nil and v ~= ""
end

--- syntax: llm, err = agent.llm_from(opts)
--- The model the command line names: --provider (its key must be in the
--- environment) or the first provider whose key is, with --model. err is
--- one line saying which variables to set.
function M.llm_from(opts)
  local o = { model = opts.model }
  if opts.provider then
    local key = KEY_OF[opts.provider]
    -- A local OpenAI-compatible server (Ollama, llama.cpp) may need no key.
    local local_server = opts.provider == "openai" and set("OPENAI_BASE_URL")
    if not set(key) and not local_server then
      return nil, ("--provider %s needs %s (and %s for another server)"):format(
        opts.provider, key, (key:gsub("API_KEY$", "BASE_URL")))
    end
    return require("mcp.llm")[opts.provider](o)
  end
  if not set("OPENAI_API_KEY") and not set("OPENAI_BASE_URL") and not set("ANTHROPIC_API_KEY") then
    return nil, NO_KEY
  end
  local llm, err = require("mcp.llm").from_env(o)
  if not llm then return nil, err or NO_KEY end
  return llm
end

-- The first line of a tool result's text, cut to fit a line of activity.
local function summary(result)
  if type(result) ~= "table" then return tostring(result) end
  local parts = {}
  for _, block in ipairs(result.content or {}) do
    if block.type == "text" then
      parts[#parts + 1] = block.text
    elseif block.type == "resource_link" then
      parts[#parts + 1] = block.uri
    else
      parts[#parts + 1] = "[" .. tostring(block.type) .. "]"
    end
  end
  if #parts == 0 and result.structuredContent ~= nil then
    parts[1] = require("mcp").json.encode(result.structuredContent)
  end
  local text = table.concat(parts, " "):gsub("%s+", " ")
  if #text > 100 then text = text:sub(1, 97) .. "..." end
  return text
end

local function encode_args(arguments)
  local ok, text = pcall(require("mcp").json.encode, arguments or {})
  if not ok then return "?" end
  if #text > 200 then text = text:sub(1, 197) .. "..." end
  return text
end

--- syntax: out = agent.output(opts)
--- How a run shows itself: out.stream (whether requests stream), and the
--- agent's callbacks (on_delta, on_tool_call, on_tool_result,
--- on_progress); out.finish(answer) prints the answer (unless it was
--- streamed) and ends the line.
function M.output(opts)
  local tty = core.isatty(1) == true
  local stream = opts.stream or tty
  local midline = false       -- streamed text without its newline yet
  local bars = {}             -- a progress bar per call id, on a terminal
  local out = { stream = stream }

  -- Tool activity: whole lines on stderr, below the streamed text.
  local function activity(line)
    if midline and tty then
      io.stdout:write("\n")
      io.stdout:flush()
      midline = false
    end
    progress.write(line .. "\n")
  end

  if stream then
    function out.on_delta(delta)
      if delta.type == "text" and delta.text and delta.text ~= "" then
        io.stdout:write(delta.text)
        io.stdout:flush()
        midline = delta.text:sub(-1) ~= "\n"
      end
    end
  end
  function out.on_tool_call(call)
    activity(("call %s %s"):format(call.name, encode_args(call.arguments)))
  end
  function out.on_tool_result(call, result)
    local bar = bars[call.id]
    if bar then
      bar.clear()
      bars[call.id] = nil
    end
    local failed = type(result) ~= "table" or result.isError
    activity(("%s %s: %s"):format(failed and "fail" or "done", call.name, summary(result)))
  end
  if session.stderr_is_terminal() then
    function out.on_progress(call, p)
      local bar = bars[call.id] or progress.new(call.name)
      bars[call.id] = bar
      bar.on_progress(p)
    end
  end
  function out.finish(answer)
    if stream then
      if midline then io.stdout:write("\n") end
    elseif answer and answer ~= "" then
      io.stdout:write(answer, answer:sub(-1) == "\n" and "" or "\n")
    end
    io.stdout:flush()
    midline = false
  end
  return out
end

--- syntax: agent, err = agent.new(opts, host, llm, out)
function M.new(opts, host, llm, out)
  local agent_mod = require "mcp.agent"
  local make = type(agent_mod) == "table" and agent_mod.new or agent_mod
  return make{
    host = host, llm = llm, system = opts.system, max_turns = opts.max_turns,
    stream = out.stream, on_delta = out.on_delta,
    on_tool_call = out.on_tool_call, on_tool_result = out.on_tool_result,
    on_progress = out.on_progress,
  }
end

-- Runs one prompt; returns the exit code. A run cut by --max-turns
-- prints what the model said and fails in one line.
local function run_once(agent, input, out)
  local answer, err = agent:run(input)
  if answer == nil and err ~= nil then
    out.finish(nil)
    return fail(err)
  end
  out.finish(answer)
  if agent.stopped == "max_turns" then
    return fail(("stopped after %d turns without a final answer (--max-turns)")
      :format(agent.max_turns or #(agent.messages or {})))
  end
  return 0
end

-- The servers, the model and the agent; calls body(agent, out) in a
-- session (Ctrl-C cancels and exits 130).
local function with_agent(opts, body)
  local llm, lerr = M.llm_from(opts)
  if not llm then return fail(lerr) end
  local mcp = require "mcp"
  return session.run(function()
    local host <close>, herr = mcp.host(session.host_options(opts, nil))
    if not host then return fail(herr) end
    local status = host:status()
    for _, name in ipairs(host:names()) do
      local s = status[name]
      if s.state ~= "connected" and s.state ~= "disabled" then
        progress.write(("luamcp: server %s: %s: %s\n"):format(name, s.state,
          format.one_line(s.error)))
      end
    end
    local out = M.output(opts)
    local agent, aerr = M.new(opts, host, llm, out)
    if not agent then return fail(aerr) end
    if core.isatty(2) then
      progress.write(("luamcp: %s model %s, %d tools\n"):format(llm.provider,
        tostring(llm.model), #host:tools()))
    end
    return body(agent, out)
  end)
end

--- luamcp agent [--config FILE] [--provider P] [--model M] [--stream]
--- [--max-turns N] [--system TEXT] "prompt" (words are joined; no words
--- and stdin not a terminal: the prompt is stdin)
function M.agent(opts, words, command)
  if command then return fail("luamcp agent takes its servers from the config, not -- CMD") end
  local prompt = table.concat(words, " ")
  if prompt == "" and not core.isatty(0) then
    prompt = (io.stdin:read("a") or ""):gsub("%s+$", "")
  end
  if prompt:match("^%s*$") then
    return fail('usage: luamcp agent [--config FILE] [--model M] [--stream] "prompt"')
  end
  return with_agent(opts, function(agent, out) return run_once(agent, prompt, out) end)
end

-- The next line at the prompt, or nil at EOF, read through the loop
-- (core.read_line), so that servers and signals are served meanwhile;
-- a pipe's lines beyond the first of a read wait in the core for the
-- next call.
local function next_line(tty)
  if tty then
    io.stderr:write("> ")
    io.stderr:flush()
  end
  return task.await(function(done) return core.read_line(done) end)
end

--- luamcp chat [options as agent]: a conversation, one line a turn,
--- until EOF (Ctrl-D); each line runs the agent again on the same
--- messages, so the model sees the whole conversation.
function M.chat(opts, words, command)
  if command or #words > 0 then
    return fail("usage: luamcp chat [--config FILE] [--model M] (the lines come from stdin)")
  end
  return with_agent(opts, function(agent, out)
    local tty = core.isatty(0) == true
    local code = 0
    while true do
      local line = next_line(tty)
      if line == nil then break end
      if not line:match("^%s*$") then
        code = run_once(agent, line, out)
        if tty then io.stderr:write("\n") end
      end
    end
    if tty then io.stderr:write("\n") end
    return code
  end)
end

return M
