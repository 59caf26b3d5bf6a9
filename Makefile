# bpfprof: an eBPF sampling profiler.
#   make deps    install the Debian packages the build and the tests use
#   make         build ./bpfprof (BPF objects, skeletons, the binary)
#   make test    build everything and run every test (unit under ASan/UBSan, end to end)
#   make layers  the rooms of user/ include only rooms below them (tools/check_layers.sh),
#                stderr only through base/errors.c (tools/check_printer.sh)
#   make profile set up, build and profile the whole system for 10 s into profile.folded
#   make bench   cost and fidelity against perf, measured side by side (tools/bench/)
#   make soak    an hour of fleet mode under mixed churn (RSS held flat)
#   make fuzz    each parser's libFuzzer target for FUZZ_RUNS executions (tests/fuzz/)
#   make install  PREFIX (/usr/local), DESTDIR; make deb: a Debian package of it (build/deb/)

VERSION    := 0.1.0
CC         ?= cc
CLANG      ?= clang
BPFTOOL    ?= bpftool
ARCH       := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

BUILD      := build
WARNINGS   := -Wall -Wextra -Werror
# Includes name their folder: "elf/elf_syms.h" (a room of user/), "bpf/profile.h"
# (the layouts shared with the BPF side); build/'s generated headers go by name.
USER_INCS  := -I$(BUILD) -iquote . -Iuser
CPPFLAGS   := -D_GNU_SOURCE -DBPFPROF_VERSION='"$(VERSION)"' $(USER_INCS)
CFLAGS     ?= -O2 -g
CFLAGS     += -std=c17 $(WARNINGS)
LDLIBS     := -lbpf -ldw -lelf -lz -lprotobuf-c -liberty -lm
# libdebuginfod (loaded by libdw) binds to bpfprof's curl_easy_setopt, which
# bounds its redirects (user/elf/debuginfod_curl.h)
LDLIBS     += -Wl,--export-dynamic-symbol=curl_easy_setopt
SANITIZE   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
# the upstream .proto files (user/output/proto/UPSTREAM), by their path there
PROTOS     := $(patsubst user/output/proto/%.proto,%,$(shell find user/output/proto -name '*.proto' | sort))
# OTLP/HTTP's error body, google.rpc.Status (found above, under google/rpc/),
# and the Any it holds: protoc's own any.proto (user/output/proto/google/rpc/UPSTREAM)
PROTO_INC  := /usr/include
PROTOS     += google/protobuf/any
PROTO_C    := $(patsubst %,$(BUILD)/%.pb-c.c,$(PROTOS))
PROTO_H    := $(PROTO_C:.c=.h)
USER_SRCS  := $(wildcard user/*.c user/*/*.c)
USER_HDRS  := $(wildcard user/*.h user/*/*.h) $(wildcard bpf/*.h) $(PROTO_H) \
              $(BUILD)/flamegraph_page.h
LIB_SRCS   := $(filter-out user/main.c,$(USER_SRCS))
OBJS       := $(patsubst user/%.c,$(BUILD)/obj/%.o,$(USER_SRCS)) $(patsubst %,$(BUILD)/obj/%.pb-c.o,$(PROTOS))
ASAN_OBJS  := $(patsubst user/%.c,$(BUILD)/asan/%.o,$(USER_SRCS)) $(patsubst %,$(BUILD)/asan/%.pb-c.o,$(PROTOS))
ASAN_LIB   := $(BUILD)/asan/libbpfprof.a
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
EXAMPLES   := $(patsubst examples/%.c,$(BUILD)/examples/%,$(filter-out examples/libhot.c,$(wildcard examples/*.c))) \
              $(patsubst examples/%.cpp,$(BUILD)/examples/%,$(wildcard examples/*.cpp))

DEB_PKGS   := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcriterion-dev \
              pkg-config linux-perf elfutils libdw-dev make gcc binutils util-linux procps \
              libc6-dbg protobuf-c-compiler libprotobuf-c-dev libprotobuf-dev python3-protobuf python3-yaml protobuf-compiler \
              libcurl4-openssl-dev \
              golang-go python3 valgrind time jq libiberty-dev libdebuginfod-dev g++ debuginfod curl man-db bash-completion chromium tmux \
              dpkg-dev lintian strace libxml2-utils lld nodejs dwz \
              openjdk-17-jdk-headless

.PHONY: install uninstall deb all deps test layers script-tests unit e2e valgrind soak soak-smoke examples profile vmlinux clean
.DELETE_ON_ERROR:

all: bpfprof

deps:
	@if dpkg-query -W -f='$${Status}\n' $(DEB_PKGS) 2>/dev/null | grep -vq 'install ok installed' \
	    || [ $$(dpkg-query -W -f='$${Status}\n' $(DEB_PKGS) 2>/dev/null | wc -l) -ne $(words $(DEB_PKGS)) ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS); \
	else echo "deps: all Debian packages present"; fi
	@$(MAKE) --no-print-directory $(NPM_PPROF)

# The JS pprof decoder the e2e reads bpfprof's pprof with besides go tool
# pprof (no Debian package has one): npm's pprof-format, pinned, kept in
# build/ (make clean removes it; make deps fetches it again).
NPM_PPROF := $(BUILD)/node/node_modules/pprof-format/package.json
$(NPM_PPROF):
	npm install --silent --no-audit --no-fund --prefix $(BUILD)/node pprof-format@2.3.2

# vmlinux.h is generated once from the running kernel's BTF and committed:
# CO-RE relocations make the objects run on other kernels, so building needs no BTF.
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# pprof's profile.proto and OTLP's profiles -> C with protobuf-c, at build time
# (kept: make would delete a pattern rule's headers as intermediates)
.SECONDARY: $(PROTO_C) $(PROTO_H)
$(BUILD)/%.pb-c.c $(BUILD)/%.pb-c.h: user/output/proto/%.proto | $(BUILD)
	protoc-c --c_out=$(BUILD) --proto_path=user/output/proto --proto_path=$(PROTO_INC) $<
$(BUILD)/google/protobuf/any.pb-c.c $(BUILD)/google/protobuf/any.pb-c.h: \
		$(PROTO_INC)/google/protobuf/any.proto | $(BUILD)
	protoc-c --c_out=$(BUILD) --proto_path=$(PROTO_INC) $<

# The flame graph page, a C array: the binary writes it with no file beside it
$(BUILD)/flamegraph_page.h: user/render/flamegraph_page.html | $(BUILD)
	{ echo '/* generated from $< */'; echo 'static const char flamegraph_page[] = {'; \
	  od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '0x00 };'; } > $@

$(BUILD)/obj/%.pb-c.o: $(BUILD)/%.pb-c.c $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/asan/%.pb-c.o: $(BUILD)/%.pb-c.c $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -c $< -o $@

$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) $(SKELS) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/asan/%.o: user/%.c $(USER_HDRS) $(SKELS) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -c $< -o $@

