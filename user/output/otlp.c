// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* profile -> ExportProfilesServiceRequest (protobuf-c, generated from the
 * upstream .proto files in user/output/proto/): a ResourceProfiles per
 * process, as the OTel eBPF profiler shapes them, each with a Profile per
 * event over the request's one dictionary (otlp_dict.c). */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cgroup_name.h"
#include "base/grow.h"
#include "base/utf8_safe.h"
#include "output/frame_kind.h"
#include "output/otlp.h"
#include "output/otlp_dict.h"
#include "output/sample_kind.h"
#include "output/otlp_env.h"

#define PROC_ATTRS	8	/* pid, exe path and name, cgroup, container, pod, unit */

/* One Profile of a resource: its samples, each identity once (the spec's
 * {stack, attributes, link}: samples alike are one, values summed). */
struct event_samples {
	Sample **items;
	size_t cap;
	void *tree;		/* struct sample_block by identity */
};

/* One Sample, its value and its attributes in one block. */
struct sample_block {
	Sample s;
	int64_t value;
	int32_t attrs[2];	/* thread.id, thread.name */
};

/* A process (by pid and the cgroup it ran in) and its ResourceProfiles. */
struct proc_res {
	pid_t tgid;
	const struct pcgroup *cg;
	const struct pframe *exe;	/* its executable's frame; NULL: unknown */
	char *exe_path, *cgroup_line;	/* well-formed UTF-8 copies */
	struct cgroup_name names;
	ResourceProfiles rp;
	ScopeProfiles sp, *sps[1];
	Resource res;
	KeyValue kv[PROC_ATTRS], **kv_ptrs;
	AnyValue v[PROC_ATTRS];
	Profile profiles[MAX_EVENTS], *profile_ptrs[MAX_EVENTS];
	ValueType types[MAX_EVENTS][2];
	struct event_samples ev[MAX_EVENTS];
};

/* The messages around the dictionary, for one request. */
struct request {
	Request req;
	Dictionary dict;
	Link zero_link, *links[1];
	Scope scope;
	struct otlp_env env;		/* host.name, service.name, the environment's */
	struct proc_res **procs;	/* by pid */
	size_t nprocs, cap_procs;
	void *proc_tree;		/* struct proc_res by (tgid, cgroup) */
	ResourceProfiles **rps;
	struct proc_res host;		/* the resource of a profile with no samples */
	/* each event's, and what its values are called (sample_kind.h) */
	struct pevent spare[MAX_EVENTS];
	const struct pevent *events[MAX_EVENTS];
	struct sample_kind kinds[MAX_EVENTS];
};

static const uint8_t zero_trace_id[16], zero_span_id[8];

static int cmp_proc(const void *pa, const void *pb)
{
	const struct proc_res *a = pa, *b = pb;
	uint64_t ida = a->cg ? a->cg->id : 0, idb = b->cg ? b->cg->id : 0;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	return (ida > idb) - (ida < idb);
}

static int cmp_proc_ptr(const void *pa, const void *pb)
{
	return cmp_proc(*(struct proc_res *const *)pa, *(struct proc_res *const *)pb);
}

/* The resource of ps's process, made on first sight. */
static struct proc_res *proc_of(struct enc *e, struct request *r, const struct psample *ps)
{
	struct proc_res key = { .tgid = ps->tgid, .cg = ps->cgroup }, *pr, **found;

	found = tfind(&key, &r->proc_tree, cmp_proc);
	if (found)
		return *found;
	pr = calloc(1, sizeof(*pr));
	if (pr)
		*pr = key;	/* before it is placed in the tree by it */
	if (!pr || GROW(r->procs, r->cap_procs, r->nprocs + 1) || !tsearch(pr, &r->proc_tree, cmp_proc)) {
		free(pr);
		e->err = -ENOMEM;
		return NULL;
	}
	r->procs[r->nprocs++] = pr;
	return pr;
}

/* Every process's resource, and its executable: the lowest file its
 * samples ran in (frame_kind.h), over the whole interval, so that a
 * thread whose stack does not reach the executable still names it. */
static void find_procs(struct enc *e, struct request *r, const struct profile *p)
{
	const struct pframe *f;
	struct proc_res *pr;

	for (size_t i = 0; i < p->nsamples && !e->err; i++) {
		pr = proc_of(e, r, &p->samples[i]);
		f = pr ? frame_kind__sample_exe(&p->samples[i]) : NULL;
		if (f && (!pr->exe || f->map_start < pr->exe->map_start))
			pr->exe = f;
	}
	if (r->nprocs)
		qsort(r->procs, r->nprocs, sizeof(*r->procs), cmp_proc_ptr);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample_block *a = pa, *b = pb;

	if (a->s.stack_index != b->s.stack_index)
		return a->s.stack_index < b->s.stack_index ? -1 : 1;
	return memcmp(a->attrs, b->attrs, sizeof(a->attrs));
}

