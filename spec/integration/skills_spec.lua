-- Skills (SEP-2640) against a real server process (spec/fixtures/skills.js):
-- listing fetches nothing, loading fetches SKILL.md and verifies it, each
-- mismatch (size, digest, front matter, an unlisted or changed supporting
-- file) is EVERIFY and gives no content, and an entry that cannot be
-- loaded is refused without a fetch.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"
local core = require "mcp.core"

-- What the fixture was asked, as "method uri" strings, after connecting.
local function asked(client)
  local res = assert(client:request("fixture/requests"))
  local list = {}
  for _, r in ipairs(res.requests) do
    if r.method ~= "server/discover" and r.method ~= "initialize"
        and r.method ~= "notifications/initialized" then
      list[#list + 1] = r.uri ~= core.null and (r.method .. " " .. r.uri) or r.method
    end
  end
  return list
end

local function reads(client)
  local list = {}
  for _, r in ipairs(asked(client)) do
    if r:match("^resources/read ") then list[#list + 1] = r:sub(16) end
  end
  return list
end

local PDF = "skill://pdf-processing/SKILL.md"

describe("skills: discovery", function()
  it("declares the extension, lists every skill and fetches no file", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      assert.same({}, client.client_capabilities.extensions["io.modelcontextprotocol/skills"])
      assert.same({}, asked(client))             -- connecting lists nothing
      local skills = assert(client:list_skills())
      local by_id = client.skills_by_id
      assert.equal(10, #skills)
      local pdf = by_id["pdf-processing"]
      assert.equal(PDF, pdf.uri)
      assert.equal("Extract, fill, and assemble PDF documents\n", pdf.description)
      assert.equal("skills", pdf.server)
      assert.equal(3, #pdf.resources)
      assert.is_nil(pdf.problem)
      assert.same({ "skills/list" }, asked(client))
    end)
  end)

  it("gives colliding names each its own id, and refuses the bare name", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      assert(client:list_skills())
      assert.is_nil(client.skills_by_id.dup)
      assert.equal("The acme one", client.skills_by_id["acme/dup"].description)
      assert.equal("The other one", client.skills_by_id["other/dup"].description)
      local skill, err = client:get_skill("dup")
      assert.is_nil(skill)
      assert.equal("ENOENT", err.code)
      assert.matches("acme/dup, other/dup", err.message, 1, true)
      local other = assert(client:get_skill("other/dup"))
      assert.equal("other body.\n", other.body)
      assert.same({ "skill://other/dup/SKILL.md" }, reads(client))
    end)
  end)

  it("is ENOTSUP without a request when the server does not declare it", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills", { args = { "--no-extension" } }))
      local skills, err = client:list_skills()
      assert.is_nil(skills)
      assert.equal("ENOTSUP", err.code)
      assert.matches("io.modelcontextprotocol/skills", err.message, 1, true)
      assert.same({}, asked(client))
    end)
  end)

  it("is off, undeclared and ENOTSUP without a request, with skills = false", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills", { skills = false }))
      -- (other extensions, tasks', may be declared)
      assert.is_nil((client.client_capabilities.extensions or {})["io.modelcontextprotocol/skills"])
      local skill, err = client:get_skill("pdf-processing")
      assert.is_nil(skill)
      assert.equal("ENOTSUP", err.code)
      assert.matches("skills are off", err.message, 1, true)
      assert.is_false(client:has_skills())
      assert.same({}, asked(client))
    end)
  end)
end)

describe("skills: loading", function()
  it("fetches SKILL.md only when asked, verified, and then its files", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill = assert(client:get_skill("pdf-processing"))   -- lists first
      assert.same({ PDF }, reads(client))
      assert.equal("skill://pdf-processing", skill.root)
      assert.equal("Fill forms as references/FORMS.md says.\n", skill.body)
      assert.matches("^%-%-%-\nname: pdf%-processing\n", skill.text)
      assert.same({ author = "example", version = "1.0" }, skill.frontmatter.metadata)
      assert.same({ "Read", "Bash" }, skill.frontmatter["allowed-tools"])
      assert.equal("# Forms\n\nField by field.\n",
        assert(client:read_skill_file(skill, "references/FORMS.md")))
      local logo = assert(client:read_skill_file(skill, "skill://pdf-processing/assets/logo.bin"))
      assert.equal("\0\1\2\250\251\252\253\254\255\n\r", logo)
      assert.same({ PDF, "skill://pdf-processing/references/FORMS.md",
                    "skill://pdf-processing/assets/logo.bin" }, reads(client))
      -- Loaded again: the verified files are not fetched again.
      assert(client:get_skill("pdf-processing"))
      assert.equal(3, #reads(client))
    end)
  end)

  it("loads a skill the listing lacks by the URI of its SKILL.md", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill = assert(client:get_skill("skill://hidden/SKILL.md"))
      assert.equal("hidden", skill.name)
      assert.equal("Found by URI.\n", skill.body)
      local none, err = client:get_skill("skill://nowhere/SKILL.md")
      assert.is_nil(none)
      assert.equal("ENOENT", err.code)
      assert.matches("is not a skill of skills", err.message, 1, true)
    end)
  end)

  it("bounds all of its steps by one timeout", function()
    run_async(function()
      -- Listing and reading take 150 ms each: within 0.25 s apiece, not
      -- together.
      local client <close> = assert(fixture.connect("skills", { args = { "--slow", "150" } }))
      local skill, err = client:get_skill("pdf-processing", { timeout = 0.25 })
      assert.is_nil(skill)
      assert.equal("ETIMEDOUT", err.code)
      client.skills = nil
      assert(client:get_skill("pdf-processing", { timeout = 5 }))
    end)
  end)

  it("lists again for a name the last listing lacked", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      assert.equal(10, #assert(client:list_skills()))
      assert(client:request("fixture/publish"))
      local skill = assert(client:get_skill("hidden"))
      assert.equal("Found by URI.\n", skill.body)
      assert.equal(11, #client.skills)
      assert.same({ "skills/list", "fixture/publish", "skills/list",
                    "resources/read skill://hidden/SKILL.md" }, asked(client))
    end)
  end)

  it("continues under the entry skills/get gives after a mismatch", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill = assert(client:get_skill("stale"))
      assert.equal("Version two.\n", skill.body)
      assert.same({ "skills/list", "resources/read skill://stale/SKILL.md",
                    "skills/get skill://stale/SKILL.md",
                    "resources/read skill://stale/SKILL.md" }, asked(client))
    end)
  end)
end)

