// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Growing arrays (grow.h). */
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"

#define FIRST_BYTES	4096	/* the first allocation: a page's worth */

int grow__to(void *arrp, size_t *cap, size_t need, size_t size, size_t max)
{
	size_t c = *cap ? *cap : (size < FIRST_BYTES ? FIRST_BYTES / size : 1);
	void *grown;

	/* a first call allocates even for need 0: callers hand the array to
	 * qsort, bsearch and memcpy, which take no NULL */
	if (need <= *cap && *(void **)arrp)
		return 0;
	if (need > max)
		return -ENOMEM;
	while (c < need)
		c = c > SIZE_MAX / 2 ? SIZE_MAX : c * 2;
	if (c > max)
		c = max;
	grown = reallocarray(*(void **)arrp, c, size);
	if (!grown)
		return -ENOMEM;
	*(void **)arrp = grown;
	*cap = c;
	return 0;
}
