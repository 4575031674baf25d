-- mcp.host.naming and mcp.host.filter: the names LLM APIs accept, and the
-- config's globs.
local naming = require "mcp.host.naming"
local filter = require "mcp.host.filter"

local function tool(name) return { name = name } end

describe("host tool names", function()
  it("joins server and tool with _ and keeps [a-zA-Z0-9_-]", function()
    assert.equal("everything_get-sum", naming.tool_name("everything", "get-sum"))
    assert.equal("my_server_read_file_v2", naming.tool_name("my server", "read.file/v2"))
    -- A UTF-8 character becomes one "_", as in OpenCode; so does a byte
    -- that is not UTF-8.
    assert.equal("srv_caf_", naming.tool_name("srv", "café"))
    assert.equal("srv_a_b_", naming.tool_name("srv", "a😀b\xff"))
  end)

  it("cuts the whole name to 64 characters", function()
    local name = naming.tool_name("server", string.rep("x", 100))
    assert.equal(64, #name)
    assert.equal("server_" .. string.rep("x", 57), name)
  end)

  it("numbers the later of two tools that end up with the same name, and reports both", function()
    local entries, collisions = naming.assign{
      { server = "a", tool = tool("get.file") },
      { server = "a", tool = tool("get_file") },
      { server = "b", tool = tool("other") },
    }
    assert.same({ "a_get_file", "a_get_file_2", "b_other" },
      { entries[1].name, entries[2].name, entries[3].name })
    assert.equal(1, #collisions)
    assert.equal("a_get_file", collisions[1].name)
    assert.same({ { server = "a", tool_name = "get.file", name = "a_get_file" },
                  { server = "a", tool_name = "get_file", name = "a_get_file_2" } },
      collisions[1].tools)
  end)

  it("keeps a numbered name within 64 characters and clear of names already taken", function()
    local long = string.rep("y", 80)
    local entries, collisions = naming.assign{
      { server = "s", tool = tool(long) },
      { server = "s", tool = tool(long .. "z") },     -- the same once cut
      { server = "s", tool = tool("t_2") },
      { server = "s", tool = tool("t") },
      { server = "s", tool = tool("t") },
    }
    assert.equal(64, #entries[2].name)
    assert.matches("_2$", entries[2].name)
    assert.equal("s_t_2", entries[3].name)
    assert.equal("s_t", entries[4].name)
    assert.equal("s_t_3", entries[5].name)   -- s_t_2 is a tool's own name
    assert.equal(2, #collisions)
    local seen = {}
    for _, e in ipairs(entries) do
      assert.is_nil(seen[e.name], e.name)
      seen[e.name] = true
    end
  end)
end)

describe("host tool filters", function()
  it("matches globs against the tool's own name and its server_tool name", function()
    assert.is_true(filter.glob_match("read_*", "read_file"))
    assert.is_false(filter.glob_match("read_*", "write_file"))
    assert.is_true(filter.glob_match("get-???", "get-sum"))
    assert.is_true(filter.glob_match("[gs]et-*", "set-x"))
    assert.is_false(filter.glob_match("[!gs]et-*", "set-x"))
    -- Lua's magic characters stand for themselves.
    assert.is_true(filter.glob_match("a.b%c(d)", "a.b%c(d)"))
    assert.is_false(filter.glob_match("a.b", "axb"))
  end)

  it("shows a tool that an include glob matches and no exclude glob does", function()
    local rules = { include = { "read_*", "fs_list_*" }, exclude = { "*_secret" } }
    assert.is_true(filter.allows(rules, "read_file", "fs_read_file"))
    assert.is_true(filter.allows(rules, "list_dir", "fs_list_dir"))
    assert.is_false(filter.allows(rules, "read_secret", "fs_read_secret"))
    assert.is_false(filter.allows(rules, "write_file", "fs_write_file"))
    assert.is_true(filter.allows(nil, "anything", "x_anything"))
    assert.is_false(filter.allows({ exclude = { "*" } }, "a", "s_a"))
    assert.is_true(filter.allows({ include = {} }, "a", "s_a"))
  end)
end)
