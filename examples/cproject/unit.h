/* SPDX-License-Identifier: MIT */
/* One module of the project: MOD's 30 functions, enough work for the
 * compiler (about 0.3 s of cc1 at -O2 each) that a profile of the build
 * is mostly cc1. Each mod*.c includes it with its own MOD. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(n) int CAT(CAT(mod, MOD), _f##n)(const int *a, int m) \
	{ int s = 0; for (int i = 0; i < m; i++) { s += a[i] * n; if (s > 1000) s -= a[i / 2] ^ n; \
	  else if (s < -1000) s += a[(i * 7) % (m ? m : 1)] | n; } return s; }
#define G(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
G(1) G(2) G(3)
