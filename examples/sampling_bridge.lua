-- sampling_bridge.lua - a server that asks the client for a completion
-- (sampling/createMessage) gets a real model's answer: the handler is
-- mcp.handlers.sampling_from(llm, { approve = ... }). Here
-- server-everything's trigger-sampling-request tool asks for one; the
-- approve function shows what the server wants and may refuse it (the
-- server then gets the specification's "user rejected" error).
--
-- The model: the scripted LLM fixture (spec/fixtures/llm.js) unless
-- OPENAI_API_KEY or ANTHROPIC_API_KEY is set.
--
-- Usage: luamcp run examples/sampling_bridge.lua ["prompt"]
--   (server-everything from `make deps`; EVERYTHING_SERVER says where else)
local mcp = require "mcp"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "examples"
package.path = here .. "/lib/?.lua;" .. package.path
local llm_fixture = require "llm_fixture"

local prompt = arg[1] or "Write a haiku about Lua"
local everything = os.getenv("EVERYTHING_SERVER") or llm_fixture.root()
  .. "/.deps/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

-- What the fixture answers (a real model writes its own).
local llm, fixture, label = llm_fixture.model({
  { text = "Small moon, quick tongue;\ntables nest inside tables,\nthe C core hums on." },
})
local _ <close> = fixture
print("Model: " .. label)

local server <close> = assert(mcp.connect{
  name = "everything",
  command = { "node", everything, "stdio" },
  on_stderr = function() end,
  handlers = {
    sampling = mcp.handlers.sampling_from(llm, {
      -- Every request is shown, and refused when it asks for too much.
      approve = function(params)
        local first = params.messages[1].content
        print(("The server asks the model (%s tokens at most): %s"):format(
          tostring(params.maxTokens), first.text or first.type))
        if (params.maxTokens or 0) > 4096 then return "too many tokens asked" end
        return true
      end,
    }),
  },
})

local result = assert(server:call_tool("trigger-sampling-request",
  { prompt = prompt, maxTokens = 100 }))
print("\nThe tool's result:\n" .. result.content[1].text)

if fixture then
  -- What the model received: the server's system prompt and message.
  local request = fixture.requests()[1]
  local function text_of(content)
    if type(content) == "string" then return content end
    local parts = {}
    for _, part in ipairs(content) do parts[#parts + 1] = part.text end
    return table.concat(parts)
  end
  print(("\nThe model received: system %q, user %q"):format(
    text_of(request.messages[1].content), text_of(request.messages[2].content)))
end
