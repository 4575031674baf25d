-- mcp.cli.args: a client secret is named on the command line by where it
-- is (a variable, a file), never given there itself.
local args = require "mcp.cli.args"

describe("luamcp's OAuth options", function()
  it("take the secret's variable or file, never the secret", function()
    local opts = assert(args.parse({ "auth", "srv", "--client-id", "app",
      "--client-secret-env", "APP_SECRET" }, 2))
    assert.same({ client_id = "app", client_secret = { env = "APP_SECRET" } }, opts.oauth)
    opts = assert(args.parse({ "auth", "srv", "--client-secret-file", "/run/secret" }, 2))
    assert.same({ file = "/run/secret" }, opts.oauth.client_secret)
    local none, err = args.parse({ "auth", "srv", "--client-secret", "hunter2" }, 2)
    assert.is_nil(none)
    assert.matches("--client-secret", err, 1, true)
  end)
end)
