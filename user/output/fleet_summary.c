// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Fleet mode's exit lines. */
#include <inttypes.h>
#include <stdio.h>

#include "base/errors.h"
#include "files/files.h"
#include "output/fleet_summary.h"
#include "output/output.h"

/* What the intervals hold against the BPF side's own totals (samples;
 * off-CPU microseconds with --off-cpu). */
static void print_totals(const struct output *out, uint64_t bpf_samples,
			 const uint64_t *offcpu_us)
{
	struct fleet_totals tot;
	char offcpu[64] = "";

	output__totals(out, &tot);
	if (offcpu_us)
		snprintf(offcpu, sizeof(offcpu), "; BPF-side off-CPU total %" PRIu64 " us",
			 *offcpu_us);
	p_info("fleet: %" PRIu64 " intervals, %" PRIu64 " samples in them; "
		"%" PRIu64 " intervals (%" PRIu64 " samples) not written; BPF-side total %" PRIu64
		" samples%s", tot.intervals, tot.samples, tot.lost_intervals, tot.lost_samples,
		bpf_samples, offcpu);
	/* a line of its own: readers of the one above take its end */
	if (tot.late_intervals)
		p_info("fleet: %" PRIu64 " intervals much longer than asked (the agent was stopped "
		       "or starved; their spans are in the index)", tot.late_intervals);
}

/* The file registry: what the processes map now, what went with them (the
 * soak checks both come back down). */
static void print_files(const struct files *files)
{
	struct files_stats st;

	files__stats(files, &st);
	p_info("fleet: file registry: %zu files now (peak %zu), %" PRIu64 " released, %zu "
	       "lingering (%" PRIu64 " mapped again), %zu with "
	       "symbols read (%.1f MiB), %" PRIu64 " symbol reads, %zu kept open; DWARF "
	       "sessions %.1f MiB now (peak %.1f), %" PRIu64 " files over --dwarf-mem",
	       st.entries, st.peak_entries, st.released, st.lingering, st.revived, st.loaded,
	       st.bytes / 1048576.0,
	       st.reads, st.kept_open, st.dwarf_open / 1048576.0, st.dwarf_peak / 1048576.0,
	       st.dwarf_over);
}

void fleet_summary__print(const struct output *out, uint64_t bpf_samples,
			  const uint64_t *offcpu_us, const struct files *files)
{
	print_totals(out, bpf_samples, offcpu_us);
	print_files(files);
}
