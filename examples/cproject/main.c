/* SPDX-License-Identifier: MIT */
/* The project's program: calls one function of the first module. */
#include <stdio.h>

int mod1_f10(const int *a, int m);

int main(void)
{
	int a[4] = { 1, 2, 3, 4 };

	printf("%d\n", mod1_f10(a, 4));
	return 0;
}
