--- mcp.llm.request: one model request over mcp.http, with the retries that
--- LLM APIs expect (429 and 5xx, with backoff, honoring Retry-After) inside
--- one deadline, and a streamed answer read by the core's SSE parser. It
--- knows nothing of a provider's JSON beyond what the caller passes in:
--- how to find the error message in an error body, and what to do with
--- each event of a stream.
local core = require "mcp.core"
local http = require "mcp.http"
local task = require "mcp.task"
local errors = require "mcp.errors"

local M = {}

M.BACKOFF_INITIAL = 0.5   -- seconds, doubled per attempt (as OpenAI's SDKs)
M.BACKOFF_MAX = 8
-- The most bytes of one answer, streamed or whole: a model's answer is
-- text and tool calls, and a server that sends more is not one to follow.
M.MAX_ANSWER = 16 * 1024 * 1024

local MONTHS = { Jan = 1, Feb = 2, Mar = 3, Apr = 4, May = 5, Jun = 6,
                 Jul = 7, Aug = 8, Sep = 9, Oct = 10, Nov = 11, Dec = 12 }

-- Seconds since the epoch of a UTC civil date (os.time would take it as
-- local time). Howard Hinnant's days_from_civil.
local function utc_epoch(y, m, d, hh, mm, ss)
  y = m <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m > 2 and m - 3 or m + 9) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return ((era * 146097 + doe - 719468) * 86400) + hh * 3600 + mm * 60 + ss
end