bpfprof: $(OBJS)
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/asan/bpfprof: $(ASAN_OBJS)
	$(CC) $(CFLAGS) $(SANITIZE) $^ $(LDLIBS) -o $@

$(ASAN_LIB): $(filter-out $(BUILD)/asan/main.o,$(ASAN_OBJS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c $(ASAN_LIB) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) $< $(ASAN_LIB) -lcriterion $(LDLIBS) -o $@

# Example workloads: known hot functions, frame pointers kept.
EXAMPLE_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror
$(BUILD)/examples/libhot.so: examples/libhot.c
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) -fPIC -shared $< -o $@
# An -O2 workload whose hot function is inlined (frame pointers kept)
$(BUILD)/examples/inline_%: examples/inline_%.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror $< -o $@
# The same not position-independent: go 1.19's pprof -disasm takes a
# Location's address as the ELF's own, it does not rebase a PIE's mapping
$(BUILD)/examples/inline_hot_nopie: examples/inline_hot.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -no-pie -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror $< -o $@
# nofp_chain stripped of every symbol: its code is named only by its CFI
$(BUILD)/examples/nofp_chain_stripped: $(BUILD)/examples/nofp_chain
	strip -s -o $@ $<
# The soak's fleet member and its library, from one file (the soak copies
# both 200 times): no frame pointers, each sample needs both their tables
$(BUILD)/examples/libnofp_fleet.so: examples/nofp_fleet.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer -fPIC -shared -DFLEET_LIB -Wall -Wextra -Werror $< -o $@
$(BUILD)/examples/nofp_fleet: examples/nofp_fleet.c examples/workload.h $(BUILD)/examples/libnofp_fleet.so
	$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror $< -o $@ -L$(BUILD)/examples \
		-Wl,-rpath,'$$ORIGIN' -lnofp_fleet
