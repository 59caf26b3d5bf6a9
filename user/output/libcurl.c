// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libcurl, loaded on first use (libcurl.h). */
#include <dlfcn.h>
#include <pthread.h>

#include "base/errors.h"
#include "output/libcurl.h"

#define LIBCURL_SONAME	"libcurl.so.4"	/* Debian's libcurl4 */

struct libcurl libcurl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;

static void load(void)
{
	void *lib = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		p_err("push: cannot load %s (Debian package libcurl4): %s", LIBCURL_SONAME,
		      dlerror());
		return;
	}
	/* POSIX's way to a function pointer from dlsym()'s void * */
#define LIBCURL_LOOKUP(name)                                                   \
	*(void **)&libcurl.name = dlsym(lib, "curl_" #name);                   \
	if (!libcurl.name) {                                                   \
		p_err("push: %s has no curl_" #name ": %s", LIBCURL_SONAME, dlerror()); \
		dlclose(lib);                                                  \
		return;                                                        \
	}
	LIBCURL_FUNCTIONS(LIBCURL_LOOKUP)
#undef LIBCURL_LOOKUP
	/* kept loaded for the run: its threads and handles outlive any one use */
	loaded = 0;
}

int libcurl__load(void)
{
	pthread_once(&once, load);
	return loaded;
}
