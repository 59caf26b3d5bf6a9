// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --group-by's root frames: a label's value, as the cgroup's path names it. */
#include <stdio.h>
#include <string.h>

#include "base/cgroup_name.h"
#include "profile/group_by.h"

/* What the cgroup's path says for the label, "" when it says nothing. */
static const char *cgroup_value(enum group_by by, const struct pcgroup *cg,
				struct cgroup_name *name)
{
	if (!cg || !cg->path || !cg->path[0])
		return by == GROUP_CGROUP ? "unknown" : "";
	if (by == GROUP_CGROUP)
		return cg->path;
	cgroup_name__parse(cg->path, name);
	return by == GROUP_CONTAINER ? name->container : by == GROUP_POD ? name->pod : name->unit;
}

const char *group_by__root(const struct profile *p, const struct psample *s,
			   struct group_root *memo)
{
	enum group_by by = p->group_by;
	struct cgroup_name name;
	const char *value;

	if (by <= GROUP_NONE || by >= GROUP_MAX)
		return NULL;
	if (by == GROUP_PID) {
		if (memo->tgid != s->tgid || !memo->text[0])
			snprintf(memo->text, sizeof(memo->text), "pid:%d", (int)s->tgid);
		memo->tgid = s->tgid;
		return memo->text;
	}
	if (memo->cgroup == s->cgroup && memo->text[0])
		return memo->text;
	value = cgroup_value(by, s->cgroup, &name);
	snprintf(memo->text, sizeof(memo->text), "%s:%s", group_by__word(by), value[0] ? value : "none");
	memo->cgroup = s->cgroup;
	return memo->text;
}
