# make bench: bpfprof's cost and fidelity against perf record (tools/bench/).
# Included by the top-level Makefile, whose variables it uses.
#   make bench        build everything, run the full benchmark (about 30 minutes,
#                     root), print the table, write tools/bench/results.json
#   make bench-smoke  every part minimally (seconds): the bench still runs and
#                     writes a parseable results file (make test runs it)
#   make bench-deps   the Debian packages the bench needs beyond `make deps`

BENCH_BUILD   := $(BUILD)/bench
BENCH_PKGS    := time jq bpftrace postgresql
BENCH_LIBS    := $(foreach n,1 2 3 4,$(BENCH_BUILD)/libstackbench$(n).so)
BENCH_TOOLS   := $(BENCH_BUILD)/stackid_floor $(BENCH_BUILD)/fn_timer $(BENCH_BUILD)/unwind_cost \
                 $(BENCH_BUILD)/inline_cost $(BENCH_BUILD)/stages/bpfprof
BENCH_CFLAGS  := -std=c17 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
BENCH_BPFFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -std=gnu17 -Wall -Wextra -Werror \
                  -Ivmlinux -Ibpf
BENCH_SMOKE_OUT := $(BENCH_BUILD)/smoke

.PHONY: bench bench-smoke bench-deps bench-build
.SECONDARY: $(BENCH_BUILD)/stackid_floor.bpf.o $(BENCH_BUILD)/fn_timer.bpf.o

bench-deps:
	@if dpkg-query -W -f='$${Status}\n' $(BENCH_PKGS) 2>/dev/null | grep -vq 'install ok installed' \
	    || [ $$(dpkg-query -W -f='$${Status}\n' $(BENCH_PKGS) 2>/dev/null | wc -l) -ne $(words $(BENCH_PKGS)) ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PKGS); \
	else echo "bench-deps: all Debian packages present"; fi

# BPF helpers: the stackid floor and the uprobe phase timer
$(BENCH_BUILD)/%.bpf.o: tools/bench/%.bpf.c vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BENCH_BPFFLAGS) -c $< -o $@

$(BENCH_BUILD)/%.skel.h: $(BENCH_BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BENCH_BUILD)/stackid_floor: tools/bench/stackid_floor.c $(BENCH_BUILD)/stackid_floor.skel.h
	$(CC) $(BENCH_CFLAGS) -I$(BENCH_BUILD) $< -lbpf -lelf -lz -o $@

$(BENCH_BUILD)/fn_timer: tools/bench/fn_timer.c $(BENCH_BUILD)/fn_timer.skel.h
	$(CC) $(BENCH_CFLAGS) -I$(BENCH_BUILD) $< -lbpf -lelf -lz -o $@

# bpfprof with the sampler's per-stage timers (bpf/stage_timer.bpf.h, part 2):
# its own BPF object and skeleton; of user space only the file that includes
# the skeleton is compiled again, the rest is bpfprof's own objects
STAGES := $(BENCH_BUILD)/stages
$(STAGES)/profile.bpf.o: bpf/profile.bpf.c $(wildcard bpf/*.h) vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -DBPFPROF_STAGE_TIMERS -Ivmlinux -Ibpf -c $< -o $@

$(STAGES)/profile.skel.h: $(STAGES)/profile.bpf.o
	$(BPFTOOL) gen skeleton $< name profile_bpf > $@
.SECONDARY: $(STAGES)/profile.bpf.o $(STAGES)/profile.skel.h

$(STAGES)/session.o: user/sampling/session.c $(USER_HDRS) $(STAGES)/profile.skel.h
	$(CC) -I$(STAGES) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(STAGES)/bpfprof: $(filter-out $(BUILD)/obj/sampling/session.o,$(OBJS)) $(STAGES)/session.o
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# one file's unwind table, built as bpfprof builds it (part 7)
UNWIND_COST_SRCS := user/unwind/unwind_table.c user/unwind/row_merge.c user/elf/cfi_bytes.c user/unwind/cfi_check.c \
                    user/unwind/cfi_rows.c \
                    user/unwind/cfi_libdw.c user/unwind/keeps_fp.c user/elf/elf_read.c user/elf/elf_limits.c \
                    user/base/grow.c
$(BENCH_BUILD)/unwind_cost: tools/bench/unwind_cost.c $(UNWIND_COST_SRCS) user/unwind/unwind_table.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(USER_INCS) $< $(UNWIND_COST_SRCS) -ldw -lelf -lz -o $@

# one file's source lines and inline frames, resolved as bpfprof does (part 9)
INLINE_COST_SRCS := user/elf/dwarf_lines.c user/elf/compressed_scns.c user/elf/dwfl_debuginfo.c \
                    user/elf/dwarf_subprograms.c user/elf/dwarf_die_name.c user/base/grow.c user/elf/debug_file.c user/elf/debuginfod.c user/elf/debuginfod_curl.c \
                    user/base/url.c user/base/open_regular.c user/base/errors.c user/base/term_safe.c user/elf/debug_trust.c user/elf/elf_read.c user/elf/elf_limits.c
$(BENCH_BUILD)/inline_cost: tools/bench/inline_cost.c $(INLINE_COST_SRCS) user/elf/dwarf_lines.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(CPPFLAGS) $< $(INLINE_COST_SRCS) -ldw -lelf -lz -lm -o $@

# bench_stacks' shared libraries: one source, built once per library number
$(BENCH_BUILD)/libstackbench%.so: tools/bench/libstackbench.c tools/bench/stackbench.h
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) -std=c17 -fPIC -shared -DSB_LIBNO=$* $< -o $@

# examples/bench_stacks.c includes tools/bench/stackbench.h
$(BUILD)/examples/bench_stacks: tools/bench/stackbench.h

bench-build: $(BENCH_TOOLS) $(BENCH_LIBS) $(BUILD)/examples/bench_fixed $(BUILD)/examples/bench_stacks \
             $(BUILD)/examples/nofp_chain $(BUILD)/examples/nofp_depth

bench: deps bench-deps
	$(MAKE) all
	$(MAKE) bench-build
	bash tools/bench/bench.sh

bench-smoke: bench-deps
	$(MAKE) all
	$(MAKE) bench-build
	@mkdir -p $(BENCH_SMOKE_OUT) && rm -f $(BENCH_SMOKE_OUT)/results.json
	bash tools/bench/bench.sh --smoke --out $(BENCH_SMOKE_OUT)/results.json \
		--table $(BENCH_SMOKE_OUT)/results.txt > /dev/null
	@if [ -f $(BENCH_SMOKE_OUT)/results.json ]; then \
		jq -e '.date and .kernel and .cpus and (.rows | length > 0)' $(BENCH_SMOKE_OUT)/results.json > /dev/null && \
		jq -e '[.rows[].part] | unique == [1,2,3,4,5,6,7,8,9,10,11,12]' $(BENCH_SMOKE_OUT)/results.json > /dev/null && \
		echo "bench-smoke: the bench ran end to end; $(BENCH_SMOKE_OUT)/results.json parses, all twelve parts in it"; \
	fi
