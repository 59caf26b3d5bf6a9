/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libcurl, loaded when a run first pushes (--push): linked, it loaded a
 * TLS stack into every run, 6 MiB of RSS that fleet mode's budget could
 * not spare for a feature most runs never use. Calls go through the
 * table: libcurl.easy_init() for curl_easy_init().
 *
 * libcurl.so.4 is not linked -Bsymbolic: its own calls to curl_easy_setopt
 * (the handles DoH makes) bind to the one bpfprof exports for libdebuginfod
 * (elf/debuginfod_curl.h), which hands them back to this libcurl, the
 * caller's, and bounds nothing here. */
#ifndef BPFPROF_LIBCURL_H
#define BPFPROF_LIBCURL_H

#define CURL_DISABLE_TYPECHECK	/* its macros would wrap the table's names */
#include <curl/curl.h>

#define LIBCURL_FUNCTIONS(X)                                                              \
	X(easy_init) X(easy_cleanup) X(easy_reset) X(easy_setopt) X(easy_getinfo)       \
	X(easy_perform)                                                                  \
	X(easy_strerror) X(easy_escape) X(free) X(slist_append) X(slist_free_all)       \
	X(multi_init) X(multi_cleanup) X(multi_add_handle)                               \
	X(multi_remove_handle) X(multi_perform) X(multi_poll) X(multi_info_read)         \
	X(multi_wakeup)

struct libcurl {
#define LIBCURL_MEMBER(name) __typeof__(curl_##name) *name;
	LIBCURL_FUNCTIONS(LIBCURL_MEMBER)
#undef LIBCURL_MEMBER
};

extern struct libcurl libcurl;

/* Loads libcurl.so.4 and fills the table, once. Returns 0, or -1 after
 * saying why in one line. */
int libcurl__load(void);

#endif