# Workloads without frame pointers, as most code is built (--call-graph dwarf)
$(BUILD)/examples/nofp_%: examples/nofp_%.c examples/workload.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror $< -o $@ -lpthread
$(BUILD)/examples/%: examples/%.c examples/workload.h $(BUILD)/examples/libhot.so
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) $< -o $@ -L$(BUILD)/examples -Wl,-rpath,'$$ORIGIN' -lhot -lpthread

# C++ workloads (names to demangle); cxx_sort -O2, as C++ is built: std::sort
# inlined into itself and into its callers, clones (.isra), calls via the PLT
$(BUILD)/examples/cxx_sort: examples/cxx_sort.cpp examples/workload.h
	@mkdir -p $(@D)
	$(CXX) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror $< -o $@
$(BUILD)/examples/%: examples/%.cpp examples/workload.h
	@mkdir -p $(@D)
	$(CXX) $(EXAMPLE_CFLAGS) $< -o $@ -lpthread

# The faked V8 metadata without its lie (test_v8_find)
$(BUILD)/examples/v8dbg_fake_ok: examples/v8dbg_fake.c
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) -DFP_FUNCTION=-16 $< -o $@

# A process that fakes HotSpot's vmStructs, under libjvm's name, and
# JavaChain's class: test_hs_find reads both
$(BUILD)/examples/fakejvm/libjvm.so: examples/hs_fake_jvm.c
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) $< -o $@
$(BUILD)/examples/java/JavaChain.class: examples/JavaChain.java
	@mkdir -p $(@D)
	javac -d $(@D) $<

# nofp_chain by other linkers: lld starts its R E segment mid-page (its
# mapping's bias must come from that segment's headers), gold as GNU ld
$(BUILD)/examples/nofp_chain_lld: examples/nofp_chain.c examples/workload.h
	$(CC) -O2 -g -fomit-frame-pointer -fuse-ld=lld -Wall -Wextra -Werror $< -o $@
$(BUILD)/examples/nofp_chain_lld_nopie: examples/nofp_chain.c examples/workload.h
	$(CC) -O2 -g -fomit-frame-pointer -fuse-ld=lld -no-pie -Wall -Wextra -Werror $< -o $@
$(BUILD)/examples/nofp_chain_gold: examples/nofp_chain.c examples/workload.h
	$(CC) -O2 -g -fomit-frame-pointer -fuse-ld=gold -Wall -Wextra -Werror $< -o $@

examples: $(EXAMPLES) $(BUILD)/examples/inline_hot_nopie $(BUILD)/examples/nofp_chain_stripped \
	$(BUILD)/examples/fakejvm/libjvm.so \
	$(BUILD)/examples/nofp_chain_lld $(BUILD)/examples/nofp_chain_lld_nopie $(BUILD)/examples/nofp_chain_gold

