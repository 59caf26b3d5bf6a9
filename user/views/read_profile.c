// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Profiles from files for the views: folded text (bpfprof's and
 * stackcollapse-perf's) and pprof (gzip-compressed or not). pprof is told by
 * decoding it, folded is what is not pprof, so the file name does not matter
 * and "-" reads stdin. A folded line holds any bytes but a newline: the
 * text is taken as it is (names as bpfprof's writer escaped them), a NUL
 * byte, which a C string cannot hold, becomes the text \x00. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "errors.h"
#include "profile.pb-c.h"
#include "vprof.h"

/* compressed or not: a bigger profile is refused (memory is bounded by it) */
#define MAX_PROFILE_BYTES	((size_t)1 << 30)
#define MAX_PROFILE_TEXT	"1 GiB"
#define READ_CAP		(MAX_PROFILE_BYTES + 1)	/* a byte more: the limit was passed */

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;

/* Reads fd to its end, at most MAX_PROFILE_BYTES (-EFBIG past it); size:
 * the file's size when known, else 0. */
static int read_all(int fd, size_t size, uint8_t **buf, size_t *len)
{
	size_t cap = size < (1 << 16) ? 1 << 16 : size + 1, n = 0;
	uint8_t *b = malloc(cap), *bigger;
	ssize_t got;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			size_t grown = cap < READ_CAP / 2 ? cap * 2 : READ_CAP;

			bigger = cap < READ_CAP ? realloc(b, grown) : NULL;
			if (!bigger) {
				free(b);
				return cap < READ_CAP ? -ENOMEM : -EFBIG;
			}
			b = bigger;
			cap = grown;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (got < 0) {
		int err = -errno;

		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* gzip data inflated, at most MAX_PROFILE_BYTES of it: -EFBIG past them
 * (a gzip bomb), -EINVAL when corrupt or cut. */
static int gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream zs = { .next_in = (uint8_t *)in, .avail_in = (uInt)len };
	size_t cap = len < MAX_PROFILE_BYTES / 4 ? len * 4 + 4096 : MAX_PROFILE_BYTES, n = 0;
	uint8_t *b = malloc(cap), *bigger;
	int zerr = Z_OK;

	if (!b || len > UINT32_MAX || inflateInit2(&zs, 16 + 15) != Z_OK) {
		free(b);
		return -ENOMEM;
	}
	while (zerr != Z_STREAM_END) {
		if (n == cap) {
			if (cap == MAX_PROFILE_BYTES) {
				zerr = Z_BUF_ERROR;	/* more to come: past the limit */
				break;
			}
			bigger = realloc(b, cap < MAX_PROFILE_BYTES / 2 ? cap * 2 : MAX_PROFILE_BYTES);
			if (!bigger) {
				zerr = Z_MEM_ERROR;
				break;
			}
			b = bigger;
			cap = cap < MAX_PROFILE_BYTES / 2 ? cap * 2 : MAX_PROFILE_BYTES;
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
		return zerr == Z_MEM_ERROR ? -ENOMEM : n == MAX_PROFILE_BYTES ? -EFBIG : -EINVAL;
	}
	*out = b;
	*out_len = n;
	return 0;
}

/* A folded frame (NUL-terminated in the line, which is ours to write: its
 * marker is cut off in place, no copy): the marker says its kind;
 * "file+0x1f" names its file. */
static int64_t folded_frame(struct vprof *v, char *s, size_t len)
{
	enum vkind kind;
	const char *dso = "";
	char *plus;

	len = vprof__frame_kind(s, len, &kind);
	s[len] = '\0';
	if (kind == VK_KERNEL) {
		dso = "[kernel.kallsyms]";
	} else if ((plus = strstr(s, "+0x")) && plus > s && !strchr(plus, ' ')) {
		dso = vprof__intern(v, s, (size_t)(plus - s));
		if (!dso)
			return -1;
	}
	return vprof__frame(v, s, dso, kind);
}

/* One line "comm;outer;...;inner COUNT". */
static int folded_line(struct vprof *v, char *line, size_t len, uint32_t **ids, size_t *cap)
{
	char *sp = memrchr(line, ' ', len), *end, *p, *semi;
	uint64_t count;
	uint32_t n = 0;
	int64_t id;

	if (!sp || sp == line || sp[1] < '0' || sp[1] > '9')
		return -EINVAL;
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (end != line + len)
		return -EINVAL;
	if (errno)
		return -ERANGE;
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
		id = folded_frame(v, p, strlen(p));
		if (id < 0)
			return -ENOMEM;
		(*ids)[n++] = (uint32_t)id;
	}
	return count ? vprof__add(v, line, 0, *ids, n, count) : 0;
}

/* The one line that says why line lineno was refused. binary: the bytes
 * did not look like text either. */
static void folded_error(const char *what, size_t lineno, int err, bool binary)
{
	if (err == -EINVAL && binary)
		p_err("%s: neither folded stacks nor a pprof profile (line %zu is not "
		      "frame;frame;... COUNT)", what, lineno);
	else if (err == -EINVAL)
		p_err("%s:%zu: not a folded stack line (frame;frame;... COUNT)", what, lineno);
	else if (err == -ERANGE)
		p_err("%s:%zu: the count does not fit in 64 bits", what, lineno);
	else if (err == -EOVERFLOW)
		p_err("%s:%zu: the sample counts add up past 2^64-1", what, lineno);
}

static int parse_folded(const char *what, char *buf, size_t len, bool binary, struct vprof *v)
{
	size_t cap = 64, lineno = 0;
	uint32_t *ids = malloc(cap * sizeof(*ids));
	char *line = buf, *nl;
	int err = ids ? 0 : -ENOMEM;

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
			err = folded_line(v, line, n, &ids, &cap);
		folded_error(what, lineno, err, binary);
		line = next;
	}
	free(ids);
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

/* A pprof list's entries by id: (id, index) sorted once, searched in
 * O(log n) (ids need not be index + 1: a search each would be quadratic). */
struct id_at {
	uint64_t id;
	size_t at;
};

struct pp_index {
	struct id_at *e;
	size_t n;
};

static int id_at_cmp(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : (x->at > y->at) - (x->at < y->at);
}

/* x of the count entries of arr (Location **, Function **, Mapping **); 0 or -ENOMEM */
#define PP_INDEX(x, arr, count) ({								\
	(x)->n = (count);									\
	(x)->e = malloc(((count) ? (count) : 1) * sizeof(*(x)->e));				\
	for (size_t i_ = 0; (x)->e && i_ < (count); i_++)					\
		(x)->e[i_] = (struct id_at){ .id = (arr)[i_]->id, .at = i_ };		\
	if ((x)->e)									\
		qsort((x)->e, (count), sizeof(*(x)->e), id_at_cmp);				\
	(x)->e ? 0 : -ENOMEM; })

