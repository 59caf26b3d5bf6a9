// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Profiles from files for the views: folded text (bpfprof's and
 * stackcollapse-perf's) and pprof (gzip-compressed or not), told apart by
 * their bytes, so the file name does not matter and "-" reads stdin. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "errors.h"
#include "profile.pb-c.h"
#include "vprof.h"

#define MAX_PROFILE_BYTES	(1ull << 30)	/* compressed or not: a bigger profile is refused */

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;

static int read_all(FILE *f, uint8_t **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *b = malloc(cap), *bigger;

	if (!b)
		return -ENOMEM;
	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= MAX_PROFILE_BYTES) {
				free(b);
				return -EFBIG;
			}
			bigger = realloc(b, cap * 2);
			if (!bigger) {
				free(b);
				return -ENOMEM;
			}
			b = bigger;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = n;
	return 0;
}

static int gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream zs = { .next_in = (uint8_t *)in, .avail_in = (uInt)len };
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *b = malloc(cap), *bigger;
	int zerr = Z_OK;

	if (!b || len > UINT32_MAX || inflateInit2(&zs, 16 + 15) != Z_OK) {
		free(b);
		return -ENOMEM;
	}
	while (zerr != Z_STREAM_END) {
		if (n == cap) {
			bigger = cap < MAX_PROFILE_BYTES ? realloc(b, cap * 2) : NULL;
			if (!bigger) {
				zerr = cap < MAX_PROFILE_BYTES ? Z_MEM_ERROR : Z_BUF_ERROR;
				break;
			}
			b = bigger;
			cap *= 2;
		}
		zs.next_out = b + n;
		zs.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		zerr = inflate(&zs, Z_NO_FLUSH);
		n = (size_t)((uint8_t *)zs.next_out - b);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			break;
		if (zerr == Z_OK && zs.avail_in == 0 && zs.avail_out)
			break;	/* truncated */
	}
	inflateEnd(&zs);
	if (zerr != Z_STREAM_END) {
		free(b);
		return zerr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	*out = b;
	*out_len = n;
	return 0;
}

/* A folded frame: its marker says its kind; "file+0x1f" names its file. */
static int64_t folded_frame(struct vprof *v, const char *s, size_t len, char *tmp)
{
	enum vkind kind;
	const char *plus, *dso = "";

	len = vprof__frame_kind(s, len, &kind);
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (kind == VK_KERNEL) {
		dso = "[kernel.kallsyms]";
	} else if ((plus = strstr(tmp, "+0x")) && plus > tmp && !strchr(plus, ' ')) {
		tmp[plus - tmp] = '\0';
		dso = vprof__intern(v, tmp, strlen(tmp));
		tmp[plus - tmp] = '+';
		if (!dso)
			return -1;
	}
	return vprof__frame(v, tmp, dso, kind);
}

/* One line "comm;outer;...;inner COUNT". */
static int folded_line(struct vprof *v, char *line, size_t len, uint32_t **ids, size_t *cap,
		       char *tmp)
{
	char *sp = memrchr(line, ' ', len), *end, *p, *semi;
	uint64_t count;
	uint32_t n = 0;
	int64_t id;

	if (!sp || sp == line || sp[1] < '0' || sp[1] > '9')
		return -EINVAL;
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (errno || end != line + len)
		return -EINVAL;
	*sp = '\0';
	semi = strchr(line, ';');
	if (semi)
		*semi = '\0';
	for (p = semi ? semi + 1 : NULL; p; p = semi ? semi + 1 : NULL) {
		semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (!*p)
			continue;
		if (n == *cap) {
			uint32_t *bigger = realloc(*ids, (*cap * 2) * sizeof(**ids));

			if (!bigger)
				return -ENOMEM;
			*ids = bigger;
			*cap *= 2;
		}
		id = folded_frame(v, p, strlen(p), tmp);
		if (id < 0)
			return -ENOMEM;
		(*ids)[n++] = (uint32_t)id;
	}
	return count ? vprof__add(v, line, 0, *ids, n, count) : 0;
}

