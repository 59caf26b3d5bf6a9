/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The redirects libdebuginfod follows, bounded. Its client (elfutils 0.188)
 * sets CURLOPT_FOLLOWLOCATION with no limit (libcurl 7.88: unlimited: a
 * redirect loop made 9,966 requests in the time budget) and to any server (a
 * redirect to another port was followed), and offers no option for either.
 * bpfprof defines curl_easy_setopt() itself, exported (the Makefile's
 * --export-dynamic-symbol): libdebuginfod, loaded later, binds to it; it
 * hands every call to libcurl's and, where libdebuginfod turns redirects
 * on, adds a limit (DEBUGINFOD_REDIRECTS_MAX), http(s) only, and a check
 * before each request is sent that refuses an origin (scheme, host, port)
 * not in DEBUGINFOD_URLS. bpfprof's own pushes call libcurl through its
 * table (libcurl.h): untouched.
 */
#ifndef BPFPROF_DEBUGINFOD_CURL_H
#define BPFPROF_DEBUGINFOD_CURL_H

#include <stddef.h>

#define DEBUGINFOD_REDIRECTS_MAX	3

/* The origins requests may go to: those of urls (DEBUGINFOD_URLS, separated
 * by spaces). Call at start, before any lookup. */
void debuginfod_curl__allow(const char *urls);

/* "scheme://host:port" of url, lowercased, the default port filled in;
 * "" when url has no scheme. */
void debuginfod_curl__origin(const char *url, char *buf, size_t size);

/* Says once per reason what was refused (reason: a fixed text). */
void debuginfod__refused(const char *reason);

#endif
