-- The parts of skills that need no server: the front matter reader
-- (mcp.frontmatter) and the checks of an entry before anything is
-- fetched (mcp.skills.entry_problem), limits included.
local frontmatter = require "mcp.frontmatter"
local skills = require "mcp.skills"
local core = require "mcp.core"

describe("mcp.frontmatter", function()
  it("splits front matter from the body", function()
    local yaml, body = frontmatter.split("---\nname: x\n---\n\nBody\n")
    assert.equal("name: x\n", yaml)
    assert.equal("\nBody\n", body)
    assert.equal("name: y\r\n", (frontmatter.split("\239\187\191---\r\nname: y\r\n...\r\nrest")))
    assert.is_nil(frontmatter.split("no front matter"))
    local none, why = frontmatter.split("---\nname: x\n")
    assert.is_nil(none)
    assert.matches("no closing", why)
  end)

  it("reads YAML's scalars, mappings, sequences and block scalars as JSON values", function()
    local v = assert(frontmatter.parse([==[
name: x            # a comment
description: >
  Folded text
  goes on.

  A new paragraph.
literal: |-
  line1
    indented
plain: a long
  continued line
quoted: "tab\there \u00e9"
single: 'it''s'
int: 3
float: 1.5
yes: true
nothing: ~
empty:
flow: [Read, "Bash", {a: 1}, []]
metadata:
  author: example
  tags:
  - a
  - b: 2
    c: 3
list:
- 1
- two
url: http://x.y/z:8
]==]))
    assert.equal("x", v.name)
    assert.equal("Folded text goes on.\nA new paragraph.\n", v.description)
    assert.equal("line1\n  indented", v.literal)
    assert.equal("a long continued line", v.plain)
    assert.equal("tab\there é", v.quoted)
    assert.equal("it's", v.single)
    assert.equal(3, v.int)
    assert.equal("integer", math.type(v.int))
    assert.equal(1.5, v.float)
    assert.is_true(v.yes)
    assert.equal(core.null, v.nothing)
    assert.equal(core.null, v.empty)
    assert.same({ "Read", "Bash", { a = 1 }, {} }, v.flow)
    assert.equal(core.array_mt, getmetatable(v.flow))
    assert.equal(core.array_mt, getmetatable(v.flow[4]))
    assert.same({ author = "example", tags = { "a", { b = 2, c = 3 } } }, v.metadata)
    assert.same({ 1, "two" }, v.list)
    assert.equal("http://x.y/z:8", v.url)
  end)

  it("refuses what it does not read, with the line", function()
    for yaml, pattern in pairs {
      ["a: &x 1"] = "line 1: YAML anchors",
      ["a: *x"] = "line 1: YAML aliases",
      ["a: !!str 1"] = "line 1: YAML tags",
      ["a: 1\na: 2"] = "line 2: the key \"a\" appears twice",
      ["- a"] = "a list, not a mapping",
      ["a:\n\tb: 1"] = "line 2: a tab",
      ['a: "open'] = "does not end on its line",
      ["a: 1\n---\nb: 2"] = "more than one YAML document",
      ["a: .inf"] = "no JSON value",
      ["a: [1, 2"] = "not closed",
      ["a: 1\n  b: 2"] = "line 2",
      ["just text"] = "expected 'key: value'",
    } do
      local v, why = frontmatter.parse(yaml)
      assert.is_nil(v, yaml)
      assert.matches(pattern, why, 1, true)
    end
  end)

  it("bounds nesting and size", function()
    local _, why = frontmatter.parse("a: " .. ("["):rep(100) .. ("]"):rep(100))
    assert.matches("nested deeper than 32", why, 1, true)
    local deep = {}
    for i = 0, 40 do deep[#deep + 1] = ("  "):rep(i) .. "k:" end
    _, why = frontmatter.parse(table.concat(deep, "\n"))
    assert.matches("nested deeper than 32", why, 1, true)
    _, why = frontmatter.parse("a: " .. ("x"):rep(70000))
    assert.matches("larger than", why, 1, true)
  end)

  it("reads long runs of blanks in linear time", function()
    -- Trimming with gsub("%s+$") took seconds on such lines.
    local started = os.clock()
    local gap = (" "):rep(30000)
    local v = assert(frontmatter.parse("a: x" .. gap .. "y\nb: [c" .. gap .. "d]"))
    assert.equal("x" .. gap .. "y", v.a)
    assert.equal("c" .. gap .. "d", v.b[1])
    assert.is_true(os.clock() - started < 0.5, "took " .. (os.clock() - started) .. " s")
  end)
end)

describe("mcp.skills.entry_problem", function()
  local DIGEST = "sha256:" .. ("ab"):rep(32)
  local function entry(files, fields)
    local e = { uri = "skill://acme/pdf/SKILL.md",
                frontmatter = { name = "pdf", description = "d" },
                resources = setmetatable({ { uri = "skill://acme/pdf/SKILL.md",
                  digest = DIGEST, size = 10 } }, core.array_mt) }
    for i = 2, files or 1 do
      e.resources[i] = { uri = "skill://acme/pdf/f" .. i, digest = DIGEST, size = 1 }
    end
    for k, v in pairs(fields or {}) do e[k] = v end
    return e
  end

  it("accepts an honest entry and a dynamic one", function()
    assert.is_nil(skills.entry_problem(entry()))
    assert.is_nil(skills.entry_problem(entry(1, { resources = "dynamic" })))
  end)

  it("supports 512 files and 16 MiB, and declines more, saying why", function()
    assert.is_nil(skills.entry_problem(entry(512)))
    assert.matches("513 files, more than the 512",
      skills.entry_problem(entry(513)), 1, true)
    local e = entry(2)
    e.resources[1].size = 16 * 1024 * 1024 - 1
    assert.is_nil(skills.entry_problem(e))
    e.resources[1].size = 16 * 1024 * 1024
    assert.matches("16777217 bytes, more than the 16777216",
      skills.entry_problem(e), 1, true)
  end)

  it("refuses entries that break the extension's rules", function()
    local function problem(fields, files)
      return skills.entry_problem(entry(files, fields))
    end
    assert.matches("neither a list", problem({ resources = "x" }), 1, true)
    assert.matches("neither a list", problem({ resources = false }), 1, true)
    assert.matches("not the URI of a SKILL.md", problem({ uri = "skill://acme/pdf" }), 1, true)
    assert.matches("not the last segment", problem({ frontmatter = { name = "other" } }), 1, true)
    assert.matches("no name", problem({ frontmatter = { description = "d" } }), 1, true)
    local e = entry()
    e.resources[1].digest = "sha256:" .. ("AB"):rep(32)
    assert.matches("lower-case hex", skills.entry_problem(e), 1, true)
    e = entry()
    e.resources[1].size = -1
    assert.matches("no size", skills.entry_problem(e), 1, true)
    e = entry(2)
    e.resources[2].uri = e.resources[1].uri
    assert.matches("listed twice", skills.entry_problem(e), 1, true)
    e = entry(2)
    table.remove(e.resources, 1)
    assert.matches("do not list its SKILL.md", skills.entry_problem(e), 1, true)
  end)
end)

describe("core.sha256 and core.base64_decode", function()
  it("hash raw bytes to lower-case hex", function()
    assert.equal("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", core.sha256(""))
    assert.equal("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", core.sha256("abc"))
    assert.equal(core.sha256("a\0b"):len(), 64)
    assert.not_equal(core.sha256("a\0b"), core.sha256("a"))
  end)

  it("decode padded base64 exactly, and refuse what is not", function()
    assert.equal("", core.base64_decode(""))
    assert.equal("h", core.base64_decode("aA=="))
    assert.equal("hi", core.base64_decode("aGk="))
    assert.equal("hey", core.base64_decode("aGV5"))
    assert.equal("\0\1\2\250\255", core.base64_decode(" AAEC+v8= \n"))
    for _, bad in ipairs { "aGk", "a$==", "aG k=", "====", "aGk=\0", "a=Gk" } do
      local v, err = core.base64_decode(bad)
      assert.is_nil(v, bad)
      assert.equal("EINVAL", err.code)
    end
  end)
end)