describe("skills: verification failures", function()
  local function fails(id, check, pattern)
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill, err = client:get_skill(id)
      assert.is_nil(skill)
      assert.equal("EVERIFY", err.code)
      assert.equal(check, err.check)
      assert.equal("skill://" .. id .. "/SKILL.md", err.uri)
      assert.matches(pattern, err.message)
      -- Recovery was tried (skills/get), gave the same entry, and nothing
      -- else was read.
      assert.equal("skills/get gave the same entry", err.refresh)
      local uri = "skill://" .. id .. "/SKILL.md"
      assert.same({ "skills/list", "resources/read " .. uri, "skills/get " .. uri },
        asked(client))
    end)
  end

  it("refuses a SKILL.md whose digest is not the listed one", function()
    fails("bad-digest", "digest", "has the digest sha256:%x+, but its server listed sha256:%x+")
  end)

  it("refuses a SKILL.md whose size is not the listed one", function()
    fails("bad-size", "size", "is 105 bytes, but its server listed 63")
  end)

  it("refuses a SKILL.md whose front matter is not the listed one", function()
    fails("bad-frontmatter", "frontmatter",
      'its front matter says description: "Exfiltrate credentials", but its server listed "Summarise documents"')
  end)

  it("refuses a changed supporting file, and an unlisted one without a read", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill = assert(client:get_skill("bad-forms"))
      local forms, err = client:read_skill_file(skill, "references/FORMS.md")
      assert.is_nil(forms)
      assert.equal("EVERIFY", err.code)
      assert.equal("digest", err.check)
      local extra
      extra, err = client:read_skill_file(skill, "extra.md")
      assert.is_nil(extra)
      assert.equal("unlisted", err.check)
      assert.matches("skill://bad-forms/extra.md is not among the files", err.message, 1, true)
      extra, err = client:read_skill_file(skill, "../pdf-processing/SKILL.md")
      assert.is_nil(extra)
      assert.equal("unlisted", err.check)
      assert.same({ "skill://bad-forms/SKILL.md", "skill://bad-forms/references/FORMS.md" },
        reads(client))
    end)
  end)

  it("refuses an entry without resources, and a dynamic one unless allowed", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills"))
      local skill, err = client:get_skill("no-resources")
      assert.is_nil(skill)
      assert.equal("EREFUSED", err.code)
      assert.matches("neither a list nor \"dynamic\"", err.message, 1, true)
      skill, err = client:get_skill("dynamic-skill")
      assert.is_nil(skill)
      assert.equal("EREFUSED", err.code)
      assert.matches("allow_dynamic", err.message, 1, true)
      assert.same({}, reads(client))
      skill = assert(client:get_skill("dynamic-skill", { allow_dynamic = true }))
      assert.equal("Generated notes.\n", assert(client:read_skill_file(skill, "notes.md")))
    end)
  end)
end)

describe("skills: the 2026-07-28 era", function()
  it("declares the extension in every request's _meta, and verifies what it keeps", function()
    run_async(function()
      local client <close> = assert(fixture.connect("skills", { args = { "--modern" } }))
      assert.equal("modern", client.era)
      local skill = assert(client:get_skill("pdf-processing"))
      assert.equal("Fill forms as references/FORMS.md says.\n", skill.body)
      local bad, err = client:get_skill("bad-frontmatter")
      assert.is_nil(bad)
      assert.equal("EVERIFY", err.code)
      assert.equal("frontmatter", err.check)
      -- The listing was kept (ttlMs): listed once, each SKILL.md read once.
      local res = assert(client:request("fixture/requests"))
      local seen = {}
      for _, r in ipairs(res.requests) do
        if r.method ~= "server/discover" then
          seen[#seen + 1] = r.uri ~= mcp.null and (r.method .. " " .. r.uri) or r.method
          local caps = r.meta["io.modelcontextprotocol/clientCapabilities"]
          assert.same({}, caps.extensions["io.modelcontextprotocol/skills"], r.method)
        end
      end
      assert.same({ "skills/list", "resources/read " .. PDF,
                    "resources/read skill://bad-frontmatter/SKILL.md",
                    "skills/get skill://bad-frontmatter/SKILL.md" }, seen)
    end)
  end)
end)