/* The index of id's entry (the first listed of equal ids), SIZE_MAX if none. */
static size_t pp_index__find(const struct pp_index *x, uint64_t id)
{
	size_t lo = 0, hi = x->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->e[lo].id == id ? x->e[lo].at : SIZE_MAX;
}

/* Frames of one sample, at most: bpfprof writes 127 user and 127 kernel
 * locations, each a few lines when inlined; Go's pprof keeps 128 and
 * async-profiler 2048 by default. 4096 leaves room for all of them while
 * a crafted sample (one location id repeated 10^6 times, each of many
 * lines) is refused rather than made a stack of millions. */
#define MAX_SAMPLE_FRAMES	4096
/* Frames of all samples (a uint32_t each): memory bounded by the limit. */
#define MAX_PROFILE_FRAMES	(MAX_PROFILE_BYTES / sizeof(uint32_t))

/* A pprof profile being read: its id tables and one sample's frames. */
struct pp_reader {
	const Profile *pr;
	struct pp_index loc, fn, map;
	uint32_t ids[MAX_SAMPLE_FRAMES];
	size_t frames;		/* of all samples so far */
	char name[4096];	/* "file+0xADDR" */
};

/* One location, outermost line first: every line but the last is inlined
 * into the next. Returns the frames added to ids (room for at most room),
 * -E2BIG past room or -ENOMEM. */
