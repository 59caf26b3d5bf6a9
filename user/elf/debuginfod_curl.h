/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The redirects libdebuginfod follows, bounded. Its client (elfutils 0.188)
 * sets CURLOPT_FOLLOWLOCATION with no limit (libcurl 7.88: unlimited: a
 * redirect loop made 9,966 requests in the time budget) and to any server (a
 * redirect to another port was followed), and offers no option for either.
 * bpfprof defines curl_easy_setopt() itself, exported (the Makefile's
 * --export-dynamic-symbol): libdebuginfod, loaded later, binds to it, and
 * so does any library whose own calls are not bound inside it (push's
 * libcurl.so.4 for its DoH handles: libcurl.h). It hands each call to the
 * libcurl of the library that made it (dladdr of the return address) and,
 * where libdebuginfod's libcurl turns redirects on, adds a limit
 * (DEBUGINFOD_REDIRECTS_MAX), http(s) only, and a check before each
 * request is sent that refuses an origin (scheme, host, port, url.h) not
 * in DEBUGINFOD_URLS.
 */
#ifndef BPFPROF_DEBUGINFOD_CURL_H
#define BPFPROF_DEBUGINFOD_CURL_H

#include <stdbool.h>

#define DEBUGINFOD_REDIRECTS_MAX	3

/* The origins requests may go to: those of urls (DEBUGINFOD_URLS, separated
 * by spaces or tabs, as many as it names), and who is told of a request
 * refused (reason: a fixed text; NULL: nobody). Call at start, before any
 * lookup. */
void debuginfod_curl__allow(const char *urls, void (*refused)(const char *reason));

/* True when url's origin is one of those allowed. */
bool debuginfod_curl__allowed(const char *url);

#endif
