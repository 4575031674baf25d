-- JSON <-> Lua conversion: null, arrays, integers, unknown fields, limits.
local mcp = require "mcp"

local encode, decode = mcp.json.encode, mcp.json.decode

describe("JSON conversion", function()
  it("maps null to mcp.null and back", function()
    local v = assert(decode('{"a":null,"b":[null]}'))
    assert.equal(mcp.null, v.a)
    assert.equal(mcp.null, v.b[1])
    assert.equal('{"a":null}', encode({ a = mcp.null }))
  end)

  it("keeps an empty array an array and an empty object an object", function()
    local v = assert(decode('{"list":[],"obj":{}}'))
    assert.is_true(mcp.is_array(v.list))
    assert.is_false(mcp.is_array(v.obj))
    local back = assert(decode(encode(v)))
    assert.is_true(mcp.is_array(back.list))
    assert.matches('"list":%[%]', encode(v))
    assert.matches('"obj":{}', encode(v))
  end)

  it("encodes mcp.array() as [] and a plain sequence as an array", function()
    assert.equal("[]", encode(mcp.array()))
    assert.equal("{}", encode({}))
    assert.equal("[1,2,3]", encode({ 1, 2, 3 }))
  end)

  it("keeps integers integers and floats floats", function()
    local v = assert(decode('{"i":42,"big":9007199254740992,"f":1.5,"neg":-7}'))
    assert.equal("integer", math.type(v.i))
    assert.equal("integer", math.type(v.big))
    assert.equal("integer", math.type(v.neg))
    assert.equal("float", math.type(v.f))
    assert.equal('{"i":42}', encode({ i = 42 }))
  end)

  it("keeps unknown fields and _meta through a round trip", function()
    local text = '{"_meta":{"x.y/z":{"deep":[1,{"k":"v"}]}},"unknownField":true}'
    local v = assert(decode(text))
    assert.same(v, assert(decode(encode(v))))
    assert.equal("v", v._meta["x.y/z"].deep[2].k)
  end)

  it("reports malformed JSON and nesting beyond the limit", function()
    local v, err = decode('{"a":')
    assert.is_nil(v)
    assert.equal("EJSON", err.code)
    v, err = decode(string.rep("[", 1000) .. string.rep("]", 1000))
    assert.is_nil(v)
    assert.equal("ETOOBIG", err.code)
  end)

  it("refuses values JSON cannot hold", function()
    assert.has_error(function() encode({ f = print }) end)
    assert.has_error(function() encode(0/0) end)
    assert.has_error(function() encode({ [true] = 1 }) end)
    local t = {}
    t.self = t
    assert.has_error(function() encode(t) end)
  end)
end)
