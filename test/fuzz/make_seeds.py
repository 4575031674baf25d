#!/usr/bin/env python3
# make_seeds.py - writes the seed corpora of the fuzz harnesses under
# test/fuzz/corpus/<harness>/, from fixed examples and from the vendored
# JSON-Schema-Test-Suite (test/data/json-schema-test-suite). Run it from
# anywhere; it replaces the files it generates and leaves others (such as
# minimized inputs added by hand, named min-*) alone. The output is
# deterministic, so a rerun changes nothing unless this script or the
# suite changed.
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SUITE = os.path.join(ROOT, "test", "data", "json-schema-test-suite")
CORPUS = os.path.join(HERE, "corpus")
REMOTE_PREFIX = "http://localhost:1234/"
DRAFT7 = "http://json-schema.org/draft-07/schema#"
MAX_SCHEMA_SEEDS = 330    # keeps the committed corpus small
MAX_SEED_BYTES = 16384


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def write(harness, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def clear(harness):
    d = os.path.join(CORPUS, harness)
    if os.path.isdir(d):
        for n in os.listdir(d):
            if n.startswith("seed-"):
                os.remove(os.path.join(d, n))


def suite_groups():
    """(draft, file name, group) for each test group, in a fixed order."""
    for draft in ("draft2020-12", "draft7"):
        d = os.path.join(SUITE, "tests", draft)
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not name.endswith(".json") or not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                for group in json.load(f):
                    yield draft, name[:-5], group


def remotes():
    out = {}
    base = os.path.join(SUITE, "remotes")
    for dirpath, _, files in os.walk(base):
        for n in sorted(files):
            path = os.path.join(dirpath, n)
            rel = os.path.relpath(path, base).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                out[REMOTE_PREFIX + rel] = json.load(f)
    return out


# Messages a server sends, used by several harnesses.
MESSAGES = [
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo",'
    '"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},'
    '"required":["text"]}}]}}',
    '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text",'
    '"text":"hi \\u00e9 \\ud83d\\ude00"}],"isError":false}}',
    '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not '
    'found","data":{"method":"x"}}}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":'
    '{"progressToken":4,"progress":0.5,"total":1}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":'
    '{"level":"info","data":"x"}}',
    '{"jsonrpc":"2.0","id":"s-1","method":"ping"}',
    '{"jsonrpc":"2.0","id":7,"method":"roots/list","params":{}}',
    '{"result":{"a":[1,2,{"b":null}]},"id":5,"jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse '
    'error"}}',
    '{"jsonrpc":"2.0","id":6,"result":{"structuredContent":{"n":1e3},'
    '"content":[]}}',
    '{"jsonrpc":"2.0","id":1.0,"result":true}',
    '{"jsonrpc":"2.0","id":"1","result":[]}',
    '[{"jsonrpc":"2.0","id":1,"result":{}}]',
    '{"jsonrpc":"1.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":{"x":1},"result":{}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":'
    '{"requestId":2,"reason":"because"}}',
]

JSON_TEXTS = [
    '"plain"', '""', '"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"',
    '"\\u00e9\\u4e2d\\ud83d\\ude00"', '"\\ud800"', '"\\udc00x"',
    '0', '-0', '42', '-7', '9007199254740992', '9007199254740993',
    '12345678901234567890', '1.5', '-1e3', '1E-2', '2.0', '1e308', '0.1',
    '[]', '{}', '[[],[{}]]', '{"a":[1,2,{"b":null}],"c":true,"d":false}',
    ' \n\t{"x" : 1 } \r\n', '{"dup":1,"dup":2}', '[1,]', '{"a":}', '01',
    '"ctl \x01 char"', '[' * 40 + ']' * 40, '{"k\\u0041":"v\\n"}',
    '"' + 'a\\n' * 40 + '"', 'true', 'false', 'null', '[true,false,null]',
]


def sse_seeds():
    streams = [
        b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        b"event: message\r\nid: 42\r\ndata: {\"a\":1}\r\n\r\n",
        b"\xef\xbb\xbfdata: x\rdata: y\r\r",
        b": keep-alive\n\nretry: 1500\n\ndata\n\n",
        b"id: 1\ndata: first\n\nid\ndata: second\n\n",
        b"data:no space\ndata:  two spaces\nevent:\n\n",
        b"retry: 99999999999999999999999\nretry: 12a\n\n",
        b"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"big\":\"" +
        b"x" * 200 + b"\"}}\n\n",
        b"event: ping\ndata: 1\n\nfield: ignored\ndata: 2\n\n",
        b"id: a\x00b\ndata: nul id ignored\n\n",
        b"data: a\r\n\r\ndata: b\n\r\n",
        b"data: unterminated",
    ]
    for i, s in enumerate(streams):
        for j, pre in enumerate((b"\x10\x05\x08", b"\x80\x01\x3f",
                                 b"\x03\x07\x02")):
            write("sse", "%02d-%d" % (i, j), pre + s)


def framing_seeds():
    text = "\n".join(MESSAGES).encode() + b"\n"
    write("framing", "messages", b"\x80\x11\x3f" + text)
    write("framing", "small-limit", b"\x20\x02\x05" + text)
    write("framing", "crlf", b"\x40\x03\x10" +
          b"\r\n".join(m.encode() for m in MESSAGES[:4]) + b"\r\n")
    write("framing", "blank", b"\x05\x04\x01\n\n\r\n{}\r\r\n" +
          b"{\"id\":9," + b"x" * 50 + b"\n")


def scan_seeds():
    for i, m in enumerate(MESSAGES):
        write("idscan", "%02d" % i, b"\x05\x08" + m.encode())
        write("jsonscan", "%02d" % i, b"\x80\x10" + m.encode())
        write("jsonrpc", "%02d" % i, b"\x07\x41\x12" + m.encode())
    write("idscan", "late-id", b"\x01\x3f" + b'{"result":{"id":0,"x":"\\"id\\""}'
          b',"jsonrpc":"2.0","id" : "abc\\"d"}')
    write("idscan", "long-id", b"\x02\x03" + b'{"id":"' + b"7" * 70 + b'"}')
    write("jsonscan", "deep", b"\x04\x02" + b'{"a":[[[[[1]]]]],"b":"}"}')
    write("jsonrpc", "all", b"\x07\xf0\x0f" +
          "\n".join(MESSAGES).encode() + b"\n\x01" + b"4\n\x01\"x\"\n")


def json_seeds():
    for i, t in enumerate(JSON_TEXTS + MESSAGES):
        write("json", "%02d" % i, b"\x80" + t.encode())
        write("jsondec", "%02d" % i, t.encode())
    # A few whole files of the suite: real schemas as JSON text.
    for name in ("ref", "unevaluatedProperties", "dynamicRef", "enum",
                 "uniqueItems", "const"):
        path = os.path.join(SUITE, "tests", "draft2020-12", name + ".json")
        with open(path, "rb") as f:
            data = f.read()
        write("jsondec", "suite-" + name, data)
        write("json", "suite-" + name, b"\x80" + data)


def schema_seeds():
    rem = remotes()
    n = 0
    for draft, name, group in suite_groups():
        schema = group["schema"]
        if draft == "draft7" and isinstance(schema, dict) and \
                "$schema" not in schema:
            schema = dict(schema)
            schema["$schema"] = DRAFT7
        text = compact(schema)
        used = {u: d for u, d in rem.items() if u in text or
                u.rsplit("/", 1)[0] + "/" in text}
        seed = [schema, [t["data"] for t in group["tests"]]]
        if used:
            seed.append(used)
        data = compact(seed).encode("utf-8")
        if len(data) > MAX_SEED_BYTES:
            continue
        digest = hashlib.sha1(data).hexdigest()[:8]
        write("schema", "%s-%s-%s" % (draft, name, digest), data)
        n += 1
        if n >= MAX_SCHEMA_SEEDS:
            break


def regex_seeds():
    patterns = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "pattern" and isinstance(x, str):
                    patterns.add(x)
                elif k == "patternProperties" and isinstance(x, dict):
                    patterns.update(x.keys())
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    subjects = {}
    for _, _, group in suite_groups():
        walk(group["schema"])
        before = len(patterns)
        for t in group["tests"]:
            if isinstance(t["data"], str):
                subjects.setdefault(len(subjects), t["data"])
        del before
    extra = [
        r"^[a-z][a-z0-9_-]{0,63}$", r"(a|b)*c", r"\d{3}-\d{4}", r"[^\s]+",
        r"\p{L}+\P{Lu}", r"(?<name>x)(?:y|z)?", r"a{2,}?b{1,3}", r"\bword\B",
        r"[\u0041-\u005A\x61-\x7a]", r"\u{1F600}", r"\cJ\t\v\f\r\n\0",
        r"(?:(?:a?){20}){3}b", r"^$", r".", r"[\w.-]+@[\w.-]+", r"[]", r"[^]",
        r"x*?y+?z??", r"\/\\\.\*", r"^\p{N}*$",
    ]
    subj = ["", "abc", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", "123-4567",
            "héllo wörld", "\U0001F600 x", "word wordy", "a@b.c", "\n\r\t"]
    all_patterns = sorted(patterns) + extra
    for i, p in enumerate(all_patterns):
        s = subj[i % len(subj)]
        write("regex", "%03d" % i, p.encode("utf-8") + b"\x00" +
              s.encode("utf-8"))


def main():
    if not os.path.isdir(SUITE):
        sys.exit("make_seeds.py: no test suite at " + SUITE)
    for h in ("sse", "framing", "idscan", "jsonscan", "json", "jsonrpc",
              "jsondec", "schema", "regex"):
        clear(h)
    sse_seeds()
    framing_seeds()
    scan_seeds()
    json_seeds()
    schema_seeds()
    regex_seeds()


if __name__ == "__main__":
    main()
