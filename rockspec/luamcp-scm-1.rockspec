rockspec_format = "3.0"
package = "luamcp"
version = "scm-1"
source = {
  url = "git+https://example.invalid/luamcp.git",
}
description = {
  summary = "A Lua-scriptable client runtime for the Model Context Protocol",
  detailed = [[
    require "mcp" connects to MCP servers (stdio, Streamable HTTP, SSE),
    lists and calls their tools, and runs everything as tasks on a libuv
    event loop. The protocol lives in a C core; Lua decides the policy.
    Installs the luamcp program too: the servers of the config files people
    already have (OpenCode, Claude, VS Code) from the command line.
  ]],
  license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5" }
external_dependencies = {
  LIBUV = { header = "uv.h", library = "uv" },
  -- Debian keeps curl.h in a multiarch folder LuaRocks does not search;
  -- CMake finds it through pkg-config.
  LIBCURL = { library = "curl" },
  CJSON = { header = "cjson/cJSON.h", library = "cjson" },
  OPENSSL = { header = "openssl/evp.h", library = "crypto" },
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_C_FLAGS = "$(CFLAGS)",
    CMAKE_MODULE_LINKER_FLAGS = "$(LIBFLAG) $(LDFLAGS)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LUA_LIBDIR = "$(LUA_LIBDIR)",
    LIBDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
    BINDIR = "$(BINDIR)",
    MCP_BUILD_TESTS = "OFF",
  },
}
test_dependencies = { "busted" }
test = { type = "busted" }