static int parse_folded(const char *what, char *buf, size_t len, struct vprof *v)
{
	size_t cap = 64, lineno = 0;
	uint32_t *ids = malloc(cap * sizeof(*ids));
	char *tmp = malloc(len + 1), *line = buf, *nl;
	int err = ids && tmp ? 0 : -ENOMEM;

	while (!err && line < buf + len) {
		char *next;
		size_t n;

		nl = memchr(line, '\n', (size_t)(buf + len - line));
		n = nl ? (size_t)(nl - line) : (size_t)(buf + len - line);
		next = nl ? nl + 1 : buf + len;
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		line[n] = '\0';	/* buf has a byte past its end for the last line */
		if (n && line[0] != '#')
			err = folded_line(v, line, n, &ids, &cap, tmp);
		if (err == -EINVAL)
			p_err("%s:%zu: not a folded stack line "
				"(frame;frame;... COUNT)", what, lineno);
		line = next;
	}
	free(ids);
	free(tmp);
	v->has_comm = true;
	return err;
}

/* The label value of key in a sample, by its string index. */
static const Perftools__Profiles__Label *find_label(const Perftools__Profiles__Sample *s,
						    int64_t key)
{
	size_t i;

	for (i = 0; key > 0 && i < s->n_label; i++)
		if (s->label[i]->key == key)
			return s->label[i];
	return NULL;
}

static const char *pp_string(const Profile *pr, int64_t i)
{
	return i >= 0 && (uint64_t)i < pr->n_string_table ? pr->string_table[i] : "";
}

static int64_t pp_string_index(const Profile *pr, const char *s)
{
	size_t i;

	for (i = 1; i < pr->n_string_table; i++)
		if (!strcmp(pr->string_table[i], s))
			return (int64_t)i;
	return -1;
}

/* By id: ids are usually index + 1, else searched. */
#define PP_FIND(arr, n, want) ({						\
	__typeof__(arr[0]) found_ = NULL;					\
	if ((want) >= 1 && (want) <= (n) && arr[(want) - 1]->id == (want))	\
		found_ = arr[(want) - 1];					\
	for (size_t i_ = 0; !found_ && i_ < (n); i_++)				\
		if (arr[i_]->id == (want))					\
			found_ = arr[i_];					\
	found_; })

/* One location, outermost line first: every line but the last is inlined
 * into the next. Returns frames added or -ENOMEM. */
