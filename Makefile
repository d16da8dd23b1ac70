# kube-policy-extender: build, test and run.
#
#   make            build bin/kube-policy-extender
#   make run        build and serve the bundled policy and demo cluster
#   make test       build and run every test suite, plain and under
#                   AddressSanitizer + UndefinedBehaviorSanitizer
#   make deps       install missing Debian packages (every target needs it)
#   make format / format-check / clean

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

PKGS     := libevent libevent_pthreads libevent_openssl libcjson inih \
            libcurl yaml-0.1 openssl
TEST_PKGS := cmocka

CC       ?= cc
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
# Recursive (=) so pkg-config runs after `deps` has installed the packages.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -lm -ldl
BASE_CFLAGS = -std=c11 -D_GNU_SOURCE -I. -g $(WARN) -MMD -MP -ffp-contract=off \
              -DKPE_VERSION='"$(VERSION)"' -DKPE_GIT_REV='"$(GIT_REV)"'
OPT      := -O2
SAN      := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
TSAN     := -O1 -fsanitize=thread -fno-omit-frame-pointer

# Sources are found at any depth under the source folders, so the build
# is the same before and after scripts/relayout.py (issue 16); objects
# mirror them under build/<flavour>/. The binary's main() is the one
# main.c under server/.
SRC_DIRS  := kube framework predicates priorities policy engine whatif server
ALL_SRCS  := $(sort $(shell find $(SRC_DIRS) -name '*.c' 2>/dev/null))
MAIN_SRC  := $(filter %/main.c,$(filter server/%,$(ALL_SRCS)))
ifneq ($(words $(MAIN_SRC)),1)
$(error want exactly one server/**/main.c, found "$(MAIN_SRC)")
endif
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(ALL_SRCS))
TEST_SRCS := $(sort $(wildcard tests/test_*.c))
SUPPORT_SRCS := $(sort $(wildcard tests/support/*.c))
TEST_NAMES := $(patsubst tests/%.c,%,$(TEST_SRCS))

BIN := bin/kube-policy-extender

# Two flavours of every object: build/opt (the shipped binary, plain tests)
# and build/san (sanitized tests).
OPT_OBJS  := $(patsubst %.c,build/opt/%.o,$(LIB_SRCS))
SAN_OBJS  := $(patsubst %.c,build/san/%.o,$(LIB_SRCS))
OPT_SUP   := $(patsubst %.c,build/opt/%.o,$(SUPPORT_SRCS))
SAN_SUP   := $(patsubst %.c,build/san/%.o,$(SUPPORT_SRCS))
OPT_TESTS := $(patsubst %,build/opt/tests/%,$(TEST_NAMES))
SAN_TESTS := $(patsubst %,build/san/tests/%,$(TEST_NAMES))
# The threaded parts (the HTTP server and what runs under it; the cache,
# informers, API client, scheduler and leader election) also run under
# ThreadSanitizer.
TSAN_OBJS  := $(patsubst %.c,build/tsan/%.o,$(LIB_SRCS))
TSAN_SUP   := $(patsubst %.c,build/tsan/%.o,$(SUPPORT_SRCS))
TSAN_NAMES := $(filter test_server_% test_cache test_client test_informer \
                       test_scheduler test_leader,$(TEST_NAMES))
TSAN_TESTS := $(patsubst %,build/tsan/tests/%,$(TSAN_NAMES))

.PHONY: all deps man run test test-opt test-san layers bench e2e e2e-semantics bench-e2e format format-check clean

all: $(BIN)

deps:
	@sh scripts/deps.sh

# V=1 shows the full commands.
Q := $(if $(V),,@)

build/opt/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(BASE_CFLAGS) $(OPT) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

build/san/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC-SAN  $<")
	$(Q)$(CC) $(BASE_CFLAGS) $(SAN) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

build/tsan/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC-TSAN $<")
	$(Q)$(CC) $(BASE_CFLAGS) $(TSAN) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

build/tsan/libkpe.a: $(TSAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

build/tsan/tests/%: build/tsan/tests/%.o $(TSAN_SUP) build/tsan/libkpe.a
	@$(if $(V),,echo "  LD-TSAN $@")
	$(Q)$(CC) $(TSAN) -o $@ $< $(TSAN_SUP) $(call WHOLE,build/tsan/libkpe.a) \
	    $(PKG_LIBS) $(shell pkg-config --libs $(TEST_PKGS))

build/opt/libkpe.a: $(OPT_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

build/san/libkpe.a: $(SAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The whole library goes into every binary: registries refer to predicate
# and priority implementations weakly, so nothing may be dropped silently.
WHOLE = -Wl,--whole-archive $(1) -Wl,--no-whole-archive

$(BIN): $(patsubst %.c,build/opt/%.o,$(MAIN_SRC)) build/opt/libkpe.a
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(OPT) -o $@ $< $(call WHOLE,build/opt/libkpe.a) $(PKG_LIBS) $(LDFLAGS)

build/opt/tests/%: build/opt/tests/%.o $(OPT_SUP) build/opt/libkpe.a
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(OPT) -o $@ $< $(OPT_SUP) $(call WHOLE,build/opt/libkpe.a) \
	    $(PKG_LIBS) $(shell pkg-config --libs $(TEST_PKGS))

build/san/tests/%: build/san/tests/%.o $(SAN_SUP) build/san/libkpe.a
	@$(if $(V),,echo "  LD-SAN  $@")
	$(Q)$(CC) $(SAN) -o $@ $< $(SAN_SUP) $(call WHOLE,build/san/libkpe.a) \
	    $(PKG_LIBS) $(shell pkg-config --libs $(TEST_PKGS))

run: $(BIN)
	$(BIN) serve --listen 127.0.0.1:8888 \
	    --policy deploy/demo/policy.json --cluster deploy/demo/cluster.json

# One run, one closing "N passed, M failed" line over both flavours.
test: $(OPT_TESTS) $(SAN_TESTS) $(TSAN_TESTS) $(BIN) format-check layers
	@KPE_BIN=$(BIN) sh tests/run.sh $(OPT_TESTS) $(SAN_TESTS) $(TSAN_TESTS)

# Every #include points down the layer table in tests/check_layers.py
# (docs/ARCHITECTURE.md); skipped until the folders of issue 16 exist.
layers:
	@python3 tests/check_layers.py

test-opt: $(OPT_TESTS) $(BIN)
	@KPE_BIN=$(BIN) sh tests/run.sh $(OPT_TESTS)

test-san: $(SAN_TESTS) $(BIN)
	@KPE_BIN=$(BIN) sh tests/run.sh $(SAN_TESTS)

# The e2e suites against a real control plane: etcd and kube-apiserver
# v1.20.2 and kube-scheduler v1.20.2, built once from Debian's source
# package into a cache outside the clone (tests/e2e/k8s-build.sh; about 5
# minutes on 2 cores the first time). E2E_SUITES picks suites or scenarios
# (suite_extender:burst_policy_file,...).
E2E_SUITES ?=
e2e: $(BIN)
	@bin=$$(tests/e2e/k8s-build.sh) && \
	    KPE_BIN=$(BIN) python3 tests/e2e/run.py "$$bin/bin" $(E2E_SUITES)

# Issue 25's differential test against kube-scheduler v1.20.2 alone (it is
# part of `make e2e` too; seeded random clusters: KPE_E2E_SEED replays one,
# KPE_E2E_CASES sets the cases per Policy).
e2e-semantics: $(BIN)
	@bin=$$(tests/e2e/k8s-build.sh) && \
	    KPE_BIN=$(BIN) python3 tests/e2e/run.py "$$bin/bin" suite_semantics

# kube-scheduler's own benchmark workloads on the real control plane, five
# rows from the API server's ceiling to the split shape, and the memory of
# serve and schedule at 5,000 nodes and 150,000 pods (tests/e2e/bench.py;
# docs/performance.md). Subsets: BENCH_SIZES, BENCH_WORKLOADS, BENCH_ROWS,
# BENCH_ROUNDS, BENCH_POD_SCALE, BENCH_MEMORY=0.
bench-e2e: $(BIN) build/bench/apiload
	@bin=$$(tests/e2e/k8s-build.sh) && \
	    KPE_BIN=$(BIN) APILOAD=build/bench/apiload python3 tests/e2e/bench.py "$$bin/bin"

# The bench's API client (Go standard library only; nothing is downloaded).
build/bench/apiload: bench/apiload.go
	@mkdir -p $(@D)
	GOFLAGS= GOPROXY=off GO111MODULE=off go build -o $@ bench/apiload.go

# Benchmarks are never part of `make test` (see bench/run.sh); the
# speed targets of explain, simulate and diff follow (bench/whatif.sh).
bench: $(BIN)
	bash bench/run.sh
	bash bench/whatif.sh

.PHONY: bench-whatif
bench-whatif: $(BIN)
	bash bench/whatif.sh

# Issue 24's live list against the real kube-apiserver v1.20.2 (what
# bench-whatif measures against the API-server double): LIVE_NODES nodes
# with 30 pods each, loaded through the API (minutes), then explain
# --kubeconfig against kubectl (bench/live_list_real.py).
LIVE_NODES ?= 5000
SHARED ?= ../shared/bench
.PHONY: bench-live-real
bench-live-real: $(BIN)
	@bin=$$(tests/e2e/k8s-build.sh) && d=bench/payloads/n$(LIVE_NODES) && \
	    { [ -f $$d/cluster.json ] || python3 $(SHARED)/gen_payload.py \
	        --nodes $(LIVE_NODES) --pods-per-node 30 --seed 1 --out $$d >/dev/null; } && \
	    KPE_BIN=$(BIN) python3 bench/live_list_real.py "$$bin/bin" $$d/cluster.json

FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null)

format:
	clang-format -i $(FORMAT_SRCS)

format-check: | deps
	@clang-format --dry-run --Werror $(FORMAT_SRCS) && \
	    echo "format-check: $(words $(FORMAT_SRCS)) files clang-formatted"

clean:
	rm -rf build bin

.SECONDARY:
-include $(shell find build -name '*.d' 2>/dev/null)

# Micro-benchmark: json_arena_parse against cJSON on one body (median of 9).
#   make bench-json BENCH_JSON=/tmp/payloads/n1000/filter-full.json
BENCH_JSON ?= /tmp/payloads/n1000/filter-full.json

build/opt/bench/json_bench: build/opt/bench/json_bench.o build/opt/libkpe.a
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

.PHONY: bench-json
bench-json: build/opt/bench/json_bench
	@for m in copy situ cjson; do \
	    build/opt/bench/json_bench $(BENCH_JSON) 9 $$m || exit 1; \
	done

# Memory of the live cache holding a large cluster, fed through the
# event-apply path (see bench/cache_mem.c). Generate the input with
#   python3 /work/shared/bench/gen_payload.py --nodes 5000 \
#       --pods-per-node 30 --seed 1 --out /tmp/p5000
#   make bench-cache BENCH_CLUSTER=/tmp/p5000/cluster.json [BENCH_PASSES=2]
BENCH_CLUSTER ?= /tmp/p5000/cluster.json
BENCH_PASSES ?= 1

build/opt/bench/cache_mem: build/opt/bench/cache_mem.o build/opt/libkpe.a
	$(CC) $(OPT) -o $@ $^ $(PKG_LIBS)

# The per-node cost of a plugin predicate against the built-in
# (bench/plugin_cost.c; bench/plugin_bench.sh runs it).
build/opt/bench/plugin_cost: build/opt/bench/plugin_cost.o build/opt/libkpe.a
	$(CC) $(OPT) -o $@ $< $(call WHOLE,build/opt/libkpe.a) $(PKG_LIBS)

.PHONY: bench-cache
bench-cache: build/opt/bench/cache_mem
	build/opt/bench/cache_mem $(BENCH_CLUSTER) $(BENCH_PASSES)

# Install. `make install` puts the binary in $(DESTDIR)$(PREFIX)/bin (and
# links it as kubectl-policy there: `kubectl policy explain|simulate|diff`), the
# plugin ABI header in $(DESTDIR)$(PREFIX)/include/kube-policy-extender/ and the
# default policy (policy.json, the full Policy; extender-policy.json, what
# `serve` answers in the split shape), an example config.ini and the
# systemd unit (paths rewritten to PREFIX) in
# $(DESTDIR)$(PREFIX)/share/kube-policy-extender/; the container image is
# built from exactly this tree. `make install-systemd` also installs the
# unit into $(SYSTEMDDIR) and, when they do not exist yet,
# $(SYSCONFDIR)/kube-policy-extender/config.ini, policy.json and
# extender-policy.json, which the unit reads (never overwritten: they are
# the administrator's).
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
SHAREDIR    = $(PREFIX)/share/kube-policy-extender
INSTALL    ?= install
# The repository's files name /usr/local and /etc; point them at the
# chosen directories.
FIX_PATHS = sed -e 's|/usr/local/|$(PREFIX)/|g' \
                -e 's|/etc/kube-policy-extender/|$(SYSCONFDIR)/kube-policy-extender/|g'

.PHONY: install install-systemd uninstall

# The plugin ABI header, which loadable plugins build against
# (cc -shared -fPIC -I$(PREFIX)/include ...).
PLUGIN_H := include/kube-policy-extender/plugin.h

# kube-policy-extender(1), rendered from the option tables.
MAN := build/kube-policy-extender.1

$(MAN): $(BIN)
	@mkdir -p $(dir $@)
	$(Q)$(BIN) --help-man >$@.tmp && mv $@.tmp $@

man: $(MAN)

install: $(BIN) $(MAN)
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHAREDIR) \
	    $(DESTDIR)$(PREFIX)/include/kube-policy-extender \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	$(INSTALL) -m 0644 $(MAN) \
	    $(DESTDIR)$(PREFIX)/share/man/man1/kube-policy-extender.1
	$(INSTALL) -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kube-policy-extender
	ln -sf kube-policy-extender $(DESTDIR)$(PREFIX)/bin/kubectl-policy
	$(INSTALL) -m 0644 $(PLUGIN_H) $(DESTDIR)$(PREFIX)/$(PLUGIN_H)
	$(INSTALL) -m 0644 deploy/policy/policy.json $(DESTDIR)$(SHAREDIR)/policy.json
	$(INSTALL) -m 0644 deploy/policy/extender-policy.json \
	    $(DESTDIR)$(SHAREDIR)/extender-policy.json
	$(FIX_PATHS) deploy/systemd/config.ini >$(DESTDIR)$(SHAREDIR)/config.ini
	$(FIX_PATHS) deploy/systemd/kube-policy-extender.service \
	    >$(DESTDIR)$(SHAREDIR)/kube-policy-extender.service
	chmod 0644 $(DESTDIR)$(SHAREDIR)/config.ini \
	    $(DESTDIR)$(SHAREDIR)/kube-policy-extender.service

install-systemd: install
	$(INSTALL) -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(SYSCONFDIR)/kube-policy-extender
	$(INSTALL) -m 0644 $(DESTDIR)$(SHAREDIR)/kube-policy-extender.service \
	    $(DESTDIR)$(SYSTEMDDIR)/kube-policy-extender.service
	@for f in config.ini policy.json extender-policy.json; do \
	    t=$(DESTDIR)$(SYSCONFDIR)/kube-policy-extender/$$f; \
	    if [ -e "$$t" ]; then echo "  keep    $$t"; \
	    else $(INSTALL) -m 0644 $(DESTDIR)$(SHAREDIR)/$$f "$$t" && \
	         echo "  install $$t"; fi; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kube-policy-extender \
	    $(DESTDIR)$(PREFIX)/bin/kubectl-policy \
	    $(DESTDIR)$(PREFIX)/share/man/man1/kube-policy-extender.1 \
	    $(DESTDIR)$(SYSTEMDDIR)/kube-policy-extender.service
	rm -rf $(DESTDIR)$(SHAREDIR)
	rm -f $(DESTDIR)$(PREFIX)/$(PLUGIN_H)
	-rmdir $(DESTDIR)$(PREFIX)/include/kube-policy-extender 2>/dev/null

# ---- libFuzzer targets (tests/fuzz/README.md) ----
# The library is rebuilt with clang into build/fuzz/obj (never the gcc
# objects): sanitizer coverage (fuzzer-no-link), ASan and UBSan. Each
# tests/fuzz/fuzz_<area>.c becomes build/fuzz/fuzz_<area>.
#   make fuzz                 every target for FUZZ_SECONDS (default 60)
#   make fuzz-smoke           every target for FUZZ_SMOKE_SECONDS (default 5)
#   make fuzz FUZZ_TARGETS=fuzz_quantity   one target
# New inputs go to build/fuzz/corpus/<target>; the seeds in
# tests/fuzz/corpus/<target> are only read. Crashes land in
# build/fuzz/artifacts/.
FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_SAN   := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_ALL   := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRCS))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS  := $(patsubst %,build/fuzz/%,$(FUZZ_ALL))
FUZZ_OBJS  := $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRCS))

.PHONY: fuzz fuzz-build fuzz-smoke

build/fuzz/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC-FUZZ $<")
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    $(PKG_CFLAGS) -c $< -o $@

build/fuzz/libkpe.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_BINS): build/fuzz/%: build/fuzz/obj/tests/fuzz/%.o build/fuzz/libkpe.a
	@$(if $(V),,echo "  LD-FUZZ $@")
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< \
	    $(call WHOLE,build/fuzz/libkpe.a) $(PKG_LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

# Every target that runs tests/cli/*.sh needs the fuzz binaries for
# tests/cli/test_fuzz_smoke.sh.
test test-opt test-san: fuzz-build

# Throughput of `schedule` against the API-server double: 5,000 nodes,
# 10,000 pending pods, the API rate limit lifted (not part of `make test`).
.PHONY: bench-sched
bench-sched: $(BIN)
	bash bench/sched_throughput.sh

# Hardening (issue 10). `make valgrind`: the shipped binary under valgrind
# memcheck (explain, check, convert, and serve on the demo cluster and on
# the API-server double through every verb, reloads and shutdown); a
# reduced run of the same script is part of `make test`. `make soak`:
# tests/soak/soak.py for SOAK_SECONDS against the API-server double
# (200 nodes, 2,000 pods; load, churn, faults, policy rewrites), printing
# the figures; a 25 s run is part of `make test`.
SOAK_SECONDS ?= 180
SOAK_ARGS ?=

# Hostile clients (issue 19): tests/hostile/hostile.py at full size, on
# 127.0.0.1 only, each attack bounded in time and connections; prints the
# figures (open files, memory per body, pipelining, big bodies against
# small requests). The quick version is part of `make test`
# (tests/cli/test_hostile.sh). Then `serve` and `schedule` against a
# hostile API server (issue 29, tests/hostile/hostile_api.py: oversized
# and gzip-bomb lists, a 100 MB event, unreadable events, slow answers,
# 429/500 floods, redirects, secrets in the kubeconfig; peak RSS, requests
# per 10 s, log lines with a secret); quick: tests/cli/test_hostile_api.sh.
.PHONY: hostile
hostile: $(BIN)
	python3 tests/hostile/hostile.py --bin $(BIN)
	python3 tests/hostile/hostile_api.py --bin $(BIN)

.PHONY: valgrind soak
valgrind: $(BIN)
	@KPE_BIN=$(BIN) KPE_VALGRIND_FULL=1 sh tests/cli/test_valgrind.sh

soak: $(BIN)
	python3 tests/soak/soak.py --bin $(BIN) --duration $(SOAK_SECONDS) $(SOAK_ARGS)
