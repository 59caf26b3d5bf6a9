void _start(void) { for (;;) __asm__ volatile("" ::: "memory"); }
int helper(int x) { return x + 1; }