static int location_frames(struct vprof *v, const Profile *pr, const Location *loc,
			   uint32_t *ids, char *tmp)
{
	const Perftools__Profiles__Mapping *m =
		loc->mapping_id ? PP_FIND(pr->mapping, pr->n_mapping, loc->mapping_id) : NULL;
	const char *dso = m ? pp_string(pr, m->filename) : "";
	bool kernel = !strncmp(dso, "[kernel", 7) || !strcmp(dso, "[vmlinux]");
	int n = 0;
	int64_t id;
	size_t i;

	for (i = loc->n_line; i-- > 0;) {
		const Perftools__Profiles__Function *fn =
			PP_FIND(pr->function, pr->n_function, loc->line[i]->function_id);
		const char *name = fn ? pp_string(pr, fn->name) : "";

		if (!*name)
			continue;
		id = vprof__frame(v, name, dso, kernel ? VK_KERNEL : i ? VK_INLINE : VK_USER);
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	if (n)
		return n;
	/* no function: "file+0xADDR" as bpfprof's folded output writes it */
	snprintf(tmp, 4096, "%s+0x%" PRIx64, *dso ? dso : "[unknown]",
		 loc->address - (m ? m->memory_start - m->file_offset : 0));
	id = vprof__frame(v, tmp, dso, kernel ? VK_KERNEL : VK_USER);
	if (id < 0)
		return -ENOMEM;
	ids[0] = (uint32_t)id;
	return 1;
}

static int pprof_sample(struct vprof *v, const Profile *pr, const Perftools__Profiles__Sample *s,
			size_t value_index, int64_t comm_key, int64_t pid_key, char *tmp)
{
	const Perftools__Profiles__Label *comm = find_label(s, comm_key), *pid = find_label(s, pid_key);
	size_t nids = 0, i, cap = 0;
	uint32_t *ids = NULL;
	int err = 0;

	if (value_index >= s->n_value || s->value[value_index] <= 0)
		return 0;
	for (i = 0; i < s->n_location_id; i++) {
		const Location *loc = PP_FIND(pr->location, pr->n_location, s->location_id[i]);

		cap += loc ? loc->n_line + 1 : 0;
	}
	ids = malloc((cap ? cap : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	/* pprof lists the leaf first */
	for (i = s->n_location_id; !err && i-- > 0;) {
		const Location *loc = PP_FIND(pr->location, pr->n_location, s->location_id[i]);
		int n = loc ? location_frames(v, pr, loc, ids + nids, tmp) : 0;

		if (n < 0)
			err = n;
		else
			nids += (size_t)n;
	}
	if (!err)
		err = vprof__add(v, comm ? pp_string(pr, comm->str) : "", pid ? (pid_t)pid->num : 0,
				 ids, (uint32_t)nids, (uint64_t)s->value[value_index]);
	free(ids);
	return err;
}

static int parse_pprof(const char *what, const uint8_t *buf, size_t len, struct vprof *v)
{
	Profile *pr = perftools__profiles__profile__unpack(NULL, len, buf);
	int64_t comm_key, pid_key;
	char *tmp = malloc(4096);
	size_t i;
	int err = tmp ? 0 : -ENOMEM;

	if (!pr) {
		free(tmp);
		p_err("%s: neither folded stacks nor a pprof profile", what);
		return -EINVAL;
	}
	comm_key = pp_string_index(pr, "comm");
	pid_key = pp_string_index(pr, "pid");
	/* value 0: bpfprof's samples/count, or the first event */
	for (i = 0; !err && i < pr->n_sample; i++)
		err = pprof_sample(v, pr, pr->sample[i], 0, comm_key, pid_key, tmp);
	v->has_comm = comm_key > 0;
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(tmp);
	return err;
}

/* Text: folded. A NUL or control byte in the first KiB: a protobuf. */
static bool looks_binary(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 1024; i++)
		if (buf[i] < 0x09 || (buf[i] > 0x0d && buf[i] < 0x20))
			return true;
	return false;
}

int vprof__parse(const char *what, const uint8_t *buf, size_t len, struct vprof **out)
{
	struct vprof *v = vprof__new();
	uint8_t *plain = NULL;
	char *text;
	int err = v ? 0 : -ENOMEM;

	if (!err && len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		err = gunzip(buf, len, &plain, &len);
		if (err == -EINVAL)
			p_err("%s: corrupt or truncated gzip data", what);
		buf = plain;
	}
	if (!err && looks_binary(buf, len)) {
		err = parse_pprof(what, buf, len, v);
	} else if (!err) {
		text = malloc(len + 1);	/* writable, one byte past the last line */
		err = text ? 0 : -ENOMEM;
		if (text) {
			memcpy(text, buf, len);
			err = parse_folded(what, text, len, v);
		}
		free(text);
	}
	free(plain);
	if (err == -ENOMEM)
		p_err("%s: out of memory", what);
	if (err) {
		vprof__free(v);
		return err;
	}
	*out = v;
	return 0;
}

int vprof__read(const char *path, struct vprof **out)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if (!f) {
		err = -errno;
		p_err("cannot open %s: %s", path, strerror(errno));
		return err;
	}
	err = read_all(f, &buf, &len);
	if (!is_stdin)
		fclose(f);
	if (err) {
		p_err("cannot read %s: %s", is_stdin ? "standard input" : path,
			err == -EFBIG ? "larger than 1 GiB" : strerror(-err));
		return err;
	}
	err = vprof__parse(is_stdin ? "standard input" : path, buf, len, out);
	free(buf);
	return err;
}