static int location_frames(struct vprof *v, struct pp_reader *r, const Location *loc,
			   uint32_t *ids, size_t room)
{
	const Profile *pr = r->pr;
	size_t mi = loc->mapping_id ? pp_index__find(&r->map, loc->mapping_id) : SIZE_MAX;
	const Perftools__Profiles__Mapping *m = mi != SIZE_MAX ? pr->mapping[mi] : NULL;
	const char *dso = m ? pp_string(pr, m->filename) : "";
	bool kernel = !strncmp(dso, "[kernel", 7) || !strcmp(dso, "[vmlinux]");
	size_t n = 0, i;
	int64_t id;

	for (i = loc->n_line; i-- > 0;) {
		size_t fi = pp_index__find(&r->fn, loc->line[i]->function_id);
		const char *name = fi != SIZE_MAX ? pp_string(pr, pr->function[fi]->name) : "";

		if (!*name)
			continue;
		if (n == room)
			return -E2BIG;
		id = vprof__frame(v, name, dso, kernel ? VK_KERNEL : i ? VK_INLINE : VK_USER);
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	if (n)
		return (int)n;
	if (!room)
		return -E2BIG;
	/* no function: "file+0xADDR" as bpfprof's folded output writes it */
	snprintf(r->name, sizeof(r->name), "%s+0x%" PRIx64, *dso ? dso : "[unknown]",
		 loc->address - (m ? m->memory_start - m->file_offset : 0));
	id = vprof__frame(v, r->name, dso, kernel ? VK_KERNEL : VK_USER);
	if (id < 0)
		return -ENOMEM;
	ids[0] = (uint32_t)id;
	return 1;
}

/* One sample: 0, -ENOMEM, -EOVERFLOW (the counts' sum), -E2BIG (more than
 * MAX_SAMPLE_FRAMES frames) or -EFBIG (the frames of all samples past
 * MAX_PROFILE_FRAMES). */
static int pprof_sample(struct vprof *v, struct pp_reader *r, const Perftools__Profiles__Sample *s,
			size_t value_index, int64_t comm_key, int64_t pid_key)
{
	const Perftools__Profiles__Label *comm = find_label(s, comm_key), *pid = find_label(s, pid_key);
	size_t nids = 0, i, at;
	int n;

	if (value_index >= s->n_value || s->value[value_index] <= 0)
		return 0;
	if (s->n_location_id > MAX_SAMPLE_FRAMES)
		return -E2BIG;	/* each location is a frame at least */
	/* pprof lists the leaf first */
	for (i = s->n_location_id; i-- > 0;) {
		at = pp_index__find(&r->loc, s->location_id[i]);
		n = at != SIZE_MAX ? location_frames(v, r, r->pr->location[at], r->ids + nids,
						      MAX_SAMPLE_FRAMES - nids) : 0;
		if (n < 0)
			return n;
		nids += (size_t)n;
	}
	if (nids > MAX_PROFILE_FRAMES - r->frames)
		return -EFBIG;
	r->frames += nids;
	return vprof__add(v, comm ? pp_string(r->pr, comm->str) : "", pid ? (pid_t)pid->num : 0,
			  r->ids, (uint32_t)nids, (uint64_t)s->value[value_index]);
}

/* protobuf-c's allocations while a pprof decodes, counted (not its frees:
 * decoding frees only when it fails). A file of empty samples took 60 bytes
 * of memory a byte of file (6 GB for 100 MB): decoding fails past the
 * profile limit instead. */
struct decode_budget {
	size_t used;
	bool over;
};

static void *budget_alloc(void *data, size_t size)
{
	struct decode_budget *b = data;

	if (size > MAX_PROFILE_BYTES - b->used) {
		b->over = true;
		return NULL;
	}
	b->used += size;
	return malloc(size);
}

static void budget_free(void *data, void *p)
{
	(void)data;
	free(p);
}

/* The bytes as a pprof profile: they decode as one and look like one
 * (sample types, string_table[0] ""); NULL when they do not, *too_big
 * when decoding them would take more than MAX_PROFILE_BYTES. */
static Profile *pprof_unpack(const uint8_t *buf, size_t len, bool *too_big)
{
	struct decode_budget b = { 0 };
	ProtobufCAllocator counted = { budget_alloc, budget_free, &b };
	Profile *pr = perftools__profiles__profile__unpack(&counted, len, buf);

	*too_big = b.over;
	if (pr && pr->n_sample_type && pr->n_string_table && !pr->string_table[0][0])
		return pr;
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	return NULL;
}

static void pp_reader__free(struct pp_reader *r)
{
	free(r->loc.e);
	free(r->fn.e);
	free(r->map.e);
	free(r);
}

static int parse_pprof(const char *what, const Profile *pr, struct vprof *v)
{
	struct pp_reader *r = calloc(1, sizeof(*r));
	int64_t comm_key, pid_key;
	size_t i;
	int err = r ? 0 : -ENOMEM;

	if (!err) {
		r->pr = pr;
		err = PP_INDEX(&r->loc, pr->location, pr->n_location);
		err = err ?: PP_INDEX(&r->fn, pr->function, pr->n_function);
		err = err ?: PP_INDEX(&r->map, pr->mapping, pr->n_mapping);
	}
	comm_key = pp_string_index(pr, "comm");
	pid_key = pp_string_index(pr, "pid");
	/* value 0: bpfprof's samples/count, or the first event */
	for (i = 0; !err && i < pr->n_sample; i++)
		err = pprof_sample(v, r, pr->sample[i], 0, comm_key, pid_key);
	v->has_comm = comm_key > 0;
	if (err == -EOVERFLOW)
		p_err("%s: the sample counts add up past 2^64-1", what);
	else if (err == -E2BIG)
		p_err("%s: sample %zu has more than %d frames", what, i, MAX_SAMPLE_FRAMES);
	else if (err == -EFBIG)
		p_err("%s: its stacks take more than " MAX_PROFILE_TEXT " of memory", what);
	if (r)
		pp_reader__free(r);
	return err;
}

/* Control bytes in the first KiB: not text (said when it is not folded either). */
static bool looks_binary(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 1024; i++)
		if (buf[i] < 0x09 || (buf[i] > 0x0d && buf[i] < 0x20))
			return true;
	return false;
}

