-- spec/integration/http_spec.lua - mcp.http.request (src/core/http.c,
-- curl_uv.c, src/lua/lhttp.c) against the real Node fixture
-- spec/fixtures/http_server.js, over plain HTTP and over HTTPS with HTTP/2.
local mcp = require "mcp"
local core = require "mcp.core"
local fixture = require "spec.support.fixture"

local http = mcp.http

describe("mcp.http", function()
  local server

  setup(function()
    run_async(function() server = fixture.http_server("http_server") end)
  end)

  teardown(function()
    if server then run_async(function() server.stop() end) end
  end)

  local function url(path) return server.url(path) end

  describe("requests", function()
    it("GETs with headers and returns status, headers and body", function()
      run_async(function()
        local res = assert(http.request{
          url = url("/echo?x=1"),
          headers = { ["X-Test"] = "yes", "X-Line: from a list" },
        })
        assert.equal(200, res.status)
        assert.equal("application/json", res.headers["content-type"])
        assert.equal("a, b", res.headers["x-multi"])
        local echo = mcp.json.decode(res.body)
        assert.equal("GET", echo.method)
        assert.equal("/echo?x=1", echo.url)
        assert.equal("yes", echo.headers["x-test"])
        assert.equal("from a list", echo.headers["x-line"])
        assert.equal("1.1", res.http_version)
        assert.equal(url("/echo?x=1"), res.url)
      end)
    end)

    it("POSTs a body, with the caller's content type and no other", function()
      run_async(function()
        local body = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
        local res = assert(http.request{
          url = url("/echo"), body = body,
          headers = { ["Content-Type"] = "application/json" },
        })
        local echo = mcp.json.decode(res.body)
        assert.equal("POST", echo.method)
        assert.equal(body, echo.body)
        assert.equal("application/json", echo.headers["content-type"])
        assert.equal(tostring(#body), echo.headers["content-length"])
        assert.is_nil(echo.headers.expect)

        res = assert(http.request{ url = url("/echo"), body = "raw" })
        echo = mcp.json.decode(res.body)
        assert.is_nil(echo.headers["content-type"])  -- no form default
        assert.equal("raw", echo.body)
      end)
    end)

    it("sends other methods, with and without a body", function()
      run_async(function()
        local echo = mcp.json.decode(assert(http.request{
          url = url("/echo"), method = "PUT", body = "bin\1ary" }).body)
        assert.equal("PUT", echo.method)
        assert.equal("bin\1ary", echo.body)
        echo = mcp.json.decode(assert(http.request{
          url = url("/echo"), method = "PATCH", body = "\0nul\0" }).body)
        assert.equal("PATCH", echo.method)
        assert.equal("5", echo.headers["content-length"])  -- NULs are sent
        echo = mcp.json.decode(assert(http.request{
          url = url("/echo"), method = "DELETE" }).body)
        assert.equal("DELETE", echo.method)
        local res = assert(http.request{ url = url("/echo"), method = "HEAD" })
        assert.equal(200, res.status)
        assert.equal("", res.body)
      end)
    end)

    it("identifies itself as luamcp/<version>", function()
      run_async(function()
        local echo = mcp.json.decode(assert(http.request{ url = url("/echo") }).body)
        assert.equal("luamcp/" .. mcp.version, echo.headers["user-agent"])
      end)
    end)

    it("returns HTTP error statuses as responses, not errors", function()
      run_async(function()
        for _, status in ipairs { 201, 204, 404, 500, 503 } do
          local res, err = http.request{ url = url("/status/" .. status) }
          assert.is_nil(err)
          assert.equal(status, res.status)
          if status ~= 204 then assert.equal("status " .. status, res.body) end
        end
      end)
    end)
  end)

  describe("errors", function()
    it("times out with ETIMEDOUT", function()
      run_async(function()
        local t0 = core.now()
        local res, err = http.request{ url = url("/slow"), timeout = 0.2 }
        assert.is_nil(res)
        assert.equal("ETIMEDOUT", err.code)
        assert.equal(28, err.curl_code)
        assert.truthy(core.now() - t0 < 2000)
      end)
    end)

    it("reports a refused connection with libcurl's cause", function()
      run_async(function()
        local res, err = http.request{ url = "http://127.0.0.1:1/echo" }
        assert.is_nil(res)
        assert.is_true(mcp.errors.is(err, "ECONNECT"))
        assert.equal(7, err.curl_code)
        assert.matches("curl 7", err.cause)
        assert.matches("127.0.0.1", err.cause)
        assert.matches("^ECONNECT: cannot connect to the server", tostring(err))
      end)
    end)

    it("fails synchronously on a bad URL, and raises on misuse", function()
      run_async(function()
        local res, err = http.request{ url = "not a url" }
        assert.is_nil(res)
        assert.equal("EINVAL", err.code)
        res, err = http.request{ url = "ftp://127.0.0.1/x" }
        assert.equal("EINVAL", err.code)
        assert.has_error(function() http.request{} end)
        assert.has_error(function() http.request{ url = url("/"), timeout = -1 } end)
        assert.has_error(function()
          http.request{ url = url("/"), headers = { ["Bad Name"] = "x" } }
        end)
        assert.has_error(function()
          http.request{ url = url("/"), headers = { X = "a\r\nInjected: 1" } }
        end)
        assert.has_error(function() core.http_request({ url = 1 }, print) end)
      end)
    end)

    it("stops at max_size with ETOOBIG, with or without a length", function()
      run_async(function()
        local _, err = http.request{ url = url("/big?bytes=100000"), max_size = 1000 }
        assert.equal("ETOOBIG", err.code)
        _, err = http.request{ url = url("/big?bytes=100000&chunked=1"), max_size = 1000 }
        assert.equal("ETOOBIG", err.code)
        local got = 0
        _, err = http.request{ url = url("/big?bytes=300000&chunked=1"), max_size = 200000,
                               on_data = function(c) got = got + #c end }
        assert.equal("ETOOBIG", err.code)
        assert.truthy(got <= 200000)
        local res = assert(http.request{ url = url("/big?bytes=1000"), max_size = 1000 })
        assert.equal(1000, #res.body)
        res = assert(http.request{ url = url("/big?bytes=2000000") })
        assert.equal(2000000, #res.body)
      end)
    end)
  end)

  describe("cancel", function()
    it("cancels from another task with ECANCELED", function()
      run_async(function()
        local t0 = core.now()
        local res, err = http.request{
          url = url("/slow"),
          on_start = function(req)
            mcp.spawn(function() mcp.sleep(0.1); assert.is_true(req:cancel()) end)
          end,
        }
        assert.is_nil(res)
        assert.equal("ECANCELED", err.code)
        assert.truthy(core.now() - t0 < 2000)
      end)
    end)

    it("cancels at once through the core handle; the callback runs later, once", function()
      run_async(function()
        local calls, result = 0, nil
        local started = true
        local h = assert(core.http_request({ url = url("/slow") }, function(res, err)
          assert.is_false(started)     -- never from inside http_request/cancel
          calls = calls + 1
          result = { res, err }
        end))
        assert.is_true(h:cancel())
        assert.is_false(h:cancel())    -- cancelled already
        started = false
        mcp.sleep(0.1)
        assert.equal(1, calls)
        assert.is_nil(result[1])
        assert.equal("ECANCELED", result[2].code)
        assert.is_false(h:cancel())
      end)
    end)

    it("cancels from inside on_headers and on_data", function()
      run_async(function()
        local chunks = 0
        local _, err = http.request{
          url = url("/stream"),
          on_data = function(_, req) chunks = chunks + 1; req:cancel() end,
        }
        assert.equal("ECANCELED", err.code)
        assert.equal(1, chunks)
        local got_data = false
        _, err = http.request{
          url = url("/stream"),
          on_headers = function(status, _, req) assert.equal(200, status); req:cancel() end,
          on_data = function() got_data = true end,
        }
        assert.equal("ECANCELED", err.code)
        assert.is_false(got_data)
      end)
    end)

    it("cancels the request of a task that is killed", function()
      run_async(function()
        local handle
        local co = mcp.spawn(function()
          http.request{ url = url("/slow"), on_start = function(h) handle = h end }
        end)
        mcp.sleep(0.05)
        assert.is_true(require("mcp.task").kill(co))
        assert.is_false(handle:cancel())   -- already cancelled by <close>
        mcp.sleep(0.05)                    -- its completion runs, quietly
      end)
    end)

    it("keeps running when its handle is dropped", function()
      run_async(function()
        local done = false
        core.http_request({ url = url("/stream") }, function(res)
          done = res and res.status == 200
        end)
        collectgarbage()
        collectgarbage()
        local deadline = core.now() + 3000
        while not done and core.now() < deadline do mcp.sleep(0.02) end
        assert.is_true(done)
      end)
    end)
  end)

  describe("streaming", function()
    it("delivers the body incrementally to on_data", function()
      run_async(function()
        local chunks, first_at, headers_at = {}, nil, nil
        local res = assert(http.request{
          url = url("/stream"),
          on_headers = function(status, headers)
            headers_at = core.now()
            assert.equal(200, status)
            assert.equal("text/plain", headers["content-type"])
          end,
          on_data = function(chunk)
            first_at = first_at or core.now()
            chunks[#chunks + 1] = chunk
          end,
        })
        local done_at = core.now()
        assert.equal(200, res.status)
        assert.is_nil(res.body)
        assert.equal("chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n", table.concat(chunks))
        assert.truthy(#chunks >= 3, "only " .. #chunks .. " chunk(s)")
        assert.truthy(headers_at <= first_at)
        assert.truthy(done_at - first_at >= 100, "the first chunk came at the end")
      end)
    end)
  end)

  describe("connections", function()
    it("reuses one connection for sequential requests to a host", function()
      run_async(function()
        local a = assert(http.request{ url = url("/echo") })
        local b = assert(http.request{ url = url("/echo") })
        assert.equal(0, b.connects)
        assert.equal(mcp.json.decode(a.body).remote_port,
                     mcp.json.decode(b.body).remote_port)
      end)
    end)

    it("drops a kept-alive connection the server closed while idle", function()
      run_async(function()
        local a = assert(http.request{ url = url("/drop-idle") })
        -- The idle socket turns readable when the server closes it; the
        -- engine must stop polling it, not spin on the event.
        local cpu = os.clock()
        mcp.sleep(0.3)
        cpu = os.clock() - cpu
        assert.truthy(cpu < 0.1, ("%.3f s of CPU while idle"):format(cpu))
        local b = assert(http.request{ url = url("/echo") })
        assert.equal(200, b.status)
        assert.equal(1, b.connects)
        assert.are_not.equal(mcp.json.decode(a.body).remote_port,
                             mcp.json.decode(b.body).remote_port)
      end)
    end)

    it("completes 50 concurrent requests", function()
      run_async(function()
        local done, tasks = 0, {}
        for i = 1, 50 do
          tasks[i] = mcp.spawn(function()
            local res = assert(http.request{ url = url("/echo?i=" .. i) })
            assert.equal("/echo?i=" .. i, mcp.json.decode(res.body).url)
            done = done + 1
          end)
        end
        local deadline = core.now() + 10000
        while done < 50 and core.now() < deadline do mcp.sleep(0.02) end
        assert.equal(50, done)
      end)
    end)
  end)

  describe("redirects", function()
    it("returns a redirect unfollowed by default", function()
      run_async(function()
        local res = assert(http.request{ url = url("/redirect-same") })
        assert.equal(302, res.status)
        assert.equal("/echo", res.headers.location)
        assert.equal(url("/echo"), res.redirect_url)
      end)
    end)

    it("follows same-origin redirects when asked", function()
      run_async(function()
        local res = assert(http.request{ url = url("/redirect-same"), max_redirects = 3 })
        assert.equal(200, res.status)
        assert.equal(url("/echo"), res.url)
        assert.equal("GET", mcp.json.decode(res.body).method)
        res = assert(http.request{ url = url("/redirect-303"), body = "x", max_redirects = 3 })
        local echo = mcp.json.decode(res.body)
        assert.equal("GET", echo.method)
        assert.equal("/echo?from=303", echo.url)
        assert.equal("", echo.body)
      end)
    end)

    it("never follows a redirect to another origin", function()
      run_async(function()
        local res = assert(http.request{ url = url("/redirect-other"), max_redirects = 5 })
        assert.equal(302, res.status)
        assert.equal("moved elsewhere", res.body)
        assert.matches("^http://localhost:", res.redirect_url)
        assert.equal(url("/redirect-other"), res.url)
      end)
    end)
  end)

  describe("HTTPS", function()
    local tls, dir

    setup(function()
      dir = os.tmpname()
      os.remove(dir)
      assert(os.execute("mkdir -p " .. dir))
      assert(os.execute(("openssl req -x509 -newkey rsa:2048 -nodes -days 1 "
        .. "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
        .. "-keyout %s/key.pem -out %s/cert.pem >/dev/null 2>&1"):format(dir, dir)))
      run_async(function()
        tls = fixture.http_server("http_server",
          { "--tls", dir .. "/cert.pem", dir .. "/key.pem" })
      end)
    end)

    teardown(function()
      if tls then run_async(function() tls.stop() end) end
      os.execute("rm -rf " .. dir)
    end)

    local function turl(path) return ("https://127.0.0.1:%d%s"):format(tls.port, path) end

    it("verifies the server against ca_file and speaks HTTP/2", function()
      run_async(function()
        local res = assert(http.request{ url = turl("/h"), ca_file = dir .. "/cert.pem" })
        assert.equal(200, res.status)
        assert.equal("2", res.http_version)
        assert.equal("2.0", res.body)
      end)
    end)

    it("refuses an unknown certificate unless insecure is set", function()
      run_async(function()
        local res, err = http.request{ url = turl("/h"), ca_file = "/dev/null", ca_path = "/nonexistent" }
        assert.is_nil(res)
        assert.equal("EIO", err.code)
        assert.truthy(err.curl_code == 60 or err.curl_code == 77, err.cause)
        res = assert(http.request{ url = turl("/h"), insecure = true })
        assert.equal("2.0", res.body)
      end)
    end)

    it("multiplexes concurrent HTTP/2 requests", function()
      run_async(function()
        local done, connects = 0, 0
        for i = 1, 10 do
          mcp.spawn(function()
            local res = assert(http.request{ url = turl("/echo?i=" .. i),
                                             ca_file = dir .. "/cert.pem" })
            assert.equal("2.0", mcp.json.decode(res.body).http_version)
            connects = connects + res.connects
            done = done + 1
          end)
        end
        while done < 10 do mcp.sleep(0.02) end
        assert.truthy(connects <= 2, connects .. " connections")
      end)
    end)
  end)
end)
