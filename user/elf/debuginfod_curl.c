// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libdebuginfod's redirects, bounded and kept to its servers (debuginfod_curl.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CURL_DISABLE_TYPECHECK	/* its macro would rename the definition below */
#include <curl/curl.h>

#include "elf/debuginfod_curl.h"
#include "base/errors.h"
#include "base/url.h"

#define ORIGIN_MAX	512	/* "scheme://host:port": a host name is 253 bytes at most */
#define CURL_LIBS_MAX	8	/* libcurls cached; more are looked up at each call */

typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*getinfo_fn)(CURL *, CURLINFO, ...);

/* DEBUGINFOD_URLS' origins, as many as it names. */
static struct {
	char **origins;
	size_t n;
} allowed;

/* A library that calls curl_easy_setopt and the libcurl its lookups find. */
struct curl_lib {
	void *handle;		/* dlopen's reference: keeps the pointers valid */
	setopt_fn setopt;
	getinfo_fn getinfo;
};

static struct {
	pthread_mutex_t lock;
	struct curl_lib libs[CURL_LIBS_MAX];
	int n;
} callers = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The curl_easy_getinfo of the libcurl whose handles are bounded. */
static getinfo_fn bounded_getinfo;

static void allowed_free(void)
{
	for (size_t i = 0; i < allowed.n; i++)
		free(allowed.origins[i]);
	free(allowed.origins);
	allowed.origins = NULL;
	allowed.n = 0;
}

/* debuginfod.c's: says each reason once */
static void (*say_refused)(const char *reason);

static void refused(const char *reason)
{
	if (say_refused)
		say_refused(reason);
}

void debuginfod_curl__allow(const char *urls, void (*on_refused)(const char *reason))
{
	size_t len, words = 0;
	char *url, origin[ORIGIN_MAX];

	say_refused = on_refused;
	allowed_free();
	for (const char *c = urls ? urls : ""; *c; c += len) {
		c += strspn(c, " \t");
		len = strcspn(c, " \t");
		words += len != 0;
	}
	allowed.origins = words ? calloc(words, sizeof(*allowed.origins)) : NULL;
	for (const char *c = urls ? urls : ""; allowed.origins && *c; c += len) {
		c += strspn(c, " \t");
		len = strcspn(c, " \t");
		url = len ? strndup(c, len) : NULL;
		if (url && url__origin(url, origin, sizeof(origin)))
			allowed.origins[allowed.n] = strdup(origin);
		if (allowed.n < words && allowed.origins[allowed.n])
			allowed.n++;
		free(url);
	}
	if (words && allowed.n < words)
		p_warn("debuginfod: %zu of the %zu servers in DEBUGINFOD_URLS not understood "
		       "(or no memory): requests to them are refused", words - allowed.n, words);
}

bool debuginfod_curl__allowed(const char *url)
{
	char o[ORIGIN_MAX];

	if (!url__origin(url, o, sizeof(o)))
		return false;
	for (size_t i = 0; i < allowed.n; i++)
		if (!strcmp(o, allowed.origins[i]))
			return true;
	return false;
}

/* Before each request goes out, the first and every redirect's: the count
 * and where it goes. The handle is its own callback data. */
