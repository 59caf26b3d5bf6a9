// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The vDSO's unwind table, from our own copy of the image (vdso.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf_syms.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "unwind/vdso.h"

/* The table builder reads a file: the image goes into an anonymous one. */
static int image_fd(const void *base, size_t size)
{
	int fd = memfd_create("bpfprof-vdso", MFD_CLOEXEC);
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (done < size) {
		n = write(fd, (const char *)base + done, size - done);
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		done += (size_t)n;
	}
	return fd;
}

int vdso_table__build(struct unwind_table *t, struct elf_syms **es, size_t *size)
{
	const void *base;
	int fd, err = vdso_image(&base, size);

	if (err)
		return err;
	*es = elf_syms__open_mem(base, *size);
	if (!*es)
		return -ENOEXEC;
	fd = image_fd(base, *size);
	if (fd < 0)
		err = fd;
	else {
		err = unwind_table__build(fd, t);
		close(fd);
	}
	if (err) {
		elf_syms__free(*es);
		*es = NULL;
	}
	return err;
}

bool vdso_table__matches(const struct vma *v, size_t size)
{
	return strcmp(v->path, "[vdso]") == 0 && v->pgoff == 0 && v->end - v->start == size;
}
