# Fuzzing: libFuzzer with ASan and UBSan, one target per parser of outside
# bytes (included by the top-level Makefile; paths are from the top).
#   make fuzz-build   build every target into build/fuzz/
#   make fuzz         every target for FUZZ_RUNS executions (default 10^6), one
#                     target at a time whatever -j says (run it niced on a shared
#                     machine: nice -n 19 make fuzz); new inputs go to
#                     build/fuzz/corpus-TARGET, the seeds in tests/fuzz/corpus/TARGET
#                     are only read. Prints executions, execs/s and coverage per
#                     target; fails at the end if any target crashed.
#   make fuzz-long    each target for FUZZ_SECONDS (default 600) instead
#   make fuzz-smoke   each target for FUZZ_SMOKE_SECONDS (default 10) from the
#                     seeds alone; fails on the first crash (`make test` runs it)
#   make fuzz-TARGET  one target for FUZZ_RUNS executions (e.g. make fuzz-ksyms)
#   make fuzz-cov     source coverage of each parser over its corpus (seeds plus
#                     what the last `make fuzz` found), with llvm-cov
# A crash leaves its input in build/fuzz/artifacts-TARGET/; replay it with
#   build/fuzz/fuzz_TARGET build/fuzz/artifacts-TARGET/crash-...

FUZZ_TARGETS       := elf_syms proc_maps ksyms cli events tracker unwind_table perfmap spool \
                      push_reply fde_index debug_file views control cgroup_name
FUZZ_RUNS          ?= 1000000
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_DIR           := $(BUILD)/fuzz
FUZZ_CFLAGS        := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                      -fno-omit-frame-pointer -D_GNU_SOURCE -std=c17 -Wall -Wextra -Werror \
                      $(USER_INCS)