static int before_request(void *handle, char *ip, char *local_ip, int port, int local_port)
{
	getinfo_fn getinfo = __atomic_load_n(&bounded_getinfo, __ATOMIC_ACQUIRE);
	const char *url = NULL;
	long redirects = 0;

	(void)ip;
	(void)local_ip;
	(void)port;
	(void)local_port;
	if (getinfo(handle, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK &&
	    redirects > DEBUGINFOD_REDIRECTS_MAX) {
		refused("more than 3 redirects");
		return CURL_PREREQFUNC_ABORT;
	}
	if (getinfo(handle, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url ||
	    !debuginfod_curl__allowed(url)) {
		refused(redirects ? "a redirect to a server not in DEBUGINFOD_URLS"
					      : "a request to a server not in DEBUGINFOD_URLS");
		return CURL_PREREQFUNC_ABORT;
	}
	return CURL_PREREQFUNC_OK;
}

/* The libcurl the library holding code address addr binds to: a lookup in
 * the library's handle searches it, then what it needs, never the
 * executable (push's libcurl.so.4 finds its own curl_easy_setopt;
 * libdebuginfod, which Debian links to libcurl-gnutls.so.4, that one).
 * Cached per library, keeping it loaded; a failure is never cached. */
static bool caller_libcurl(const void *addr, struct curl_lib *out)
{
	Dl_info info;
	void *lib;
	int i;

	if (!dladdr(addr, &info) || !info.dli_fname)
		return false;
	lib = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
	if (!lib)
		return false;
	pthread_mutex_lock(&callers.lock);
	for (i = 0; i < callers.n && callers.libs[i].handle != lib; i++)
		;
	if (i < callers.n) {
		*out = callers.libs[i];
		pthread_mutex_unlock(&callers.lock);
		dlclose(lib);	/* the cache holds its own reference */
		return true;
	}
	out->handle = lib;
	*(void **)&out->setopt = dlsym(lib, "curl_easy_setopt");
	*(void **)&out->getinfo = dlsym(lib, "curl_easy_getinfo");
	/* the executable itself (its lookup would find this wrapper) or no libcurl */
	if (!out->setopt || !out->getinfo || out->setopt == curl_easy_setopt) {
		pthread_mutex_unlock(&callers.lock);
		dlclose(lib);
		return false;
	}
	if (callers.n < CURL_LIBS_MAX)
		callers.libs[callers.n++] = *out;
	else
		dlclose(lib);	/* the caller, running, keeps it loaded meanwhile */
	pthread_mutex_unlock(&callers.lock);
	return true;
}

/* The curl_easy_setopt libdebuginfod's lookups find, or NULL while it is
 * not loaded (libdw loads it on a first lookup). */
static setopt_fn debuginfod_setopt(void)
{
	void *lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD);
	setopt_fn fn = NULL;

	if (!lib)
		return NULL;
	*(void **)&fn = dlsym(lib, "curl_easy_setopt");
	dlclose(lib);	/* libdw holds its own reference */
	return fn;
}

/* libdebuginfod turns redirects on: bounded, http(s), its servers only.
 * A libcurl without these options fails the lookup (libdebuginfod checks
 * each setopt): never redirects without the bounds. */
static CURLcode bound_redirects(CURL *handle, const struct curl_lib *curl)
{
	CURLcode rc;

	__atomic_store_n(&bounded_getinfo, curl->getinfo, __ATOMIC_RELEASE);
	rc = curl->setopt(handle, CURLOPT_MAXREDIRS, (long)DEBUGINFOD_REDIRECTS_MAX + 1);
	if (rc == CURLE_OK)
		rc = curl->setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (rc == CURLE_OK)
		rc = curl->setopt(handle, CURLOPT_PREREQFUNCTION, before_request);
	if (rc == CURLE_OK)
		rc = curl->setopt(handle, CURLOPT_PREREQDATA, handle);
	return rc;
}

/* Every caller's call, handed to its own libcurl. Every argument is one
 * machine word or a curl_off_t: handed on as its type, which the option's
 * number says (curl.h's CURLOPTTYPE ranges). */
CURLcode curl_easy_setopt(CURL *handle, CURLoption opt, ...)
{
	struct curl_lib curl;
	CURLcode rc;
	va_list ap;

	if (!caller_libcurl(__builtin_return_address(0), &curl))
		return CURLE_FAILED_INIT;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = curl.setopt(handle, opt, va_arg(ap, long));
	else if (opt >= CURLOPTTYPE_FUNCTIONPOINT && opt < CURLOPTTYPE_OFF_T)
		rc = curl.setopt(handle, opt, va_arg(ap, void (*)(void)));
	else if (opt >= CURLOPTTYPE_OFF_T && opt < CURLOPTTYPE_BLOB)
		rc = curl.setopt(handle, opt, va_arg(ap, curl_off_t));
	else
		rc = curl.setopt(handle, opt, va_arg(ap, void *));
	va_end(ap);
	if (rc != CURLE_OK || opt != CURLOPT_FOLLOWLOCATION || curl.setopt != debuginfod_setopt())
		return rc;
	return bound_redirects(handle, &curl);
}
