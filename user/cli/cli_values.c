// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The values options take: counts, seconds, id lists, sizes, formats. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_values.h"

int cli_value__ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out > max)
		return -EINVAL;
	return 0;
}

int cli_value__seconds(const char *s, bool zero_ok, double *out)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !isfinite(*out) || *out < 0 || (*out == 0 && !zero_ok) ||
	    *out > 365.0 * 86400)
		return -EINVAL;
	return 0;
}

int cli_value__ids(const char *list, pid_t **ids, int *nids)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned long id;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid_t *grown;

		if (cli_value__ulong(tok, INT_MAX, &id) || id == 0) {
			err = -EINVAL;
			break;
		}
		grown = realloc(*ids, (*nids + 1) * sizeof(*grown));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		*ids = grown;
		(*ids)[(*nids)++] = (pid_t)id;
	}
	if (!err && *nids == 0)
		err = -EINVAL;
	free(copy);
	return err;
}

int cli_value__size(const char *s, unsigned long long *out)
{
	unsigned long long mult = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	else if (*end)
		return -EINVAL;
	if (mult > 1 && end[1])
		return -EINVAL;
	if (*out == 0 || *out > (1ull << 50) / mult)
		return -EINVAL;
	*out *= mult;
	return 0;
}

int cli_value__format(const char *s, enum out_format *out)
{
	*out = formats__by_name(s);
	return *out == FORMAT_AUTO ? -EINVAL : 0;
}
