-- The Lua Client is composed explicitly by mcp.client from its parts
-- (features, validation, handlers): no module adds methods to another as
-- a side effect of being required (issue 12).
describe("the Client", function()
  it("is whole when mcp.client alone is required", function()
    local lua = os.getenv("MCP_LUA") or "lua5.4"
    local p = assert(io.popen(lua .. [[ -e '
      package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
      package.cpath = "./]] .. (os.getenv("MCP_BUILD_DIR") or "build") .. [[/?.so;" .. package.cpath
      local Client = require("mcp.client").Client
      for _, m in ipairs{ "call_tool", "list_tools", "read_resource", "set_log_level",
                          "set_roots", "run_url_elicitations", "_call_schemas", "request" } do
        io.write(m, "=", type(Client[m]), " ")
      end' 2>&1]]))
    local out = p:read("a")
    p:close()
    for _, m in ipairs{ "call_tool", "list_tools", "read_resource", "set_log_level",
                        "set_roots", "run_url_elicitations", "_call_schemas", "request" } do
      assert.matches(m .. "=function", out, 1, true)
    end
  end)
end)
