-- `luarocks make` installs the module into a fresh tree, and a plain lua5.4
-- using only that tree can require "mcp" and talk to a real server.
local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, code
end

describe("the rockspec", function()
  local tree

  setup(function()
    local _, out = sh("mktemp -d")
    tree = out:gsub("%s+$", "")
  end)

  teardown(function()
    if tree and tree:match("^/tmp/") then sh("rm -rf '" .. tree .. "'") end
    sh("rm -rf build.luarocks")
  end)

  it("installs with luarocks make and loads from plain lua5.4", function()
    local ok, out = sh("rm -rf build.luarocks && luarocks --lua-version 5.4 make "
      .. "rockspec/luamcp-scm-1.rockspec --tree '" .. tree .. "'")
    assert(ok, out)
    assert.matches("luamcp scm%-1 is now installed", out)

    -- Only the temporary tree is on the paths: no ./lua, no ./build.
    local script = [[
      local mcp = require "mcp"
      assert(package.searchpath("mcp.core", package.cpath):find(TREE, 1, true))
      mcp.run(function()
        local c <close> = assert(mcp.connect{ command = { "node", "spec/fixtures/echo.js" },
                                             on_stderr = function() end })
        local r = assert(c:call_tool("echo", { message = "installed" }))
        print(r.content[1].text)
      end)
    ]]
    local env = ("LUA_PATH_5_4='%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua' "
      .. "LUA_CPATH_5_4='%s/lib/lua/5.4/?.so' "):format(tree, tree, tree)
    local f = assert(io.open(tree .. "/check.lua", "w"))
    f:write("local TREE = '" .. tree .. "'\n", script)
    f:close()
    local ran, output = sh(env .. "lua5.4 " .. tree .. "/check.lua")
    assert(ran, output)
    assert.equal("installed\n", output)
  end)
end)
