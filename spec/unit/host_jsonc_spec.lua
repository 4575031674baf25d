-- mcp.host.jsonc: comments and trailing commas go (cJSON's minifier and a
-- scan), strings keep every byte, and an object's key order is found.
local jsonc = require "mcp.host.jsonc"

describe("JSONC", function()
  it("drops comments and trailing commas but not what looks like them inside strings", function()
    local value = assert(jsonc.decode([[
{
  // a line comment
  "url": "http://example.com/a//b", /* a block
     comment */
  "odd": "x,} /* y */ ,]",
  "list": [1, 2, 3,],
  "quote": "a\"b,}",
}
]]))
    assert.equal("http://example.com/a//b", value.url)
    assert.equal("x,} /* y */ ,]", value.odd)
    assert.same({ 1, 2, 3 }, { value.list[1], value.list[2], value.list[3] })
    assert.equal(3, #value.list)
    assert.equal('a"b,}', value.quote)
  end)

  it("reads a file that begins with a byte order mark", function()
    assert.equal(1, assert(jsonc.decode("\239\187\191{\"a\": 1}")).a)
  end)

  it("finds the order of an object's keys, nested, as written", function()
    local _, text = assert(jsonc.decode([[
{ "mcp": { // servers
    "zeta": { "command": ["a", "{"] },
    "alpha": { "x": { "y": [1, {"z": "}"}] } },
    "mid\u0041": {},
  } }
]]))
    assert.same({ "zeta", "alpha", "midA" }, jsonc.keys_at(text, { "mcp" }))
    assert.same({ "mcp" }, jsonc.keys_at(text, {}))
    assert.same({}, jsonc.keys_at(text, { "nope" }))
  end)

  it("says where bad JSON is, as a line and column of the file itself", function()
    local value, err = jsonc.decode('{\n  /* c */ "a": 1,\n  "b" 2\n}')
    assert.is_nil(value)
    assert.matches("at line 3, column 7", err)
  end)

  it("refuses a text with a NUL byte rather than reading it cut short", function()
    local value, err = jsonc.decode('{"a": 1}\0{"b": 2}')
    assert.is_nil(value)
    assert.matches("NUL", err)
  end)
end)
