// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/symbols/ksyms.c, the /proc/kallsyms parser. The input is the
 * file's bytes: parsed from memory (ksyms__parse) and read from a file
 * (ksyms__load, through a memfd); both must agree. Then ksyms__find at the
 * addresses the input's lines start with, their neighbours and the ends of
 * the address space, with the lookup's invariants checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/ksyms.h"
#include "fuzz_check.h"

#define MAX_PROBED_LINES	64

static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = fuzz_memfd("fuzz_ksyms");
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	return 0;
}

static const struct ksym *find(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *sym = ksyms__find(ks, addr);
	const char *name, *module;

	if (!sym)
		return NULL;
	CHECK(sym->addr != 0 && sym->addr <= addr);
	name = ksyms__name(ks, sym);
	module = ksyms__module(ks, sym);
	CHECK(name && strlen(name) > 0);
	CHECK(!strchr(name, '\n') && !strchr(name, '\t'));
	if (module)
		CHECK(strlen(module) > 0 && !strchr(module, ']'));
	/* The first alias answers for its address, and for itself. */
	CHECK(ksyms__find(ks, sym->addr) == sym);
	if (addr != sym->addr)
		CHECK(ksyms__find(ks, addr - 1) == sym);
	return sym;
}

/* The hex address a line starts with, as kallsyms writes it. */
static bool line_addr(const uint8_t *p, const uint8_t *end, uint64_t *addr)
{
	uint64_t v = 0;
	int n = 0, d;

	for (; p < end && n < 16; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return n > 0;
}

static void probe(const struct ksyms *ks, const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *nl;
	uint64_t addr;
	int lines = 0;

	find(ks, 0);
	find(ks, 1);
	find(ks, UINT64_MAX);
	while (p < end && lines++ < MAX_PROBED_LINES) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (line_addr(p, nl ? nl : end, &addr)) {
			find(ks, addr);
			find(ks, addr + 1);
			find(ks, addr - 1);
			find(ks, addr + (1u << 20));
		}
		p = nl ? nl + 1 : end;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *parsed, *loaded;
	int err_parsed, err_loaded;

	errno = 0;
	parsed = ksyms__parse((const char *)data, size);
	err_parsed = errno;
	fuzz_fill_memfd(memfd, data, size);
	errno = 0;
	loaded = ksyms__load(memfd_path);
	err_loaded = errno;

	if (!parsed)
		CHECK(err_parsed == ENODATA || err_parsed == ENOMEM);
	CHECK(!parsed == !loaded);
	CHECK(parsed || err_parsed == err_loaded);
	CHECK(ksyms__count(parsed) == ksyms__count(loaded));
	if (parsed) {
		CHECK(ksyms__count(parsed) > 0);
		probe(parsed, data, size);
		/* Same answers from both. */
		for (size_t i = 0; i + 8 <= size && i < 8 * 16; i += 8) {
			uint64_t addr;
			const struct ksym *a, *b;

			memcpy(&addr, data + i, sizeof(addr));
			a = ksyms__find(parsed, addr);
			b = ksyms__find(loaded, addr);
			CHECK(!a == !b);
			CHECK(!a || (a->addr == b->addr && !strcmp(ksyms__name(parsed, a), ksyms__name(loaded, b))));
		}
	}
	ksyms__free(parsed);
	ksyms__free(loaded);
	return 0;
}