/* Folded text: a writable copy (a NUL byte as the text \x00), one byte
 * past its end; the copy is held to the profile limit too (a gzip of NULs
 * would make it 4 times it). */
static int parse_text(const char *what, const uint8_t *buf, size_t len, struct vprof *v)
{
	size_t nuls = 0, i, n = 0;
	char *text;
	int err;

	for (i = 0; i < len; i++)
		nuls += !buf[i];
	if (len + 3 * nuls > MAX_PROFILE_BYTES) {	/* len <= the limit: no wrap */
		p_err("%s: folded text past the " MAX_PROFILE_TEXT " limit once its NUL bytes "
		      "are written \\x00", what);
		return -EFBIG;
	}
	text = malloc(len + 3 * nuls + 1);
	if (!text)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		if (buf[i]) {
			text[n++] = (char)buf[i];
		} else {
			memcpy(text + n, "\\x00", 4);
			n += 4;
		}
	}
	err = parse_folded(what, text, n, looks_binary(buf, len), v);
	free(text);
	return err;
}

int vprof__parse(const char *what, const uint8_t *buf, size_t len, struct vprof **out)
{
	struct vprof *v = vprof__new();
	uint8_t *plain = NULL;
	Profile *pr = NULL;
	bool too_big = false;
	int err = v ? 0 : -ENOMEM;

	if (!err && len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		err = gunzip(buf, len, &plain, &len);
		if (err == -EINVAL)
			p_err("%s: corrupt or truncated gzip data", what);
		else if (err == -EFBIG)
			p_err("%s: decompresses past the " MAX_PROFILE_TEXT " limit", what);
		buf = plain;
	}
	if (!err)
		pr = pprof_unpack(buf, len, &too_big);
	if (too_big) {
		err = -EFBIG;
		p_err("%s: a pprof profile that takes more than " MAX_PROFILE_TEXT
		      " of memory to decode", what);
	} else if (pr) {
		err = parse_pprof(what, pr, v);
	} else if (!err) {
		err = parse_text(what, buf, len, v);
	}
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
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

/* What a profile may be read from, said of fd (named: a path given, not
 * standard input): a directory is refused, a regular file past the limit
 * too (before reading it); of a named path also a device (/dev/zero would
 * fill the limit) and another user's FIFO (its writer could hold the read
 * forever): a regular file, or a pipe or FIFO of ours or root's. The
 * file's size in *size when it is a regular one, else 0. */
static int check_profile(int fd, const char *what, bool named, size_t *size)
{
	const char *why = NULL;
	struct stat st;
	int err = 0;

	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR, why = "is a directory";
	else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > MAX_PROFILE_BYTES)
		err = -EFBIG, why = "larger than " MAX_PROFILE_TEXT;
	else if (named && S_ISFIFO(st.st_mode) && st.st_uid && st.st_uid != geteuid())
		err = -EPERM, why = "a FIFO of another user, not read";
	else if (named && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		err = -EINVAL, why = "not a regular file or a pipe";
	if (err) {
		p_err("cannot read %s: %s", what, why ? why : strerror(-err));
		return err;
	}
	*size = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	return 0;
}

/* path opened non-blocking, so a FIFO with no writer reads as empty rather
 * than waits for one; reads block once it passed check_profile. */
static int open_profile(const char *path, int *fd, size_t *size)
{
	int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), err;

	if (f < 0) {
		err = -errno;
		p_err("cannot open %s: %s", path, strerror(errno));
		return err;
	}
	err = check_profile(f, path, true, size);
	if (!err && fcntl(f, F_SETFL, 0)) {
		err = -errno;
		p_err("cannot read %s: %s", path, strerror(errno));
	}
	if (err) {
		close(f);
		return err;
	}
	*fd = f;
	return 0;
}

int vprof__read(const char *path, struct vprof **out)
{
	bool is_stdin = !strcmp(path, "-");
	const char *what = is_stdin ? "standard input" : path;
	uint8_t *buf = NULL;
	size_t len = 0, size = 0;
	int err, fd = STDIN_FILENO;

	err = is_stdin ? check_profile(fd, what, false, &size) : open_profile(path, &fd, &size);
	if (err)
		return err;
	err = read_all(fd, size, &buf, &len);
	if (!is_stdin)
		close(fd);
	if (err) {
		p_err("cannot read %s: %s", what,
		      err == -EFBIG ? "larger than " MAX_PROFILE_TEXT : strerror(-err));
		return err;
	}
	err = vprof__parse(what, buf, len, out);
	free(buf);
	return err;
}
