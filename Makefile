# luamcp - developer entry points. `make demo` and `make check` work on a
# fresh Debian 12 machine: they install what is missing first.

BUILD_DIR   ?= build
DEPS_DIR    ?= .deps
NPM_PREFIX  := $(DEPS_DIR)/npm
EVERYTHING_VERSION := 2026.8.31
EVERYTHING  := $(NPM_PREFIX)/node_modules/@modelcontextprotocol/server-everything/dist/index.js
# The host's specs (issue 14) run the official filesystem and memory
# servers too; pinned like server-everything.
FILESYSTEM_VERSION := 2026.8.31
MEMORY_VERSION := 2026.8.31
FILESYSTEM := $(NPM_PREFIX)/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
MEMORY := $(NPM_PREFIX)/node_modules/@modelcontextprotocol/server-memory/dist/index.js
BENCH_SDK := $(DEPS_DIR)/bench/node_modules/@modelcontextprotocol/sdk/package.json
# The legacy era's suite and the 2026-07-28 one, each with its list of
# expected failures (tools/conformance/expected-failures-VERSION.yml).
CONFORMANCE_VERSIONS := 0.1.16 0.2.0-alpha.12
CONFORMANCE_ROOT := $(abspath $(DEPS_DIR))/conformance
CONFORMANCE_CLIENT := $(abspath $(BUILD_DIR))/luamcp run $(abspath examples/conformance_client.lua)

APT_PACKAGES := build-essential cmake pkg-config git ca-certificates \
  iproute2 util-linux \
  lua5.4 liblua5.4-dev libuv1-dev libcjson-dev libcurl4-openssl-dev \
  libssl-dev lua-busted luarocks procps

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps apt-deps npm-deps build check test demo tour clean

all: build

deps: apt-deps npm-deps

# Installs only the Debian packages that are missing.
apt-deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
	    || missing="$$missing $$p"; done; \
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
	  missing="$$missing nodejs npm"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

npm-deps: $(EVERYTHING) $(FILESYSTEM) $(MEMORY)

# One install for the three, so that npm resolves their shared
# dependencies together; each file's rule names all of them.
$(EVERYTHING) $(FILESYSTEM) $(MEMORY) &:
	mkdir -p $(NPM_PREFIX)
	npm install --no-audit --no-fund --loglevel=error --prefix $(NPM_PREFIX) \
	  @modelcontextprotocol/server-everything@$(EVERYTHING_VERSION) \
	  @modelcontextprotocol/server-filesystem@$(FILESYSTEM_VERSION) \
	  @modelcontextprotocol/server-memory@$(MEMORY_VERSION)
	test -f $(EVERYTHING) && test -f $(FILESYSTEM) && test -f $(MEMORY)
	touch $(EVERYTHING) $(FILESYSTEM) $(MEMORY)

build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD_DIR) -j2

# The authorization server of the OAuth specs (spec/fixtures/oauth_server.js).
OIDC_PROVIDER_VERSION := 9.13.3
OAUTH_DEPS := $(DEPS_DIR)/oauth/node_modules/oidc-provider/package.json
$(OAUTH_DEPS):
	mkdir -p $(DEPS_DIR)/oauth
	npm install --no-audit --no-fund --loglevel=error --prefix $(DEPS_DIR)/oauth \
	  oidc-provider@$(OIDC_PROVIDER_VERSION)
	test -f $@ && touch $@

# The official TypeScript SDK v2 of the 2026-07-28 fixture servers
# (spec/fixtures/modern), in a prefix of its own: .deps/npm keeps the 1.x
# SDK of server-everything. zod is pinned too (the SDK asks for ^4.2.0).
SDK_V2_VERSION := 2.4.0
SDK_V2_ZOD_VERSION := 4.6.7
SDK_V2_DEPS := $(DEPS_DIR)/v2/node_modules/@modelcontextprotocol/server/package.json
$(SDK_V2_DEPS):
	mkdir -p $(DEPS_DIR)/v2
	npm install --no-audit --no-fund --loglevel=error --save-exact --prefix $(DEPS_DIR)/v2 \
	  @modelcontextprotocol/server@$(SDK_V2_VERSION) zod@$(SDK_V2_ZOD_VERSION)
	test -f $@ && touch $@

# Every test: C tests, busted specs; ends with "N passed, N failed".
check: deps build conformance-deps $(BENCH_SDK) $(OAUTH_DEPS) $(SDK_V2_DEPS)
	tools/run-tests.sh

test: build
	tools/run-tests.sh

# An agent over server-everything, server-filesystem and server-memory
# (examples/demo/luamcp.json): the scripted LLM fixture by default, a real
# model when OPENAI_API_KEY or ANTHROPIC_API_KEY is set.
demo: deps build
	LUAMCP_NODE_MODULES=$(abspath $(NPM_PREFIX))/node_modules \
	  $(BUILD_DIR)/luamcp run examples/agent_demo.lua

