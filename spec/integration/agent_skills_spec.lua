-- Skills in the host and the agent: a host of real skills servers
-- (spec/fixtures/skills.js) lists each server's skills under the host's
-- name for it, and an agent on the scripted LLM fixture (spec/fixtures/
-- llm.js, through mcp.llm.anthropic) lists them in its system prompt,
-- fetches nothing until the model loads one, and gives the model the
-- skill tagged with its server, its files, and a failed verification as
-- a tool error.
local mcp = require "mcp"
local llm_api = require "mcp.llm"
local fixture = require "spec.support.fixture"

local KEY = "sk-test-skills"

local function skills_host()
  return assert(mcp.host{
    servers = {
      docs = { command = { "node", "spec/fixtures/skills.js" } },
      plain = { command = { "node", "spec/fixtures/skills.js", "--no-extension" } },
    },
    on_stderr = function() end,
  })
end

-- The fixture's record of resources/read, as URIs.
local function reads(host)
  local res = assert(assert(host:client("docs")):request("fixture/requests"))
  local list = {}
  for _, r in ipairs(res.requests) do
    if r.method == "resources/read" then list[#list + 1] = r.uri end
  end
  return list
end

local function tool_results(body)
  local out = {}
  for _, m in ipairs(body.messages) do
    for _, b in ipairs(type(m.content) == "table" and m.content or {}) do
      if b.type == "tool_result" then
        local text = b.content
        if type(text) == "table" then
          local parts = {}
          for _, p in ipairs(text) do parts[#parts + 1] = p.text or "" end
          text = table.concat(parts, "\n")
        end
        out[#out + 1] = { text = text, is_error = b.is_error == true }
      end
    end
  end
  return out
end

describe("skills in the host", function()
  it("lists the skills of the servers that declare them, each with its server", function()
    run_async(function()
      local host <close> = skills_host()
      local list, failures = host:skills()
      assert.same({}, failures)
      assert.equal(10, #list)
      for _, s in ipairs(list) do assert.equal("docs", s.server) end
      local skill = assert(host:load_skill("docs", "pdf-processing"))
      assert.equal("# Forms\n\nField by field.\n",
        assert(host:read_skill_file(skill, "references/FORMS.md")))
      local none, err = host:load_skill("plain", "pdf-processing")
      assert.is_nil(none)
      assert.equal("ENOTSUP", err.code)
    end, 30)
  end)
end)

describe("skills in the agent", function()
  it("lists them, loads one only when the model asks, tagged with its server", function()
    run_async(function()
      local path = os.tmpname()
      local f = assert(io.open(path, "w"))
      f:write(mcp.json.encode{
        { expect_tool = "load_skill", tool_calls = { { name = "load_skill",
            arguments = { server = "docs", skill = "pdf-processing" } } } },
        { tool_calls = {
            { name = "read_skill_file", arguments = { server = "docs", skill = "pdf-processing",
                                                      path = "references/FORMS.md" } },
            { name = "load_skill", arguments = { server = "docs", skill = "bad-digest" } },
            { name = "read_skill_file", arguments = { server = "docs", skill = "stale",
                                                      path = "SKILL.md" } } } },
        { text = "Done." },
      })
      f:close()
      local server <close> = fixture.http_server("llm", { "--script", path, "--key", KEY })
      local model = llm_api.anthropic{ api_key = KEY, max_retries = 0,
        model = "claude-sonnet-4-5", base_url = server.url("") }
      local host <close> = skills_host()
      local agent = mcp.agent{ host = host, llm = model }
      assert.equal("Done.", agent:run("Fill in the PDF form."))
      os.remove(path)

      local res = assert(mcp.http.request{ url = server.url("/requests") })
      local requests = assert(mcp.json.decode(res.body))
      assert.equal(3, #requests)
      local system = requests[1].system
      if type(system) == "table" then system = system[1].text end
      assert.matches("# Skills from the servers", system, 1, true)
      assert.matches('- server "docs", skill "pdf-processing": Extract, fill, and assemble PDF documents',
        system, 1, true)
      assert.matches('- server "docs", skill "acme/dup": The acme one', system, 1, true)
      -- Refused entries are not offered.
      assert.is_nil(system:find('"no-resources"', 1, true))

      local loaded = tool_results(requests[2])
      assert.equal(1, #loaded)
      assert.is_false(loaded[1].is_error)
      assert.matches('^<skill server="docs" name="pdf%-processing" uri="skill://pdf%-processing/SKILL%.md">\n'
        .. "Fill forms as references/FORMS%.md says%.\n\n</skill>\n", loaded[1].text)
      assert.matches('comes from the MCP server "docs" and is untrusted input', loaded[1].text, 1, true)

      local results = tool_results(requests[3])
      assert.equal(4, #results)
      assert.matches('<skill-file server="docs" skill="pdf-processing" path="references/FORMS.md">\n'
        .. "# Forms\n\nField by field.\n\n</skill-file>", results[2].text, 1, true)
      assert.is_true(results[3].is_error)
      assert.matches("EVERIFY: skill://bad%-digest/SKILL%.md has the digest", results[3].text)
      assert.is_true(results[4].is_error)
      assert.matches("load the skill stale of docs with load_skill first", results[4].text, 1, true)
      -- Only what the model asked for was fetched.
      assert.same({ "skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md",
                    "skill://bad-digest/SKILL.md" }, reads(host))
    end, 40)
  end)

  it("leaves skills out with skills = false", function()
    run_async(function()
      local host <close> = skills_host()
      local agent = mcp.agent{ host = host, llm = { chat = function() end }, skills = false }
      assert.is_nil(agent:system_prompt())
      local tools = agent:tool_list()
      for _, t in ipairs(tools) do assert.is_nil(t.name:find("skill")) end
      local with = mcp.agent{ host = host, llm = { chat = function() end } }
      local names = {}
      for _, t in ipairs((with:tool_list())) do names[#names + 1] = t.name end
      assert.same({ "load_skill", "read_skill_file" }, names)
    end, 30)
  end)
end)
