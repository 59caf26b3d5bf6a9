// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* debuginfod lookups, counted and held to a budget (see debuginfod.h). */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "debuginfod.h"

/* One per process, as the client's configuration (the environment) is. */
static struct {
	double budget;		/* seconds the run may wait, in all */
	double started;		/* when the lookup under way began */
	struct debuginfod_stats st;
} dbg;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void debuginfod__configure(double budget)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char secs[32];

	dbg.budget = budget;
	dbg.st.enabled = urls && urls[0] && budget > 0;
	/* libdwfl's client reads the variable at each lookup */
	if (urls && budget <= 0)
		unsetenv("DEBUGINFOD_URLS");
	if (!dbg.st.enabled)
		return;
	/* each request's own timeout (connecting, a stalled transfer): its
	 * default is 90 s; the user's value stands */
	snprintf(secs, sizeof(secs), "%.0f", ceil(budget));
	setenv("DEBUGINFOD_TIMEOUT", secs, 0);
}

/* The client's debuginfod_set_progressfn(), from the libdebuginfod that
 * libdw loaded itself (dlopen, the first time a session asked a server):
 * linking it would load libcurl, and with it TLS libraries, into every
 * run (6 MiB of RSS) for a feature most runs never use. */
static void set_progressfn(debuginfod_client *client, debuginfod_progressfn_t fn)
{
	static void (*set)(debuginfod_client *, debuginfod_progressfn_t);
	void *lib;

	if (!set) {
		lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD);
		*(void **)&set = lib ? dlsym(lib, "debuginfod_set_progressfn") : NULL;
		if (lib)
			dlclose(lib);	/* libdw holds its own reference */
	}
	if (set)
		set(client, fn);
}

/* Called by the client about once a second while it waits: nonzero
 * cancels the lookup. */
static int progress(debuginfod_client *c, long done, long total)
{
	(void)c;
	(void)done;
	(void)total;
	if (dbg.st.waited + (now() - dbg.started) < dbg.budget)
		return 0;
	dbg.st.spent = true;
	return 1;
}

int debuginfod__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			       Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			       GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const unsigned char *bits;
	debuginfod_client *client;
	GElf_Addr bits_vaddr;
	bool asks = dbg.st.enabled && dwfl_module_build_id(mod, &bits, &bits_vaddr) > 0;
	int fd;

	/* With no server to ask, only the build-id directory (dwarf_lines.c
	 * looks in the .gnu_debuglink places): libdwfl's standard search
	 * starts a debuginfod client in every session all the same (elfutils
	 * 0.188: a curl multi handle with its socketpair), and sessions open
	 * and close all run long. */
	if (!dbg.st.enabled)
		return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);

	/* the Dwfl's client exists from here on: it gets our callback */
	client = asks && *userdata ? dwfl_get_debuginfod_client(*userdata) : NULL;
	if (client)
		set_progressfn(client, progress);
	dbg.started = now();
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	/* found on disk (libdwfl names what it found there; a server's file
	 * comes without a name), or not a question for a server */
	if (!asks || (fd >= 0 && *debuginfo_file_name))
		return fd;
	dbg.st.waited += now() - dbg.started;
	if (fd >= 0)
		dbg.st.fetched++;
	else
		dbg.st.failed++;
	return fd;
}

void debuginfod__stats(struct debuginfod_stats *st)
{
	*st = dbg.st;
}
