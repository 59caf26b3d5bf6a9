/* A tiny PIE for the elf_syms seed corpus: local, global, weak-alias,
 * ifunc and size-less (assembly) functions. */
#include <stdio.h>

static int __attribute__((noinline)) local_fn(int x) { return x * 3 + 1; }
int global_fn(int x) { return local_fn(x) ^ 0x55; }
int alias_fn(int x) __attribute__((weak, alias("global_fn")));
static int impl(int x) { return x + 7; }
static int (*resolve(void))(int) { return impl; }
int ifunc_fn(int x) __attribute__((ifunc("resolve")));
__asm__(".text\n.globl sizeless_fn\n.type sizeless_fn,@function\nsizeless_fn:\n\tmov %edi,%eax\n\tret\n");
int sizeless_fn(int);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", global_fn(argc) + alias_fn(argc) + ifunc_fn(argc) + sizeless_fn(argc));
	return 0;
}
