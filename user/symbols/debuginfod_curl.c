// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libdebuginfod's redirects, bounded and kept to its servers (debuginfod_curl.h). */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CURL_DISABLE_TYPECHECK	/* its macro would rename the definition below */
#include <curl/curl.h>

#include "debuginfod_curl.h"

#define ORIGINS_MAX	16
#define ORIGIN_LEN	288

static struct {
	char origins[ORIGINS_MAX][ORIGIN_LEN];
	int n;
} allowed;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode (*real_setopt)(CURL *, CURLoption, ...);
static CURLcode (*real_getinfo)(CURL *, CURLINFO, ...);

void debuginfod_curl__origin(const char *url, char *buf, size_t size)
{
	const char *sep = strstr(url, "://"), *auth, *end, *at, *host, *port;
	size_t slen, hlen;

	buf[0] = '\0';
	if (!sep || size < 2)
		return;
	slen = (size_t)(sep - url);
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	host = auth;
	for (at = auth; at < end; at++)
		if (*at == '@')
			host = at + 1;	/* past the userinfo */
	port = *host == '[' ? memchr(host, ']', (size_t)(end - host)) : host;
	port = port ? memchr(port, ':', (size_t)(end - port)) : NULL;
	hlen = (size_t)((port ? port : end) - host);
	snprintf(buf, size, "%.*s://%.*s:%.*s", (int)slen, url, (int)hlen, host,
		 port ? (int)(end - port - 1) : 3,
		 port ? port + 1 : slen == 5 && !strncasecmp(url, "https", 5) ? "443" : "80");
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

void debuginfod_curl__allow(const char *urls)
{
	char url[1024];
	size_t len;

	allowed.n = 0;
	while (urls && *urls && allowed.n < ORIGINS_MAX) {
		urls += strspn(urls, " \t");
		len = strcspn(urls, " \t");
		snprintf(url, sizeof(url), "%.*s", (int)len, urls);
		debuginfod_curl__origin(url, allowed.origins[allowed.n], ORIGIN_LEN);
		allowed.n += allowed.origins[allowed.n][0] != '\0';
		urls += len;
	}
}

static bool origin_allowed(const char *url)
{
	char o[ORIGIN_LEN];

	debuginfod_curl__origin(url, o, sizeof(o));
	for (int i = 0; i < allowed.n; i++)
		if (!strcmp(o, allowed.origins[i]))
			return true;
	return false;
}

/* Before each request goes out, the first and every redirect's: the count
 * and where it goes. The handle is its own callback data. */
static int before_request(void *handle, char *ip, char *local_ip, int port, int local_port)
{
	const char *url = NULL;
	long redirects = 0;

	(void)ip;
	(void)local_ip;
	(void)port;
	(void)local_port;
	if (real_getinfo(handle, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK &&
	    redirects > DEBUGINFOD_REDIRECTS_MAX) {
		debuginfod__refused("more than 3 redirects");
		return CURL_PREREQFUNC_ABORT;
	}
	if (real_getinfo(handle, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url ||
	    !origin_allowed(url)) {
		debuginfod__refused("a redirect to a server not in DEBUGINFOD_URLS");
		return CURL_PREREQFUNC_ABORT;
	}
	return CURL_PREREQFUNC_OK;
}

/* libcurl's own, as libdebuginfod's dependencies have them (Debian links
 * it to libcurl-gnutls.so.4; libdw's RTLD_LOCAL dlopen keeps both out of
 * RTLD_NEXT's reach): a handle's lookup searches the library, then what it
 * needs, never the executable. Loaded while libdebuginfod is. */
static void find_libcurl(void)
{
	void *lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (!lib)
		return;
	*(void **)&real_setopt = dlsym(lib, "curl_easy_setopt");
	*(void **)&real_getinfo = dlsym(lib, "curl_easy_getinfo");
	dlclose(lib);
}

/* Every argument is one machine word or a curl_off_t: handed on as its
 * type, which the option's number says (curl.h's CURLOPTTYPE ranges). */
CURLcode curl_easy_setopt(CURL *handle, CURLoption opt, ...)
{
	CURLcode rc;
	va_list ap;

	pthread_once(&once, find_libcurl);
	if (!real_setopt || !real_getinfo)
		return CURLE_FAILED_INIT;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = real_setopt(handle, opt, va_arg(ap, long));
	else if (opt >= CURLOPTTYPE_FUNCTIONPOINT && opt < CURLOPTTYPE_OFF_T)
		rc = real_setopt(handle, opt, va_arg(ap, void (*)(void)));
	else if (opt >= CURLOPTTYPE_OFF_T && opt < CURLOPTTYPE_BLOB)
		rc = real_setopt(handle, opt, va_arg(ap, curl_off_t));
	else
		rc = real_setopt(handle, opt, va_arg(ap, void *));
	va_end(ap);
	if (rc != CURLE_OK || opt != CURLOPT_FOLLOWLOCATION)
		return rc;
	/* libdebuginfod turns redirects on: bounded, http(s), its servers only.
	 * A libcurl without these options fails the lookup (libdebuginfod
	 * checks each setopt): never redirects without the bounds. */
	rc = real_setopt(handle, CURLOPT_MAXREDIRS, (long)DEBUGINFOD_REDIRECTS_MAX + 1);
	if (rc == CURLE_OK)
		rc = real_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (rc == CURLE_OK)
		rc = real_setopt(handle, CURLOPT_PREREQFUNCTION, before_request);
	if (rc == CURLE_OK)
		rc = real_setopt(handle, CURLOPT_PREREQDATA, handle);
	return rc;
}
