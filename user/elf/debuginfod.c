// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* debuginfod lookups, counted and held to a budget (see debuginfod.h). */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "elf/debuginfod.h"
#include "elf/debuginfod_curl.h"
#include "base/errors.h"

/* DEBUGINFOD_MAXSIZE unless the user set it: a server's answer over it is
 * refused, never cached (each build-id's answer is kept on disk). Debug
 * files of common libraries are tens of MiB, the largest (libxul,
 * libLLVM) a few hundred; 512 MiB is also the most bpfprof reads of one
 * ELF string table (ELF_STRTAB_MAX). */
#define DEBUGINFOD_MAXSIZE_DEFAULT	(512l << 20)

/* One per process, as the client's configuration (the environment) is. */
static struct {
	double budget;		/* seconds the run may wait, in all */
	double started;		/* when the lookup under way began */
	long maxsize;		/* bytes of one answer, at most */
	unsigned int said;	/* refusal reasons already warned about */
	char over_size[96];	/* the reason for an answer over maxsize */
	struct debuginfod_stats st;
} dbg;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Says once per reason what was refused (reason: a fixed text). */
static void refused(const char *reason)
{
	static const char *said[8];	/* fixed texts: compared by address */
	unsigned int i;

	for (i = 0; i < dbg.said; i++)
		if (said[i] == reason)
			return;
	if (dbg.said < 8)
		said[dbg.said++] = reason;
	p_warn("debuginfod: a server's answer refused: %s (said once; the lookup counts as "
	       "failed)", reason);
}

void debuginfod__configure(double budget)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *maxsize;
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
	/* progress() holds an answer to it, announced (Content-Length) or not.
	 * Not set in the environment for libdebuginfod to check as well: 0.188
	 * then leaks a stdio buffer per lookup (its dprintf to fd -1). */
	maxsize = getenv("DEBUGINFOD_MAXSIZE");
	dbg.maxsize = maxsize && atol(maxsize) > 0 ? atol(maxsize) : DEBUGINFOD_MAXSIZE_DEFAULT;
	snprintf(dbg.over_size, sizeof(dbg.over_size), "over DEBUGINFOD_MAXSIZE (%ld bytes)",
		 dbg.maxsize);
	debuginfod_curl__allow(urls, refused);
}


/* Called by the client about once a second while it waits: nonzero
 * cancels the lookup. */
static int progress(debuginfod_client *c, long done, long total)
{
	(void)c;
	if (dbg.maxsize > 0 && (total > dbg.maxsize || done > dbg.maxsize)) {
		refused(dbg.over_size);
		return 1;
	}
	if (dbg.st.waited + (now() - dbg.started) < dbg.budget)
		return 0;
	dbg.st.spent = true;
	return 1;
}

/* The client calls a lookup by build-id makes, from libdebuginfod loaded
 * on the first (dlopen, as set_progressfn: not linked). */
struct client_api {
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*end)(debuginfod_client *);
};

static const struct client_api *client_api(void)
{
	static struct client_api api;
	static bool tried;
	void *lib;

	if (tried)
		return api.end ? &api : NULL;
	tried = true;
	lib = dlopen("libdebuginfod.so.1", RTLD_LAZY);	/* kept: its calls are ours now */
	if (!lib) {
		p_warn("debuginfod: %s: no server is asked", dlerror());
		return NULL;
	}
	*(void **)&api.begin = dlsym(lib, "debuginfod_begin");
	*(void **)&api.find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
	*(void **)&api.set_progressfn = dlsym(lib, "debuginfod_set_progressfn");
	*(void **)&api.end = dlsym(lib, "debuginfod_end");
	if (!api.begin || !api.find_debuginfo || !api.set_progressfn || !api.end)
		api.end = NULL;
	return api.end ? &api : NULL;
}

int debuginfod__fetch_debuginfo(const char *build_id_hex, char **path)
{
	const struct client_api *api = dbg.st.enabled && !dbg.st.spent ? client_api() : NULL;
	debuginfod_client *client = api ? api->begin() : NULL;
	int fd;

	*path = NULL;
	if (!client)
		return -1;
	api->set_progressfn(client, progress);
	dbg.started = now();
	/* length 0: the id is given as hex text */
	fd = api->find_debuginfo(client, (const unsigned char *)build_id_hex, 0, path);
	dbg.st.waited += now() - dbg.started;
	api->end(client);
	if (fd >= 0)
		dbg.st.fetched++;
	else
		dbg.st.failed++;
	return fd >= 0 ? fd : -1;
}

void debuginfod__stats(struct debuginfod_stats *st)
{
	*st = dbg.st;
}
