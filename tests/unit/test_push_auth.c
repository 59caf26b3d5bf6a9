// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of push_auth.c's credentials file read when a signal
 * interrupts it: read() is replaced here (the archive's push_auth.o binds
 * to this executable's) to fail with EINTR on the file's first reads. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output/push_auth.h"

static int eintr_fd = -1;	/* the fd whose reads fail with EINTR ... */
static int eintr_left;		/* ... this many times */

ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);

	if (fd == eintr_fd && eintr_left > 0) {
		eintr_left--;
		errno = EINTR;
		return -1;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "read");
	return real(fd, buf, len);
}

Test(push_auth, a_read_interrupted_by_a_signal_is_retried)
{
	char file[] = "/tmp/bpfprof-test-auth.XXXXXX";
	int fd = mkstemp(file);
	struct push_auth a;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "user:secret\n", 12), 12);
	cr_assert_eq(fchmod(fd, 0600), 0);
	close(fd);
	/* push_auth__load opens it next: the lowest free fd, the one just closed */
	eintr_fd = fd;
	eintr_left = 2;
	cr_expect_eq(push_auth__load(file, "http://h:4040", &a), 0);
	cr_expect_eq(eintr_left, 0);
	cr_expect_eq(a.kind, PUSH_AUTH_BASIC);
	cr_expect_str_eq(a.secret ? a.secret : "(none)", "user:secret");
	push_auth__free(&a);
	unlink(file);
}