--- syntax: seconds = request.retry_after(headers, now?)
--- The wait a response asks for: `retry-after-ms` (OpenAI's), else
--- `retry-after` as seconds or as an HTTP date (IMF-fixdate); nil when
--- there is none or it cannot be read. now: epoch seconds (os.time()).
function M.retry_after(headers, now)
  local ms = tonumber(headers and headers["retry-after-ms"] or nil)
  if ms and ms >= 0 then return ms / 1000 end
  local value = headers and headers["retry-after"]
  if type(value) ~= "string" then return nil end
  local seconds = tonumber(value)
  if seconds then return seconds >= 0 and seconds or nil end
  local d, mon, y, hh, mm, ss =
    value:match("^%a%a%a, (%d%d) (%a%a%a) (%d%d%d%d) (%d%d):(%d%d):(%d%d) GMT$")
  if not d or not MONTHS[mon] then return nil end
  local at = utc_epoch(tonumber(y), MONTHS[mon], tonumber(d), tonumber(hh),
                       tonumber(mm), tonumber(ss))
  return math.max(0, at - (now or os.time()))
end

local function retryable_status(status)
  return status == 429 or status >= 500
end

-- The key must never reach an error message or a body kept in an error.
local function redact(text, secret)
  if type(text) ~= "string" or not secret or secret == "" then return text end
  local out, start = {}, 1
  while true do
    local i, j = text:find(secret, start, true)
    if not i then break end
    out[#out + 1] = text:sub(start, i - 1)
    out[#out + 1] = "***"
    start = j + 1
  end
  out[#out + 1] = text:sub(start)
  return table.concat(out)
end
M.redact = redact

-- The EHTTP error of a response with an error status.
local function http_error(o, status, headers, body)
  body = redact(body, o.secret)
  local doc = core.json_decode(body or "")
  local message, kind
  if type(doc) == "table" then message, kind = o.error_message(doc) end
  if type(message) ~= "string" or message == "" then
    message = body and body ~= "" and body:sub(1, 200) or "no message"
  end
  return errors.new("EHTTP", ("%s: HTTP %d: %s"):format(o.provider, status,
    redact(message, o.secret)), {
    status = status, body = body, provider = o.provider, type = kind,
    retry_after = M.retry_after(headers),
    request_id = headers and (headers["x-request-id"] or headers["request-id"]),
  })
end

-- One attempt. Returns ok ("json", doc) or ("stream") or (nil, err, retry)
-- where retry says whether another attempt may help.
local function attempt(o, remaining)
  local status, headers, streaming
  local parser, failure, raised, chunks = nil, nil, nil, {}
  local opts = {
    url = o.url, method = "POST", headers = o.headers, body = o.body,
    timeout = remaining, connect_timeout = o.connect_timeout,
    max_size = o.max_size or M.MAX_ANSWER,
    on_headers = function(s, h)
      status, headers = s, h
      local ctype = (h["content-type"] or ""):lower()
      streaming = o.on_event ~= nil and s == 200
        and ctype:find("text/event-stream", 1, true) ~= nil
      if streaming then parser = core.sse_parser() end
    end,
  }
  if o.on_event then
    -- Streaming is asked for: events go to on_event as they arrive; an
    -- error body (or a server that answered with plain JSON) is kept.
    opts.on_data = function(chunk, req)
      if failure then return end
      if not streaming then
        chunks[#chunks + 1] = chunk
        return
      end
      local events, err = parser:feed(chunk)
      if not events then
        failure = errors.new("EPROTO", ("%s: stream: %s"):format(o.provider,
          err.message), { provider = o.provider })
      else
        for _, ev in ipairs(events) do
          -- The caller's code (on_delta) may raise: that error is raised
          -- again once the transfer is stopped, not swallowed by it.
          local ok, e = pcall(o.on_event, ev)
          if not ok then raised = e end
          failure = ok and e or raised
          if failure then break end
        end
      end
      if failure then req:cancel() end
    end
  end
  local response, err = http.request(opts)
  if raised then error(raised, 0) end
  if failure then return nil, failure, false end
  if not response then
    -- Nothing was sent when no connection could be made: safe to retry.
    return nil, err, err.code == "ECONNECT"
  end
  local body = response.body or table.concat(chunks)
  if response.status < 200 or response.status >= 300 then
    return nil, http_error(o, response.status, response.headers, body),
      retryable_status(response.status)
  end
  if streaming then return "stream" end
  local doc, jerr = core.json_decode(body)
  if doc == nil then
    return nil, errors.new("EPROTO", ("%s: the answer is not JSON (%s): %s")
      :format(o.provider, jerr.message, redact(body:sub(1, 120), o.secret)),
      { provider = o.provider, body = redact(body, o.secret) }), false
  end
  return "json", doc
end

--- syntax: kind, doc_or_err = request.post(opts)
--- POSTs opts.body (a JSON text) to opts.url and returns "json", doc (the
--- decoded answer), or "stream" when the answer was an event stream that
--- went event by event to opts.on_event(ev) (which returns nil, or an
--- mcp.error to stop: that error is returned). opts: provider (for
--- messages), url, headers, body, secret (the API key, kept out of every
--- error), timeout (seconds for everything, retries included),
--- max_retries, error_message(doc) -> message, type (of an error body),
--- on_event (asks for a stream), on_retry(err, delay, attempt)?.
--- Errors: EHTTP (status, body, provider, type, retry_after, attempts),
--- EPROTO, ETIMEDOUT, ECONNECT, EIO...
function M.post(o)
  local deadline = core.now() + (o.timeout or 120) * 1000
  local max_retries = o.max_retries or 3
  local tries = 0
  while true do
    tries = tries + 1
    local remaining = (deadline - core.now()) / 1000
    if remaining <= 0 then
      return nil, errors.new("ETIMEDOUT", ("%s: no answer within %gs")
        :format(o.provider, o.timeout or 120), { provider = o.provider })
    end
    local kind, doc, retry = attempt(o, remaining)
    if kind then return kind, doc end
    local err = doc
    err.attempts = tries
    if not retry or tries > max_retries then return nil, err end
    local delay = err.retry_after
    if not delay then
      local base = math.min(M.BACKOFF_MAX, M.BACKOFF_INITIAL * 2 ^ (tries - 1))
      delay = base * (1 - 0.25 * math.random())   -- jitter: clients spread out
    end
    -- A wait that would end past the deadline cannot help: say why now.
    if core.now() + delay * 1000 >= deadline then return nil, err end
    if o.on_retry then o.on_retry(err, delay, tries) end
    task.sleep(delay)
  end
end

return M
