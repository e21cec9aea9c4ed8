# SPDX-License-Identifier: Apache-2.0
# vigil: hardware telemetry recorder.
#
#   make            build build/vigil (and the simulated NVML library)
#   make run        install missing build packages, build, run vigil here with /metrics on loopback
#   make test       install missing packages, build, run every unit and integration test once,
#                   the unit tests again under ASan+UBSan, check format (what CI runs)
#   make check      make test's packages plus the cross and packaging ones, then everything:
#                   the clang build, the integration tests under ASan+UBSan too, cross, deb
#   make install    install binary, unit, rules and man page (honours DESTDIR and PREFIX)
#   make bench      run the benchmarks in bench/ and print their ratios
#   make fuzz       run each libFuzzer harness for FUZZ_SECONDS (default 60)
#   make soak       long run under load (SOAK_SECONDS, default 600), then under valgrind
#   make cross      the whole daemon and every unit test for aarch64 and armhf, run under qemu-user
#   make deb        Debian packages for amd64 (native), arm64 and armhf in build/deb/ (DEB_ARCHS)

PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
CC       ?= cc
# A cross build names its own (aarch64-linux-gnu-pkg-config); debhelper passes it.
PKG_CONFIG ?= pkg-config
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# Headers of every package; linked at start only what every run needs. libmicrohttpd
# (and the GnuTLS stack behind it), zlib and libcrypt are opened with dlopen by the
# HTTP server when --listen asks for it (src/util/dynlib.h): a run without it maps none.
# Likewise libcurl and snappy, only with --remote-write (headers only at build time).
PKGS     := libmicrohttpd inih zlib
LINK_PKGS := inih

# Large-file interfaces on 32-bit ARM too (a no-op on 64-bit): with a 32-bit off_t,
# readdir and stat fail with EOVERFLOW on a file system that hands out 64-bit directory
# offsets or inode numbers (armhf vigil on a 64-bit kernel's ext4 under qemu-user).
LFS      := -D_FILE_OFFSET_BITS=64
WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Werror
OPT      ?= -O2 -g
CFLAGS_ALL := -std=gnu17 $(OPT) $(WARN) -D_GNU_SOURCE $(LFS) -DVIGIL_VERSION=\"$(VERSION)\" \
	-Isrc $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(EXTRA_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# --as-needed: libm is mapped (about 0.5 MB resident) only if some code calls into it.
LIBS     := -Wl,--as-needed $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null) -ldl -lpthread -lm
# The unit tests also inflate what the server gzipped.
TEST_LIBS := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
# Every symbol bound at load (-z now) and the relocated tables read-only after (relro), as
# Debian's hardening=+all builds the package (debian/rules): besides the hardening, a lazy
# binding made at the first call of a function (minutes after start for what runs once a
# minute) ran the loader's code and read the libraries' symbol tables, whose pages then
# stayed in the daemon's resident set (bench/RESULTS.md section 41).
BIND_LD  := -Wl,-z,relro,-z,now
LDFLAGS_ALL := $(BIND_LD) $(EXTRA_LDFLAGS) $(LDFLAGS)

