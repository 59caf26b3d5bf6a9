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

#include "base/grow.h"
#include "base/errors.h"
#include "render/read_pprof.h"
#include "render/vprof.h"

#define READ_CAP		(MAX_PROFILE_BYTES + 1)	/* a byte more: the limit was passed */

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
	enum frame_kind kind;
	const char *dso = "";
	char *plus;

	len = frame_kind__from_suffix(s, len, &kind);
	s[len] = '\0';
	if (kind == FK_KERNEL) {
		dso = "[kernel.kallsyms]";
	} else if (kind == FK_JIT) {
		dso = "[jit]";	/* as pprof's mapping */
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
		if (GROW(*ids, *cap, n + 1))
			return -ENOMEM;
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

/* buf inflated into *plain (then *buf points there) when it is gzip;
 * errors said. */
static int inflate_gzip(const char *what, const uint8_t **buf, size_t *len, uint8_t **plain)
{
	int err;

	if (*len < 2 || (*buf)[0] != 0x1f || (*buf)[1] != 0x8b)
		return 0;
	err = gunzip(*buf, *len, plain, len);
	if (err == -EINVAL)
		p_err("%s: corrupt or truncated gzip data", what);
	else if (err == -EFBIG)
		p_err("%s: decompresses past the " MAX_PROFILE_TEXT " limit", what);
	if (!err)
		*buf = *plain;
	return err;
}

int vprof__parse(const char *what, const uint8_t *buf, size_t len, struct vprof **out)
{
	struct vprof *v = vprof__new();
	uint8_t *plain = NULL;
	Perftools__Profiles__Profile *pr = NULL;
	bool too_big = false;
	int err = v ? inflate_gzip(what, &buf, &len, &plain) : -ENOMEM;

	if (!err)
		pr = read_pprof__unpack(buf, len, &too_big);
	if (too_big) {
		err = -EFBIG;
		p_err("%s: a pprof profile that takes more than " MAX_PROFILE_TEXT
		      " of memory to decode", what);
	} else if (pr) {
		err = read_pprof__parse(what, pr, v);
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

/* path's bytes ("-": standard input), within the limit; errors said. */
static int read_path(const char *path, const char *what, uint8_t **buf, size_t *len)
{
	size_t size = 0;
	int err, fd = STDIN_FILENO;
	bool is_stdin = !strcmp(path, "-");

	err = is_stdin ? check_profile(fd, what, false, &size) : open_profile(path, &fd, &size);
	if (err)
		return err;
	err = read_all(fd, size, buf, len);
	if (!is_stdin)
		close(fd);
	if (err)
		p_err("cannot read %s: %s", what,
		      err == -EFBIG ? "larger than " MAX_PROFILE_TEXT : strerror(-err));
	return err;
}

int vprof__read(const char *path, struct vprof **out)
{
	const char *what = strcmp(path, "-") ? path : "standard input";
	uint8_t *buf = NULL;
	size_t len = 0;
	int err = read_path(path, what, &buf, &len);

	if (!err)
		err = vprof__parse(what, buf, len, out);
	free(buf);
	return err;
}

int read_pprof__load(const char *path, Perftools__Profiles__Profile **out)
{
	const char *what = strcmp(path, "-") ? path : "standard input";
	uint8_t *buf = NULL, *plain = NULL;
	const uint8_t *bytes;
	size_t len = 0;
	bool too_big = false;
	int err = read_path(path, what, &buf, &len);

	bytes = buf;
	if (!err)
		err = inflate_gzip(what, &bytes, &len, &plain);
	if (!err) {
		*out = read_pprof__unpack(bytes, len, &too_big);
		if (!*out) {
			err = too_big ? -EFBIG : -EINVAL;
			p_err("%s: %s", what, too_big ? "a pprof profile that takes more than "
			      MAX_PROFILE_TEXT " of memory to decode" : "not a pprof profile");
		}
	}
	free(plain);
	free(buf);
	return err;
}
