-- `luarocks make` installs the module into a fresh tree, and a plain lua5.4
-- using only that tree can require "mcp" and talk to a real server; it
-- installs the luamcp program too, which runs from any directory with the
-- Lua files of the tree it is in.
local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, code
end

local q = require("spec.support.fixture").q

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("the rockspec", function()
  local tree, made, make_output
  local source = select(2, sh("pwd")):gsub("%s+$", "")

  setup(function()
    local _, out = sh("mktemp -d")
    tree = out:gsub("%s+$", "")
    made, make_output = sh("rm -rf build.luarocks && luarocks --lua-version 5.4 make "
      .. "rockspec/luamcp-scm-1.rockspec --tree " .. q(tree))
  end)

  teardown(function()
    if tree and tree:match("^/tmp/") then
      sh("rm -rf " .. q(tree) .. " " .. q(tree .. ".moved"))
    end
    sh("rm -rf build.luarocks")
  end)

  it("installs with luarocks make and loads from plain lua5.4", function()
    assert(made, make_output)
    assert.matches("luamcp scm%-1 is now installed", make_output)

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
    write(tree .. "/check.lua", "local TREE = '" .. tree .. "'\n" .. script)
    local ran, output = sh(env .. "lua5.4 " .. tree .. "/check.lua")
    assert(ran, output)
    assert.equal("installed\n", output)
  end)

  it("installs the luamcp program, which runs from anywhere with the tree's Lua files", function()
    assert(made, make_output)
    -- The tree is moved after the install: a program that found its Lua
    -- files through a path compiled in (the source tree, the tree where it
    -- was installed) would load them from there, or find nothing.
    local moved = tree .. ".moved"
    assert(sh("mv " .. q(tree) .. " " .. q(moved)))
    finally(function() sh("mv " .. q(moved) .. " " .. q(tree)) end)
    local luamcp = moved .. "/bin/luamcp"
    -- Where each module was loaded from, as the program's Lua sees it.
    write(moved .. "/where.lua", [[
      print(debug.getinfo(require("mcp.cli").main, "S").source)
      print(debug.getinfo(require("mcp.host").new, "S").source)
    ]])
    -- Nothing from the environment may point at a Lua tree either.
    local clean = "cd /tmp && env -u LUA_PATH -u LUA_PATH_5_4 -u LUA_CPATH -u LUA_CPATH_5_4 "
    local ok, out = sh(clean .. q(luamcp) .. " run " .. q(moved .. "/where.lua"))
    assert(ok, out)
    assert.equal(("@%s/bin/../share/lua/5.4/mcp/cli.lua\n"
      .. "@%s/bin/../share/lua/5.4/mcp/host/init.lua\n"):format(moved, moved), out)

    local ran, tools = sh(clean .. q(luamcp) .. " tools --quiet -- node "
      .. q(source .. "/spec/fixtures/echo.js"))
    assert(ran, tools)
    assert.matches("^echo\t[^\n]*\nadd\t[^\n]*\n$", tools)
  end)
end)
