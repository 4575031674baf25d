-- tour.lua - a first look at an MCP server from Lua: who it is, what it
-- tells the model, which tools it has, and two calls.
--
-- Usage: luamcp run examples/tour.lua CMD [ARGS...]
--   e.g. luamcp run examples/tour.lua npx -y @modelcontextprotocol/server-everything
local mcp = require "mcp"

local command = { ... }
if #command == 0 then
  io.stderr:write("usage: luamcp run examples/tour.lua CMD [ARGS...]\n")
  os.exit(2)
end

local server <close> = assert(mcp.connect{
  name = "tour",
  command = command,
  on_stderr = function() end,     -- keep the tour's output readable
})

local info = server.server_info
print(("Connected to %s %s (%s), protocol %s"):format(
  info.title or info.name, info.version, info.name, server.protocol_version))
if server.instructions then
  print("\nInstructions for the model:")
  for line in (server.instructions .. "\n"):gmatch("(.-)\n") do
    print("  " .. line)
  end
end

local tools = assert(server:list_tools())
print(("\n%d tools:"):format(#tools))
for _, tool in ipairs(tools) do
  print(("  %-28s %s"):format(tool.name, tool.title or tool.description or ""))
end

local sum = assert(server:call_tool("get-sum", { a = 2, b = 3 }))
print("\nget-sum {a=2, b=3} -> " .. sum.content[1].text)

local echo = assert(server:call_tool("echo", { message = "Hello from Lua!" }))
print("echo -> " .. echo.content[1].text)