FUZZ_BINS          := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
# the sources' own headers only: no generated file, so no build step first
FUZZ_HDRS          := $(wildcard user/*.h user/*/*.h) $(wildcard bpf/*.h)
FUZZ_RUN           := bash tests/fuzz/run.sh
# coverage builds: the same sources, no sanitizer, clang's source coverage
FUZZ_COV_CFLAGS    := -g -O0 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping \
                      -D_GNU_SOURCE -std=c17 $(USER_INCS)

# What each target compiles in besides tests/fuzz/fuzz_TARGET.c, and links.
FUZZ_SRCS_elf_syms  := user/elf/elf_syms.c user/elf/elf_syms_read.c user/elf/elf_syms_aliases.c \
                       user/elf/elf_syms_plt.c \
                       user/elf/elf_read.c user/elf/elf_limits.c user/base/grow.c user/base/addr_ranges.c
FUZZ_LIBS_elf_syms  := -lelf -lz
FUZZ_SRCS_proc_maps := user/procs/proc_maps.c
FUZZ_SRCS_ksyms     := user/symbols/ksyms.c user/base/grow.c user/base/addr_ranges.c
FUZZ_SRCS_cli       := user/cli/cli.c user/cli/cli_modes.c user/cli/cli_usage.c user/cli/cli_values.c user/base/errors.c user/base/term_safe.c user/base/formats.c user/sampling/events.c
FUZZ_SRCS_events    := user/sampling/events.c
FUZZ_SRCS_tracker   := user/procs/procs.c user/procs/prune.c user/procs/unmapped.c user/procs/track_budget.c user/procs/fork_copy.c user/procs/proc_owner.c user/procs/target.c user/procs/proc_maps.c user/sampling/events.c \
                       user/base/grow.c user/base/errors.c user/base/term_safe.c
# tracker.c is #included by fuzz_tracker.c (its decoder is static)
FUZZ_DEPS_tracker   := user/procs/tracker.c
FUZZ_LIBS_tracker   := -lbpf -lelf -lz
FUZZ_SRCS_unwind_table := user/unwind/unwind_table.c user/unwind/row_merge.c user/elf/cfi_bytes.c user/unwind/cfi_check.c \
                          user/unwind/cfi_rows.c user/unwind/cfi_libdw.c \
                          user/unwind/keeps_fp.c user/elf/elf_read.c user/elf/elf_limits.c user/base/grow.c user/base/addr_ranges.c
FUZZ_LIBS_unwind_table := -ldw -lelf -lz
FUZZ_SRCS_perfmap   := user/symbols/perfmap.c user/base/open_regular.c user/procs/proc_owner.c user/procs/target.c user/base/addr_ranges.c user/base/grow.c
FUZZ_SRCS_spool     := user/output/spool.c user/base/formats.c user/base/dirfiles.c user/base/grow.c
FUZZ_LIBS_spool     := -lz
FUZZ_SRCS_push_reply := user/output/push_reply.c user/output/push_retry.c
FUZZ_SRCS_fde_index := user/elf/fde_index.c user/elf/cfi_bytes.c user/elf/elf_read.c \
                       user/elf/elf_limits.c user/base/grow.c
FUZZ_LIBS_fde_index := -ldw -lelf -lz
FUZZ_SRCS_debug_file := user/elf/dwarf_lines.c user/elf/compressed_scns.c user/elf/dwfl_debuginfo.c \
                        user/elf/dwarf_subprograms.c user/elf/dwarf_die_name.c user/base/grow.c user/elf/debug_file.c user/elf/debuginfod.c user/elf/debuginfod_curl.c user/base/url.c \
                        user/base/open_regular.c user/base/errors.c user/base/term_safe.c user/elf/debug_trust.c user/elf/elf_read.c user/elf/elf_limits.c
FUZZ_LIBS_debug_file := -ldw -lelf -lz -lm
FUZZ_SRCS_views     := user/render/read_profile.c user/render/read_pprof.c user/render/vprof.c user/render/table.c \
                       user/render/fgtree.c user/render/svg.c user/render/flamegraph.c \
                       user/profile/group_by.c user/base/cgroup_name.c \
                       user/base/term_safe.c user/base/errors.c user/base/grow.c user/base/frame_kind.c \
                       $(BUILD)/profile.pb-c.c user/base/addr_ranges.c
FUZZ_DEPS_views     := $(BUILD)/flamegraph_page.h
FUZZ_LIBS_views     := -lprotobuf-c -lz
FUZZ_SRCS_control   := user/sampling/control.c user/base/errors.c user/base/term_safe.c
FUZZ_SRCS_cgroup_name := user/base/cgroup_name.c user/base/term_safe.c
# The parser each target is about, for fuzz-cov.
FUZZ_MAIN_elf_syms  := user/elf/elf_syms.c
FUZZ_MAIN_proc_maps := user/procs/proc_maps.c
FUZZ_MAIN_ksyms     := user/symbols/ksyms.c
FUZZ_MAIN_cli       := user/cli/cli.c
FUZZ_MAIN_events    := user/sampling/events.c
FUZZ_MAIN_tracker   := user/procs/tracker.c
FUZZ_MAIN_unwind_table := user/unwind/unwind_table.c
FUZZ_MAIN_perfmap   := user/symbols/perfmap.c
FUZZ_MAIN_spool     := user/output/spool.c
FUZZ_MAIN_push_reply := user/output/push_reply.c
FUZZ_MAIN_fde_index := user/elf/fde_index.c
FUZZ_MAIN_debug_file := user/elf/dwarf_lines.c
FUZZ_MAIN_views     := user/render/read_profile.c
FUZZ_MAIN_control   := user/sampling/control.c
FUZZ_MAIN_cgroup_name := user/base/cgroup_name.c

.PHONY: fuzz fuzz-long fuzz-build fuzz-smoke fuzz-cov $(patsubst %,fuzz-%,$(FUZZ_TARGETS)) \
	$(patsubst %,fuzz-long-%,$(FUZZ_TARGETS)) $(patsubst %,fuzz-smoke-%,$(FUZZ_TARGETS))

fuzz-build: $(FUZZ_BINS)

# libFuzzer's runtime is in libclang-rt-N-dev, which apt installs with clang
# only as a recommendation: install it when a probe does not link.
$(FUZZ_DIR)/.toolchain-ok:
	@mkdir -p $(@D)
	@printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	    > $(@D)/probe.c
	@if ! $(CLANG) -fsanitize=fuzzer,address,undefined $(@D)/probe.c -o $(@D)/probe 2>/dev/null; then \
		v=$$($(CLANG) -dumpversion | cut -d. -f1); \
		echo "fuzz: -fsanitize=fuzzer does not link: installing libclang-rt-$$v-dev"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-rt-$$v-dev \
		&& $(CLANG) -fsanitize=fuzzer,address,undefined $(@D)/probe.c -o $(@D)/probe || exit 1; \
	fi
	@rm -f $(@D)/probe $(@D)/probe.c
	@touch $@

define FUZZ_TARGET_RULES
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_DEPS_$(1)) $(FUZZ_HDRS) tests/fuzz/fuzz.mk | $(FUZZ_DIR)/.toolchain-ok
	$(CLANG) $(FUZZ_CFLAGS) tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1)) -o $$@

$(FUZZ_DIR)/cov/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_DEPS_$(1)) $(FUZZ_HDRS) tests/fuzz/fuzz.mk | $(FUZZ_DIR)/.toolchain-ok
	@mkdir -p $$(@D)
	$(CLANG) $(FUZZ_COV_CFLAGS) tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1)) -o $$@

fuzz-$(1): $(FUZZ_DIR)/fuzz_$(1)
	@$(FUZZ_RUN) runs $(1) $(FUZZ_RUNS) $(FUZZ_DIR)

fuzz-long-$(1): $(FUZZ_DIR)/fuzz_$(1)
	@$(FUZZ_RUN) long $(1) $(FUZZ_SECONDS) $(FUZZ_DIR)

fuzz-smoke-$(1): $(FUZZ_DIR)/fuzz_$(1)
	@$(FUZZ_RUN) smoke $(1) $(FUZZ_SMOKE_SECONDS) $(FUZZ_DIR)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

# Every target runs even if one crashes, one after the other (two at a time
# would halve each one's rate on a 2-CPU machine and prove nothing more); the
# summary says which crashed, and fails.
FUZZ_SUMMARIES := $(patsubst %,$(FUZZ_DIR)/summary-%.txt,$(FUZZ_TARGETS))
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do $(FUZZ_RUN) runs $$t $(FUZZ_RUNS) $(FUZZ_DIR) || exit 1; done
	@echo "== fuzz summary ($(FUZZ_RUNS) executions per target)"
	@cat $(FUZZ_SUMMARIES)
	@! grep -q CRASHED $(FUZZ_SUMMARIES)

fuzz-long: fuzz-build
	@for t in $(FUZZ_TARGETS); do $(FUZZ_RUN) long $$t $(FUZZ_SECONDS) $(FUZZ_DIR) || exit 1; done
	@echo "== fuzz summary ($(FUZZ_SECONDS) s per target)"
	@cat $(FUZZ_SUMMARIES)
	@! grep -q CRASHED $(FUZZ_SUMMARIES)

fuzz-smoke: $(patsubst %,fuzz-smoke-%,$(FUZZ_TARGETS))
	@echo "fuzz-smoke: $(words $(FUZZ_TARGETS)) targets, $(FUZZ_SMOKE_SECONDS) s each, no crash"

fuzz-cov: $(patsubst %,$(FUZZ_DIR)/cov/fuzz_%,$(FUZZ_TARGETS))
	@bash tests/fuzz/cov.sh $(FUZZ_DIR) $(foreach t,$(FUZZ_TARGETS),$(t):$(FUZZ_MAIN_$(t)))
