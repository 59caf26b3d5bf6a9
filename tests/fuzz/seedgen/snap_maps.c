/* Writes maps_snapshot (its own /proc/self/maps, with a deleted file, a
 * name with spaces and a memfd mapped executable) and vdso.so (its vDSO
 * image) into the current directory: seeds for proc_maps and elf_syms. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), s, e;
	char line[4096];
	FILE *f, *out;
	int fd;

	/* a deleted file, a name with spaces, a memfd: mapped executable */
	fd = open("gone.so", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ftruncate(fd, 8192);
	mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	unlink("gone.so");
	fd = open("with space (x).so", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ftruncate(fd, 4096);
	mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	fd = memfd_create("jit-code", 0);
	ftruncate(fd, 4096);
	mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);

	f = fopen("/proc/self/maps", "r");
	out = fopen("maps_snapshot", "w");
	while (fgets(line, sizeof(line), f)) {
		fputs(line, out);
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &s, &e) == 2 && s == base) {
			FILE *v = fopen("vdso.so", "w");
			fwrite((void *)s, 1, e - s, v);
			fclose(v);
		}
	}
	fclose(out);
	return 0;
}
