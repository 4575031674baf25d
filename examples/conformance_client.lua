-- conformance_client.lua - the client side of the official MCP conformance
-- suite: connects to the scenario's server and does what the scenario
-- (MCP_CONFORMANCE_SCENARIO) expects of a client. Exits non-zero on error.
--
-- Usage: luamcp run examples/conformance_client.lua SERVER_URL
local mcp = require "mcp"

local scenario = os.getenv("MCP_CONFORMANCE_SCENARIO") or ""
local url = arg[#arg]
if not url or not url:match("^https?://") then
  io.stderr:write("usage: luamcp run examples/conformance_client.lua SERVER_URL\n")
  os.exit(2)
end

-- OAuth: the suite's authorization servers approve at once and redirect
-- with a code, so the "browser" is this function: it follows the
-- authorization URL to its redirect and delivers that to our loopback
-- callback, as a browser would. Tokens stay in memory.
local context = {}
if os.getenv("MCP_CONFORMANCE_CONTEXT") then
  context = mcp.json.decode(os.getenv("MCP_CONFORMANCE_CONTEXT")) or {}
end

local function browse(authorize_url)
  local location = authorize_url
  for _ = 1, 5 do
    local response = assert(mcp.http.request{ url = location, timeout = 10 })
    if not response.redirect_url then return end
    location = response.redirect_url
  end
end

local oauth = {
  store = false,
  open = browse,
  client_id = context.client_id,
  client_secret = context.client_secret,
  -- The suite's client ID metadata document (auth/basic-cimd); it is used
  -- only where the authorization server supports such documents.
  client_metadata_url = "https://conformance-test.local/client-metadata.json",
}

-- Keys and assertions are configured as files (as a deployment would
-- have them): the context's values go into private temporary files
-- (os.tmpname makes them 0600), removed when the client exits.
local temporary = {}
local function file_with(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  temporary[#temporary + 1] = path
  return path
end
local cleanup <close> = setmetatable({}, { __close = function()
  for _, path in ipairs(temporary) do os.remove(path) end
end })

-- The grants without a person (the authorization extensions): each
-- scenario hands over its credentials in the context.
local grants = {
  ["auth/client-credentials-jwt"] = function()
    oauth.grant = "client_credentials"
    oauth.private_key = file_with(context.private_key_pem)
  end,
  ["auth/client-credentials-basic"] = function()
    oauth.grant = "client_credentials"
  end,
  ["auth/enterprise-managed-authorization"] = function()
    oauth.grant = "token_exchange"
    oauth.assertion = file_with(context.idp_id_token)
    oauth.idp_token_endpoint = context.idp_token_endpoint
    oauth.idp_client_id = context.idp_client_id
  end,
  ["auth/wif-jwt-bearer"] = function()
    -- A workload has no client of its own at the authorization server.
    oauth.grant = "jwt_bearer"
    oauth.client_id, oauth.client_secret = nil, nil
    oauth.assertion = file_with(context.valid_jwt)
  end,
  ["auth/dpop"] = function() oauth.dpop = true end,
  ["auth/dpop-nonce"] = function() oauth.dpop = true end,
}
grants["auth/cross-app-access-complete-flow"] = grants["auth/enterprise-managed-authorization"]
if grants[scenario] then grants[scenario]() end

local client <close> = assert(mcp.connect{
  name = "conformance",
  url = url,
  oauth = oauth,
  on_log = function() end,
  on_warning = function(message) io.stderr:write("warning: ", message, "\n") end,
  -- LUAMCP_TRACE=1: the whole exchange on stderr (the suite keeps it).
  on_trace = os.getenv("LUAMCP_TRACE") and function(line)
    io.stderr:write("trace: ", line, "\n")
  end or nil,
  handlers = {
    -- Accept with nothing filled in: the client applies the defaults.
    elicitation = function() return { action = "accept", content = {} } end,
    sampling = function(params)
      return { role = "assistant", model = "luamcp-conformance", stopReason = "endTurn",
               content = { type = "text", text = "sampled: " .. #params.messages .. " message(s)" } }
    end,
  },
})

local function call(name, args, opts)
  local result = assert(client:call_tool(name, args or {}, opts))
  assert(not result.isError, name .. " failed: " .. mcp.json.encode(result))
  return result
end

-- Lists the tools and calls each: what the scenarios whose server checks
-- the requests themselves (headers, _meta, authorization) need.
local function exercise_tools()
  for _, tool in ipairs(assert(client:list_tools())) do call(tool.name) end
end

-- Loads the first skill listed, as a host does when a task needs it: its
-- SKILL.md is fetched and verified, and only a verified skill's other
-- files are read (a skill that fails verification ends the run with its
-- EVERIFY error).
local function load_skill()
  local skills = assert(client:list_skills())
  assert(#skills > 0, "the server listed no skills")
  local skill = assert(client:get_skill(skills[1].id))
  for _, file in ipairs(skill.entry.resources) do
    if file.uri ~= skill.uri then assert(client:read_skill_file(skill, file.uri)) end
  end
end

local scenarios = {
  initialize = function()
    -- The handshake is the test; list tools only where they are offered.
    if client.capabilities.tools then assert(client:list_tools()) end
  end,
  tools_call = function()
    call("add_numbers", { a = 5, b = 3 })
  end,
  ["elicitation-sep1034-client-defaults"] = function()
    call("test_client_elicitation_defaults")
  end,
  -- The client must keep a 2020-12 schema whole: it sends back, verbatim,
  -- the inputSchema it was given for json_schema_2020_12_tool.
  ["json-schema-2020-12-preservation"] = function()
    for _, tool in ipairs(assert(client:list_tools())) do
      if tool.name == "json_schema_2020_12_tool" then
        call("json_schema_echo", { schema = tool.inputSchema })
      end
    end
  end,
  ["sse-retry"] = function()
    call("test_reconnection")
  end,
  -- 2026-07-28: the probe and its corrective retry are the test; the
  -- server declares no tools.
  ["request-metadata"] = function()
    assert(client.era == "modern", "not spoken to in 2026-07-28")
    if client.capabilities.tools then assert(client:list_tools()) end
  end,
  -- Listing is the test: a network $ref in a schema is never fetched.
  ["json-schema-ref-no-deref"] = function()
    assert(client:list_tools())
  end,
  ["http-standard-headers"] = exercise_tools,
  -- The calls are the scenario's: their arguments become Mcp-Param-*
  -- headers as the tools' x-mcp-header annotations say.
  ["http-custom-headers"] = function()
    assert(client:list_tools())
    -- Sent as given: a null stands for "omit the header", though the
    -- schema's type has no null.
    for _, c in ipairs(assert(context.toolCalls, "no toolCalls in the context")) do
      call(c.name, c.arguments, { validate_input = false })
    end
  end,
  -- The client leaves out the tools with invalid annotations; the one
  -- valid tool is still called (with its required argument).
  ["http-invalid-tool-headers"] = function()
    for _, tool in ipairs(assert(client:list_tools())) do
      call(tool.name, { region = "us-west1" })
    end
  end,
  ["sep-2322-client-request-state"] = exercise_tools,
  -- Skills (SEP-2640): listing reads no file of any skill.
  ["sep-2640-client-no-prefetch"] = function()
    local skills = assert(client:list_skills())
    assert(#skills > 0, "the server listed no skills")
  end,
  ["sep-2640-client-verify-digest"] = load_skill,
  ["sep-2640-client-verify-size"] = load_skill,
  ["sep-2640-client-verify-frontmatter"] = load_skill,
}

-- The authorization scenarios of both suites: authorize (connect did),
-- then use the server, whose requests check the token. Named one by one,
-- so that a new scenario is an error here rather than passed unseen.
for _, name in ipairs{
  "2025-03-26-oauth-endpoint-fallback", "2025-03-26-oauth-metadata-backcompat",
  "authorization-server-migration", "basic-cimd",
  "client-credentials-basic", "client-credentials-jwt",
  "cross-app-access-complete-flow", "dpop", "dpop-nonce",
  "enterprise-managed-authorization", "iss-normalized", "iss-not-advertised",
  "iss-supported", "iss-supported-missing", "iss-unexpected", "iss-wrong-issuer",
  "metadata-default", "metadata-issuer-mismatch", "metadata-var1", "metadata-var2",
  "metadata-var3", "offline-access-not-supported", "offline-access-scope",
  "pre-registration", "resource-mismatch", "scope-from-scopes-supported",
  "scope-from-www-authenticate", "scope-omitted-when-undefined", "scope-retry-limit",
  "scope-step-up", "token-endpoint-auth-basic", "token-endpoint-auth-none",
  "token-endpoint-auth-post", "wif-jwt-bearer",
} do
  scenarios["auth/" .. name] = exercise_tools
end

local run = scenarios[scenario]
  or error(("no handler for the scenario %q: add one to %s"):format(scenario, arg[0]), 0)
run()