SRC      := $(shell find src -name '*.c' ! -name main.c | sort)
OBJ      := $(SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
SIM_SRC  := $(sort $(wildcard tests/nvml-sim/*.c))
SIM_LIB  := $(if $(SIM_SRC),$(BUILD)/nvml-sim/libnvidia-ml.so.1 $(BUILD)/nvml-sim/old/libnvidia-ml.so.1)

.PHONY: all run demo test check unit bench-bin install deps deps-test deps-check deps-bench deps-fuzz deps-soak deps-deb bench fuzz soak clean format format-check cross deb
all: $(BUILD)/vigil $(SIM_LIB)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/libvigil.a: $(OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/vigil: $(BUILD)/src/main.o $(BUILD)/libvigil.a
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libvigil.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libvigil.a $(LIBS) \
		$(TEST_LIBS) $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# The simulated NVML: a shared library with the real soname, built from the tests
# (tests/nvml-sim/README.md). It exports only NVML's names. The old/ variant models an
# older driver that lacks the newer names, for clients' fallbacks.
SIM_DEPS := $(SIM_SRC) $(wildcard tests/nvml-sim/*.h) src/collect/nvml_api.h src/util/parse.c \
	src/util/parse.h src/collect/nvml_procs.h
SIM_CC    = $(CC) -std=gnu17 $(OPT) $(WARN) -D_GNU_SOURCE -Isrc -fPIC -shared -fvisibility=hidden \
	-Wl,-soname,libnvidia-ml.so.1 $(BIND_LD) $(EXTRA_LDFLAGS)
$(BUILD)/nvml-sim/libnvidia-ml.so.1: $(SIM_DEPS)
	@mkdir -p $(dir $@)
	$(SIM_CC) -o $@ $(SIM_SRC) src/util/parse.c -lpthread -lm
	ln -sf libnvidia-ml.so.1 $(BUILD)/nvml-sim/libnvidia-ml.so

$(BUILD)/nvml-sim/old/libnvidia-ml.so.1: $(SIM_DEPS)
	@mkdir -p $(dir $@)
	$(SIM_CC) -DSIM_OLD_DRIVER -o $@ $(SIM_SRC) src/util/parse.c -lpthread -lm

# The simulator's own test loads both libraries.
$(BUILD)/tests/test_nvml_sim: $(SIM_LIB)

# Benchmarks: bench/*.c linked against the library (run by bench/run.sh).
BENCH_SRC := $(sort $(wildcard bench/*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
$(BUILD)/bench/%: bench/%.c $(BUILD)/libvigil.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libvigil.a $(LIBS)

# The power-cut test's FUSE file system (tests/powercut/lazyfs.c), built for the tests only,
# and only where the target has libfuse3 (not in the cross builds: the test runs natively).
LAZYFS := $(if $(shell $(PKG_CONFIG) --exists fuse3 2>/dev/null && echo y),$(BUILD)/tests/lazyfs)
$(BUILD)/tests/lazyfs: tests/powercut/lazyfs.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(OPT) $(WARN) -D_GNU_SOURCE $(shell $(PKG_CONFIG) --cflags fuse3) \
		$(EXTRA_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $< $(shell $(PKG_CONFIG) --libs fuse3)

unit: $(UNIT_BIN) $(LAZYFS)

# The benchmark programs, built by every `make test` so none stops compiling unnoticed.
bench-bin: $(BENCH_BIN)

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

deps-check:
	@scripts/deps.sh check

deps-bench:
	@scripts/deps.sh bench

deps-fuzz:
	@scripts/deps.sh fuzz

deps-soak:
	@scripts/deps.sh soak

JOBS     := $(shell nproc 2>/dev/null || echo 2)

run: deps
	$(MAKE) -j$(JOBS) all
	@scripts/run-here.sh $(BUILD)/vigil

# A scripted emergency without hardware: DEMO=gpu (the NVML simulator, default) or pi.
DEMO ?= gpu
demo: deps
	$(MAKE) -j$(JOBS) all
	@scripts/demo.sh $(DEMO) $(BUILD) $(ARGS)

test: deps-test
	$(MAKE) -j$(JOBS) all unit bench-bin
	@scripts/test.sh

check: deps-check
	$(MAKE) -j$(JOBS) all unit
	@scripts/test.sh --full

format:
	clang-format -i $$(find src tests fuzz bench -name '*.[ch]')

format-check:
	@scripts/format-check.sh

install: all
	install -D -m 0755 $(BUILD)/vigil $(DESTDIR)$(PREFIX)/bin/vigil
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's#/usr/local/bin/vigil#$(PREFIX)/bin/vigil#' dist/systemd/vigil.service \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/vigil.service
	install -D -m 0644 dist/prometheus/vigil-rules.yml $(DESTDIR)$(PREFIX)/share/vigil/vigil-rules.yml
	install -D -m 0644 dist/prometheus/vigil-scrape-rules.yml $(DESTDIR)$(PREFIX)/share/vigil/vigil-scrape-rules.yml
	install -D -m 0644 dist/prometheus/vigil-push-rules.yml $(DESTDIR)$(PREFIX)/share/vigil/vigil-push-rules.yml
	install -D -m 0644 dist/grafana/vigil.json $(DESTDIR)$(PREFIX)/share/vigil/grafana-vigil.json
	install -D -m 0644 dist/vigil.8 $(DESTDIR)$(PREFIX)/share/man/man8/vigil.8
	install -D -m 0644 dist/vigil.conf $(DESTDIR)$(PREFIX)/share/vigil/vigil.conf.example

bench: deps-bench
	$(MAKE) all $(BENCH_BIN)
	@BUILD=$(BUILD) bench/run.sh

fuzz: deps-fuzz
	@fuzz/run.sh $(FUZZ_SECONDS)

soak: deps-soak
	$(MAKE) all
	@scripts/soak.sh $(SOAK_SECONDS)

cross:
	@scripts/cross-test.sh

deb: deps-deb
	@scripts/deb.sh $(DEB_ARCHS)

deps-deb:
	@scripts/deps.sh deb

clean:
	rm -rf $(BUILD) build-asan build-clang build-fuzz

-include $(OBJ:.o=.d) $(BUILD)/src/main.d