# examples/embed_loop.lua (run by the examples' spec) polls luamcp's fd
# with LuaSocket's select: plain Lua has no poll().
APT_PACKAGES += lua-socket

# The first look at one server: its info, instructions, tools, two calls.
tour: deps build
	$(BUILD_DIR)/luamcp run examples/tour.lua node $(EVERYTHING) stdio

clean:
	rm -rf $(BUILD_DIR) build.luarocks

# The benchmark against the TypeScript SDK client (issue 6): the SDK goes
# to $(DEPS_DIR)/bench; tools/bench/run.sh builds the C fixture and floor.
# bench: the issue's sizes, table + bench/results/latest.json.
# bench-smoke: a few hundred calls, no timing assertion, < 60 s.

$(BENCH_SDK):
	mkdir -p $(DEPS_DIR)/bench
	npm install --no-audit --no-fund --loglevel=error --prefix $(DEPS_DIR)/bench \
	  @modelcontextprotocol/sdk@1
	test -f $@ && touch $@

.PHONY: bench bench-smoke
bench: build $(BENCH_SDK)
	BUILD_DIR=$(BUILD_DIR) DEPS_DIR=$(DEPS_DIR) tools/bench/run.sh

bench-smoke: build $(BENCH_SDK)
	BUILD_DIR=$(BUILD_DIR) DEPS_DIR=$(DEPS_DIR) tools/bench/run.sh --smoke

# The official MCP conformance suite (client scenarios), with a Node 22
# from npm, in an ignored folder. CONFORMANCE_SCENARIOS limits the run.

.PHONY: conformance-deps conformance
CONFORMANCE_STAMPS := $(foreach v,$(CONFORMANCE_VERSIONS),\
  $(CONFORMANCE_ROOT)/$(v)/node_modules/.luamcp-stamp)
conformance-deps: $(CONFORMANCE_STAMPS)

$(CONFORMANCE_ROOT)/%/node_modules/.luamcp-stamp:
	CONFORMANCE_DIR=$(CONFORMANCE_ROOT)/$* tools/conformance/setup.sh $*
	touch $@

# Every client scenario of each version, one at a time, inside a private
# network namespace (the suite's servers listen on every interface).
conformance: deps build conformance-deps
	@rc=0; for v in $(CONFORMANCE_VERSIONS); do \
	  echo "== conformance $$v"; \
	  CONFORMANCE_DIR=$(CONFORMANCE_ROOT)/$$v tools/conformance/in-netns.sh \
	    tools/conformance/run-client-suite.sh --timeout 20000 \
	    --expected-failures tools/conformance/expected-failures-$$v.yml -v \
	    -- $(CONFORMANCE_CLIENT) || rc=1; \
	done; exit $$rc

# Sanitizers (issue 11). check-asan: the C tests and every busted spec
# against an ASan+UBSan build in $(ASAN_BUILD_DIR) (any report aborts the
# test), then the JSON specs under valgrind against $(BUILD_DIR), where ASan
# cannot see into lua5.4's heap. Ends with "N passed, N failed"; .ci/run
# runs it after `make check`.

ASAN_BUILD_DIR ?= build-asan
APT_PACKAGES += valgrind

.PHONY: asan-build check-asan clean-asan
asan-build:
	cmake -S . -B $(ASAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMCP_SANITIZE=address,undefined >/dev/null
	cmake --build $(ASAN_BUILD_DIR) -j2

check-asan: deps build asan-build $(OAUTH_DEPS) $(SDK_V2_DEPS)
	ASAN=1 BUILD_DIR=$(ASAN_BUILD_DIR) VALGRIND_BUILD_DIR=$(BUILD_DIR) \
	  tools/run-tests.sh

clean: clean-asan
clean-asan:
	rm -rf $(ASAN_BUILD_DIR)

# Fuzzing (issue 11): the libFuzzer harnesses of test/fuzz (see its
# README.md), built with clang in $(FUZZ_BUILD_DIR), a CMake project of
# their own, so the normal build never sees clang or the sanitizers.
# fuzz: each harness for FUZZ_SECONDS, growing $(FUZZ_BUILD_DIR)/corpus.
# fuzz-smoke: each for 3 s from the committed corpus; make check runs it
# through tools/run-tests.sh, so check needs clang too.

FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
APT_PACKAGES += clang libclang-rt-dev

.PHONY: fuzz-build fuzz fuzz-smoke clean-fuzz
fuzz-build: apt-deps
	cmake -S test/fuzz -B $(FUZZ_BUILD_DIR) -DCMAKE_C_COMPILER=clang >/dev/null
	cmake --build $(FUZZ_BUILD_DIR) -j2

fuzz: fuzz-build
	FUZZ_BUILD_DIR=$(FUZZ_BUILD_DIR) test/fuzz/run.sh --seconds $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	FUZZ_BUILD_DIR=$(FUZZ_BUILD_DIR) test/fuzz/run.sh --smoke

check: fuzz-build

clean: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD_DIR)
