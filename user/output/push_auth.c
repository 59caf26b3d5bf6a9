// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The push server's credentials: read, checked, never printed (push_auth.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/errors.h"
#include "output/push_auth.h"
#include "base/url.h"

bool push_url__has_userinfo(const char *url)
{
	struct url_authority a;

	url__authority(url, &a);
	return a.at != NULL;
}

void push_url__redact(const char *url, char *buf, size_t size)
{
	struct url_authority a;

	url__authority(url, &a);
	if (!a.at)
		snprintf(buf, size, "%s", url);
	else
		snprintf(buf, size, "%.*s***%s", (int)(a.start - url), url, a.at);
}

int push_auth__parse(const char *text, size_t len, struct push_auth *a, const char **why)
{
	static const char bearer[] = "Bearer ";
	size_t skip = 0;

	a->kind = PUSH_AUTH_NONE;
	a->secret = NULL;
	if (len && text[len - 1] == '\n')
		len--;
	if (len && text[len - 1] == '\r')
		len--;
	for (size_t i = 0; i < len; i++) {
		/* a CR or LF would end the header early: another header follows */
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) {
			*why = "holds a control character or more than one line";
			return -EINVAL;
		}
	}
	if (len >= sizeof(bearer) - 1 && !strncasecmp(text, bearer, sizeof(bearer) - 1)) {
		skip = sizeof(bearer) - 1;
		a->kind = PUSH_AUTH_BEARER;
	} else if (memchr(text, ':', len)) {
		a->kind = PUSH_AUTH_BASIC;
	}
	if (a->kind == PUSH_AUTH_NONE || len == skip) {
		a->kind = PUSH_AUTH_NONE;
		*why = "expected one line, user:password or Bearer TOKEN";
		return -EINVAL;
	}
	a->secret = strndup(text + skip, len - skip);
	if (!a->secret) {
		a->kind = PUSH_AUTH_NONE;
		return -ENOMEM;
	}
	return 0;
}

/* Why file may not hold root's credentials, or NULL. */
static const char *file_refused(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return "owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by others";
	if (st->st_size > PUSH_AUTH_MAX)
		return "longer than 4096 bytes";
	return NULL;
}

/* The file's bytes into buf (PUSH_AUTH_MAX + 1), never through a symlink
 * nor blocking on a FIFO. Returns the length, or -1 with *why said. */
static ssize_t read_file(const char *file, char *buf, const char **why)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t len = 0, r = 1;
	struct stat st;

	*why = NULL;
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st))
		*why = strerror(errno);
	else
		*why = file_refused(&st);
	while (!*why && r != 0 && len <= PUSH_AUTH_MAX) {
		r = read(fd, buf + len, PUSH_AUTH_MAX + 1 - len);
		if (r < 0 && errno != EINTR)
			*why = strerror(errno);
		len += r > 0 ? r : 0;	/* EINTR: read again */
	}
	if (!*why && len > PUSH_AUTH_MAX)
		*why = "longer than 4096 bytes";	/* it grew meanwhile */
	if (!*why && (st.st_mode & (S_IRGRP | S_IROTH)))
		p_warn("push: --push-auth-file %s is readable by other users (mode %04o): "
		       "chmod 600 it", file, (unsigned int)(st.st_mode & 07777));
	close(fd);
	return *why ? -1 : len;
}

/* file's credentials, else env's, else none. */
static int load_from(const char *file, const char *env, const char *url, struct push_auth *a)
{
	const char *why, *from;
	char *buf;
	ssize_t len;
	int err;

	a->kind = PUSH_AUTH_NONE;
	a->secret = NULL;
	if (!file && !env)
		return 0;
	from = file ? "--push-auth-file" : PUSH_AUTH_ENV;
	if (push_url__has_userinfo(url)) {
		p_err("push: the --push URL carries credentials and %s gives others: keep one",
		      from);
		return -EINVAL;
	}
	if (!file) {
		err = push_auth__parse(env, strlen(env), a, &why);
		if (err == -EINVAL)
			p_err("push: %s: %s", PUSH_AUTH_ENV, why);
		return err;
	}
	buf = malloc(PUSH_AUTH_MAX + 1);
	if (!buf)
		return -ENOMEM;
	len = read_file(file, buf, &why);
	err = len < 0 ? -EINVAL : push_auth__parse(buf, (size_t)len, a, &why);
	explicit_bzero(buf, PUSH_AUTH_MAX + 1);
	free(buf);
	if (err == -EINVAL)
		p_err("push: --push-auth-file %s: %s", file, why);
	return err;
}

int push_auth__load(const char *file, const char *url, struct push_auth *a)
{
	char *env = getenv(PUSH_AUTH_ENV);
	int err;

	/* read once; a command bpfprof starts does not inherit root's secret */
	if (env) {
		env = strdup(env);
		if (!env)
			return -ENOMEM;
		unsetenv(PUSH_AUTH_ENV);
	}
	err = load_from(file, env, url, a);
	if (env) {
		explicit_bzero(env, strlen(env));
		free(env);
	}
	return err;
}

void push_auth__free(struct push_auth *a)
{
	if (a->secret) {
		explicit_bzero(a->secret, strlen(a->secret));
		free(a->secret);
	}
	a->secret = NULL;
	a->kind = PUSH_AUTH_NONE;
}