# Helpers of the e2e tests that make hostile surroundings (tests/gen/).
TEST_GEN := $(patsubst tests/gen/%.c,$(BUILD)/tests/gen/%,$(wildcard tests/gen/*.c))
$(BUILD)/tests/gen/%: tests/gen/%.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -Wall -Wextra -Werror $< -o $@ -lpthread

# The rooms of user/ include only the rooms below them: a table in the script
# (doc/architecture.md's is checked against it); only base/errors.c writes to stderr;
# a runtime is named only in its folder, its BPF walker and the seam's rows
layers:
	@bash tools/check_layers.sh
	@bash tools/check_printer.sh
	@bash tools/check_runtimes.sh

# make layers' two scripts fail on each violation planted in a copy of the
# tree; the bash completion offers every command and option of user/'s tables
script-tests: bpfprof
	@bash tests/scripts/test_checks.sh
	@BPFPROF=./bpfprof bash tests/scripts/test_completion.sh

unit: $(UNIT_BINS) $(BUILD)/examples/inline_hot $(BUILD)/examples/cxx_sort \
      $(BUILD)/examples/nofp_fleet $(BUILD)/examples/lib_caller \
      $(BUILD)/examples/nofp_chain $(BUILD)/examples/nofp_chain_lld \
      $(BUILD)/examples/v8dbg_fake $(BUILD)/examples/v8dbg_fake_ok \
      $(BUILD)/examples/fakejvm/libjvm.so $(BUILD)/examples/java/JavaChain.class	# test_dwarf_lines, test_linked, test_cfi_rows, test_v8_find, test_hs_find read them
	@fail=0; for t in $(UNIT_BINS); do echo "== $$t"; s=$$(date +%s); $$t --jobs 2 || fail=1; \
		echo "== $$t: $$(( $$(date +%s) - s )) s"; done; exit $$fail

e2e: bpfprof $(BUILD)/asan/bpfprof examples $(TEST_GEN) $(NPM_PPROF)
	BPFPROF=$(BUILD)/asan/bpfprof BPFPROF_PLAIN=$(abspath bpfprof) EXAMPLES=$(BUILD)/examples GEN=$(BUILD)/tests/gen \
	NODE_PATH=$(abspath $(BUILD)/node/node_modules) bash tests/e2e/run.sh

# The unit tests and the binary's paths that load no BPF, under valgrind
# memcheck (a build without sanitizers). Paths that run BPF cannot: valgrind
# 3.19 does not know what the kernel writes back for BPF_LINK_CREATE and the
# batch map commands, so every drained value looks uninitialised to it.
VG_LIB   := $(BUILD)/vg/libbpfprof.a
VG_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/vg/%,$(UNIT_SRCS))
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
$(VG_LIB): $(filter-out $(BUILD)/obj/main.o,$(OBJS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/vg/%: tests/unit/%.c $(VG_LIB) $(USER_HDRS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(VG_LIB) -lcriterion $(LDLIBS) -o $@
# One target per binary (make -j2 runs two at a time: make test does, beside
# the unit tests and the fuzz smoke); each says its seconds.
# (the slowest under memcheck first: the lazy sweep of test_procs, 4-10x
# any other, so that the others fill the second CPU beside it)
VG_RUNS  := valgrind-test_procs $(filter-out valgrind-test_procs,$(patsubst tests/unit/%.c,valgrind-%,$(UNIT_SRCS)))
.PHONY: $(VG_RUNS) valgrind-cli
valgrind: $(VG_RUNS) valgrind-cli
$(VG_RUNS): valgrind-%: $(BUILD)/vg/% $(BUILD)/examples/inline_hot $(BUILD)/examples/cxx_sort
	@s=$$(date +%s); $(VALGRIND) $< --jobs 1 >$(BUILD)/vg/$*.log 2>&1; rc=$$?; \
	[ $$rc -eq 0 ] || cat $(BUILD)/vg/$*.log; \
	echo "== valgrind $<: exit $$rc, $$(( $$(date +%s) - s )) s; $$(grep -ho 'Tested: .*' $(BUILD)/vg/$*.log)"; \
	exit $$rc
valgrind-cli: bpfprof
	@fail=0; for args in "--bogus" "-F 0" "-p 999999 -d 1" "--btf /nonexistent -d 1" "-o /nonexistent/x -d 1" \
	            "--help"; do \
		$(VALGRIND) ./bpfprof $$args >/dev/null 2>$(BUILD)/vg/err; rc=$$?; \
		if [ $$rc -eq 99 ]; then cat $(BUILD)/vg/err; fail=1; fi; \
		echo "valgrind: bpfprof $$args: exit $$rc, no memcheck error"; done; \
	exit $$fail

# The churn soak: an hour of fleet mode under process, mapping, cgroup and
# JIT-map churn (make soak; RSS every 3 s in $(BUILD)/soak/rss.tsv);
# make test runs a 60-second one.
SOAK_SECONDS ?= 3600
# (the release build: ASan's quarantine would hide the memory figures)
soak: bpfprof examples $(BUILD)/tests/gen/map_churn
	BPFPROF=./bpfprof EXAMPLES=$(BUILD)/examples GEN=$(BUILD)/tests/gen SOAK_OUT=$(BUILD)/soak \
		bash tests/soak/soak.sh $(SOAK_SECONDS)

soak-smoke:
	$(MAKE) soak SOAK_SECONDS=60

# make test: everything built first, two compilers at a time; then what
# loads no BPF program and measures no share, side by side (make -j2 -k:
# the unit tests, valgrind's binaries, the fuzz smoke's targets, each
# CPU-bound, none timed; every one runs, a failure fails at the end); then
# what samples, one at a time: the e2e, the bench and soak smokes check
# shares and rates that a neighbour's CPU on 2 CPUs would move.
TEST_BUILD := bpfprof $(BUILD)/asan/bpfprof examples $(TEST_GEN) $(UNIT_BINS) $(VG_BINS) \
              fuzz-build bench-build
# Each step says its wall seconds ("make test: STEP: N s"); the first to
# fail ends make test, as before.
test_step = @s=$$(date +%s); $(MAKE) $(1); rc=$$?; \
	echo "make test: $(or $(2),$(1)): exit $$rc, $$(( $$(date +%s) - s )) s"; exit $$rc
test: deps
	$(call test_step,layers)
	$(call test_step,-j2 $(TEST_BUILD),build)
	$(call test_step,-j2 -k --output-sync=target unit valgrind fuzz-smoke script-tests,unit valgrind fuzz-smoke script-tests)
	$(call test_step,e2e)
	$(call test_step,bench-smoke)
	$(call test_step,soak-smoke)

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, the man page,
# the bash completion and the systemd unit (its ExecStart names PREFIX).
PREFIX     ?= /usr/local
BINDIR     := $(PREFIX)/bin
MANDIR     := $(PREFIX)/share/man/man1
COMPDIR    := $(PREFIX)/share/bash-completion/completions
UNITDIR    := $(PREFIX)/lib/systemd/system
install: bpfprof
	install -D -m 0755 bpfprof $(DESTDIR)$(BINDIR)/bpfprof
	install -D -m 0644 doc/bpfprof.1 $(DESTDIR)$(MANDIR)/bpfprof.1
	install -D -m 0644 completion/bpfprof.bash $(DESTDIR)$(COMPDIR)/bpfprof
	install -d $(DESTDIR)$(UNITDIR)
	sed 's#/usr/local/bin/bpfprof#$(BINDIR)/bpfprof#' examples/bpfprof.service \
		> $(DESTDIR)$(UNITDIR)/bpfprof.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/bpfprof.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bpfprof $(DESTDIR)$(MANDIR)/bpfprof.1 \
	      $(DESTDIR)$(COMPDIR)/bpfprof $(DESTDIR)$(UNITDIR)/bpfprof.service

# make deb: a Debian package of the same install rule (PREFIX=/usr), built with
# Debian's own tools: dpkg-shlibdeps declares the libraries' packages,
# dpkg-gencontrol writes DEBIAN/control from debian/control and
# debian/changelog (whose version must be VERSION), dpkg-deb builds it.
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version)
DEB_ARCH    = $(shell dpkg --print-architecture)
DEB_DIR    := $(BUILD)/deb
DEB_STAGE  := $(DEB_DIR)/bpfprof
DEB_FILE    = $(DEB_DIR)/bpfprof_$(DEB_VERSION)_$(DEB_ARCH).deb
deb: bpfprof
	@[ "$(DEB_VERSION)" = "$(VERSION)" ] || { echo "deb: debian/changelog is at $(DEB_VERSION), the Makefile at $(VERSION)"; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_STAGE)/DEBIAN
	$(MAKE) -s install PREFIX=/usr DESTDIR=$(DEB_STAGE)
	strip --strip-unneeded --remove-section=.comment --remove-section=.note $(DEB_STAGE)/usr/bin/bpfprof
	gzip -9n $(DEB_STAGE)/usr/share/man/man1/bpfprof.1
	install -D -m 0644 debian/copyright $(DEB_STAGE)/usr/share/doc/bpfprof/copyright
	gzip -9nc debian/changelog > $(DEB_STAGE)/usr/share/doc/bpfprof/changelog.gz
	dpkg-shlibdeps -T$(DEB_DIR)/substvars $(DEB_STAGE)/usr/bin/bpfprof
	dpkg-gencontrol -pbpfprof -T$(DEB_DIR)/substvars -f$(DEB_DIR)/files -P$(DEB_STAGE)
	cd $(DEB_STAGE) && find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums
	chmod -R u=rwX,go=rX $(DEB_STAGE)
	dpkg-deb --root-owner-group --build $(DEB_STAGE) $(DEB_FILE)
	@echo "deb: $(DEB_FILE)"

profile: deps
	$(MAKE) all
	./bpfprof -a -d 10 -o profile.folded

$(BUILD):
	@mkdir -p $@

clean:
	rm -rf $(BUILD) bpfprof

# Rooms with make targets of their own: the benchmark and the fuzzers.
-include tools/bench/bench.mk
-include tests/fuzz/fuzz.mk