/* ps into its process's Profile: a new Sample, or its count added to the
 * one alike. The thread's id and name are the sample's attributes. */
static void add_sample(struct enc *e, struct proc_res *pr, Profile *prof, struct event_samples *es,
		       const struct psample *ps, int64_t value)
{
	struct sample_block *blk = calloc(1, sizeof(*blk)), **found;
	char comm[TASK_COMM_LEN];

	if (!blk || GROW(es->items, es->cap, prof->n_samples + 1)) {
		free(blk);
		e->err = -ENOMEM;
		return;
	}
	memcpy(comm, ps->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	opentelemetry__proto__profiles__v1development__sample__init(&blk->s);
	blk->s.stack_index = otlp_dict__stack(e, ps, pr->exe_path ? pr->exe_path : "");
	blk->attrs[0] = otlp_dict__attr_int(e, "thread.id", ps->pid);
	blk->attrs[1] = otlp_dict__attr_str(e, "thread.name", comm);
	blk->value = value;
	found = e->err ? NULL : tsearch(blk, &es->tree, cmp_sample);
	if (!found || *found != blk) {
		if (found)
			(*found)->value += blk->value;
		else
			e->err = -ENOMEM;
		free(blk);
		return;
	}
	blk->s.values = &blk->value;
	blk->s.n_values = 1;
	blk->s.attribute_indices = blk->attrs;
	blk->s.n_attribute_indices = 2;
	es->items[prof->n_samples++] = &blk->s;
}

/* Each event of p and what its values are called, once a request. */
static void event_kinds(struct request *r, const struct profile *p)
{
	for (int ev = 0; ev < (p->nevents > 1 ? p->nevents : 1) && ev < MAX_EVENTS; ev++) {
		r->events[ev] = sample_kind__event(p, ev, &r->spare[ev]);
		sample_kind__of(r->events[ev], &r->kinds[ev]);
	}
}

/* The profile's sample type and period for event ev: the event's first
 * pprof sample type (sample_kind.h): CPU time as samples of the period,
 * as the OTel eBPF profiler sends it and Pyroscope takes it
 * (samples:count:cpu:nanoseconds); off-CPU time as off_cpu/nanoseconds,
 * without a period (Pyroscope's off_cpu). */
static void value_types(struct enc *e, const struct request *r, Profile *pr, ValueType *t, int ev)
{
	const struct pevent *pe = r->events[ev];
	const struct sample_kind *k = &r->kinds[ev];

	opentelemetry__proto__profiles__v1development__value_type__init(&t[0]);
	opentelemetry__proto__profiles__v1development__value_type__init(&t[1]);
	t[0].type_strindex = otlp_dict__str(e, k->type[0]);
	t[0].unit_strindex = otlp_dict__str(e, k->unit[0]);
	pr->sample_type = &t[0];
	if (pe->kind != PEVENT_OFFCPU && k->period) {
		t[1].type_strindex = otlp_dict__str(e, k->period_type);
		t[1].unit_strindex = otlp_dict__str(e, k->period_unit);
		pr->period_type = &t[1];
		pr->period = k->period;
	}
}

/* Profile ev of a resource: its type and the interval; the samples come
 * after. */
static void init_profile(struct enc *e, const struct request *r, struct proc_res *pr,
			 const struct profile *p, int ev)
{
	Profile *prof = &pr->profiles[ev];

	opentelemetry__proto__profiles__v1development__profile__init(prof);
	value_types(e, r, prof, pr->types[ev], ev);
	prof->time_unix_nano = p->stats.start_wall_ns;
	prof->duration_nano = profile_stats__duration_ns(&p->stats);
}

/* Every sample into its process's Profile of its event; a process's
 * Profiles are those of the events it has samples of. */
static void add_samples(struct enc *e, struct request *r, const struct profile *p)
{
	int nprof = p->nevents > 1 ? p->nevents : 1, ev;
	struct proc_res *pr;
	Profile *prof;

	for (size_t i = 0; i < p->nsamples && !e->err; i++) {
		ev = nprof > 1 && p->samples[i].event < (uint32_t)nprof ? (int)p->samples[i].event : 0;
		pr = proc_of(e, r, &p->samples[i]);
		if (!pr)
			return;
		prof = &pr->profiles[ev];
		if (!prof->base.descriptor)
			init_profile(e, r, pr, p, ev);
		/* in the sample type's unit */
		add_sample(e, pr, prof, &pr->ev[ev], &p->samples[i],
			   sample_kind__value(&r->kinds[ev], r->events[ev], &p->samples[i], 0));
		prof->samples = pr->ev[ev].items;
	}
}

static KeyValue *put_attr(struct proc_res *pr, const char *key, const char *str, int64_t num)
{
	size_t i = pr->res.n_attributes;

	opentelemetry__proto__common__v1__key_value__init(&pr->kv[i]);
	opentelemetry__proto__common__v1__any_value__init(&pr->v[i]);
	pr->kv[i].key = (char *)key;
	pr->kv[i].value = &pr->v[i];
	if (str) {
		pr->v[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
		pr->v[i].string_value = (char *)str;
	} else {
		pr->v[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
		pr->v[i].int_value = num;
	}
	pr->kv_ptrs[pr->res.n_attributes++] = &pr->kv[i];
	return &pr->kv[i];
}

/* The process's attributes as the semantic conventions name them, then
 * the host's and the environment's; an attribute the process has wins
 * over the environment's of the same key. */
static int proc_attrs(struct request *r, struct proc_res *pr)
{
	const char *path = pr->cg && pr->cg->path ? pr->cg->path : "";
	const char *name;

	pr->kv_ptrs = calloc(PROC_ATTRS + r->env.n, sizeof(*pr->kv_ptrs));
	pr->cgroup_line = path[0] ? malloc(strlen(path) + 4) : NULL;
	if (!pr->kv_ptrs || (path[0] && !pr->cgroup_line))
		return -ENOMEM;
	opentelemetry__proto__resource__v1__resource__init(&pr->res);
	pr->res.attributes = pr->kv_ptrs;
	put_attr(pr, "process.pid", NULL, pr->tgid);
	if (pr->exe_path) {
		name = strrchr(pr->exe_path, '/');
		put_attr(pr, "process.executable.path", pr->exe_path, 0);
		put_attr(pr, "process.executable.name", name ? name + 1 : pr->exe_path, 0);
	}
	if (path[0]) {
		/* as /proc/PID/cgroup has it: the v2 hierarchy's line */
		sprintf(pr->cgroup_line, "0::%s", path);
		if (!utf8_safe__valid(pr->cgroup_line))
			pr->cgroup_line[3] = '\0';	/* cgroup names are checked: a bad one is none */
		if (pr->cgroup_line[3])
			put_attr(pr, "process.linux.cgroup", pr->cgroup_line, 0);
	}
	cgroup_name__parse(path, &pr->names);
	if (pr->names.container[0])
		put_attr(pr, "container.id", pr->names.container, 0);
	if (pr->names.pod[0])
		put_attr(pr, "k8s.pod.uid", pr->names.pod, 0);
	if (pr->names.unit[0])
		put_attr(pr, OTLP_SYSTEMD_UNIT_KEY, pr->names.unit, 0);
	otlp_env__append(&r->env, pr->res.attributes, &pr->res.n_attributes);
	return 0;
}

/* A process's ResourceProfiles: its resource, the scope, its Profiles. */
static int resource_profiles(struct request *r, struct proc_res *pr, int nprof)
{
	int err = pr == &r->host ? 0 : proc_attrs(r, pr);

	if (err)
		return err;
	if (pr == &r->host) {
		pr->kv_ptrs = calloc(r->env.n + 1, sizeof(*pr->kv_ptrs));
		if (!pr->kv_ptrs)
			return -ENOMEM;
		opentelemetry__proto__resource__v1__resource__init(&pr->res);
		pr->res.attributes = pr->kv_ptrs;
		otlp_env__append(&r->env, pr->res.attributes, &pr->res.n_attributes);
	}
	opentelemetry__proto__profiles__v1development__resource_profiles__init(&pr->rp);
	opentelemetry__proto__profiles__v1development__scope_profiles__init(&pr->sp);
	for (int ev = 0; ev < nprof; ev++)
		if (pr->profiles[ev].base.descriptor)
			pr->profile_ptrs[pr->sp.n_profiles++] = &pr->profiles[ev];
	pr->sp.scope = &r->scope;
	pr->sp.profiles = pr->profile_ptrs;
	pr->sp.schema_url = OTLP_SCHEMA_URL;
	pr->sps[0] = &pr->sp;
	pr->rp.resource = &pr->res;
	pr->rp.scope_profiles = pr->sps;
	pr->rp.n_scope_profiles = 1;
	pr->rp.schema_url = OTLP_SCHEMA_URL;
	return 0;
}

/* The resources: one per process; a profile without samples still says
 * its interval and whose it is, by one resource of the host's. */
static void resources(struct enc *e, struct request *r, const struct profile *p)
{
	int nprof = p->nevents > 1 ? p->nevents : 1;
	size_t n = r->nprocs ? r->nprocs : 1;

	r->rps = calloc(n, sizeof(*r->rps));
	if (!r->rps) {
		e->err = -ENOMEM;
		return;
	}
	if (!r->nprocs)
		for (int ev = 0; ev < nprof; ev++)
			init_profile(e, r, &r->host, p, ev);
	for (size_t i = 0; i < n && !e->err; i++) {
		struct proc_res *pr = r->nprocs ? r->procs[i] : &r->host;

		e->err = resource_profiles(r, pr, nprof);
		r->rps[r->req.n_resource_profiles++] = &pr->rp;
	}
	r->req.resource_profiles = r->rps;
}

static void dictionary(struct enc *e, struct request *r)
{
	Dictionary *d = &r->dict;

	opentelemetry__proto__profiles__v1development__profiles_dictionary__init(d);
	/* link_table[0]: ids of 16 and 8 zero bytes, as the spec asks */
	opentelemetry__proto__profiles__v1development__link__init(&r->zero_link);
	r->zero_link.trace_id = (ProtobufCBinaryData){ sizeof(zero_trace_id), (uint8_t *)zero_trace_id };
	r->zero_link.span_id = (ProtobufCBinaryData){ sizeof(zero_span_id), (uint8_t *)zero_span_id };
	r->links[0] = &r->zero_link;
	d->link_table = r->links;
	d->n_link_table = 1;
	d->string_table = (char **)e->strings.items;
	d->n_string_table = e->strings.n;
	d->attribute_table = (KeyValueAndUnit **)e->attrs.items;
	d->n_attribute_table = e->attrs.n;
	d->function_table = (Function **)e->functions.items;
	d->n_function_table = e->functions.n;
	d->mapping_table = (Mapping **)e->mappings.items;
	d->n_mapping_table = e->mappings.n;
	d->location_table = (Location **)e->locations.items;
	d->n_location_table = e->locations.n;
	d->stack_table = (Stack **)e->stacks.items;
	d->n_stack_table = e->stacks.n;
	r->req.dictionary = d;
}

static void request(struct enc *e, struct request *r, const struct profile *p)
{
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__init(&r->req);
	opentelemetry__proto__common__v1__instrumentation_scope__init(&r->scope);
	otlp_dict__init(e);
	r->scope.name = "bpfprof";
	r->scope.version = BPFPROF_VERSION;
	if (otlp_env__read(&r->env))
		e->err = -ENOMEM;
	event_kinds(r, p);
	if (!e->err)
		find_procs(e, r, p);
	/* the exe paths first: the frame types of the stacks depend on them */
	for (size_t i = 0; i < r->nprocs && !e->err; i++)
		if (r->procs[i]->exe && !(r->procs[i]->exe_path = utf8_safe__dup(r->procs[i]->exe->mapping)))
			e->err = -ENOMEM;
	if (!e->err)
		add_samples(e, r, p);
	if (!e->err)
		resources(e, r, p);
	dictionary(e, r);
}

/* The trees point at what the arrays own. */
static void keep_node(void *node)
{
	(void)node;
}

static void free_proc(struct proc_res *pr)
{
	for (int ev = 0; ev < MAX_EVENTS; ev++) {
		for (size_t k = 0; k < pr->profiles[ev].n_samples; k++)
			free(pr->ev[ev].items[k]);	/* the sample_block */
		tdestroy(pr->ev[ev].tree, keep_node);
		free(pr->ev[ev].items);
	}
	free(pr->kv_ptrs);
	free(pr->exe_path);
	free(pr->cgroup_line);
}

static void free_request(struct enc *e, struct request *r)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		free_proc(r->procs[i]);
		free(r->procs[i]);
	}
	free_proc(&r->host);
	tdestroy(r->proc_tree, keep_node);
	free(r->procs);
	free(r->rps);
	otlp_env__free(&r->env);
	otlp_dict__free(e);
	free(r);
}

int otlp__write(const struct profile *p, FILE *out)
{
	struct request *r = calloc(1, sizeof(*r));
	struct enc e = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if (!r)
		return -ENOMEM;
	request(&e, r, p);
	err = e.err;
	if (!err) {
		len = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__get_packed_size(&r->req);
		buf = malloc(len ? len : 1);
		err = buf ? 0 : -ENOMEM;
	}
	if (!err) {
		opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__pack(&r->req, buf);
		if (fwrite(buf, 1, len, out) != len || fflush(out))
			err = errno ? -errno : -EIO;
	}
	free(buf);
	free_request(&e, r);
	return err;
}
