// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Another process's memory (proc_mem.h). */
#include <errno.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "procs/proc_mem.h"

int proc_mem__read(void *arg, uint64_t addr, void *buf, size_t len)
{
	pid_t tgid = *(pid_t *)arg;
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(tgid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}
