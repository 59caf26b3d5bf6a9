/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The push server's credentials, kept off the terminal and the journal:
 * a URL is printed only through push_url__redact() (its userinfo shown as
 * ***), and credentials may come without the command line, where every
 * user reads them (/proc/PID/cmdline): --push-auth-file FILE or the
 * environment's BPFPROF_PUSH_AUTH, one line "user:password" (HTTP basic
 * auth) or "Bearer TOKEN", as Pyroscope agents and OTel exporters take
 * them. The secret is never printed.
 */
#ifndef BPFPROF_PUSH_AUTH_H
#define BPFPROF_PUSH_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define PUSH_AUTH_ENV	"BPFPROF_PUSH_AUTH"
#define PUSH_AUTH_MAX	4096	/* bytes of a credentials file, at most */

/* url with its userinfo (user:password@) shown as ***@, into buf. */
void push_url__redact(const char *url, char *buf, size_t size);

/* True when url carries userinfo. */
bool push_url__has_userinfo(const char *url);

enum push_auth_kind { PUSH_AUTH_NONE, PUSH_AUTH_BASIC, PUSH_AUTH_BEARER };

struct push_auth {
	enum push_auth_kind kind;
	char *secret;		/* BASIC: "user:password"; BEARER: the token */
};

/* One line of credentials (a trailing newline allowed) into a, which
 * takes a copy. Returns 0, or -EINVAL with *why saying what is wrong
 * (never quoting the text), or -ENOMEM. */
int push_auth__parse(const char *text, size_t len, struct push_auth *a, const char **why);

/* The credentials of file (if not NULL), else of BPFPROF_PUSH_AUTH (if
 * set), else none; refused when url carries its own as well. file must
 * be a regular file, not a symlink, ours or root's, written by nobody
 * else, PUSH_AUTH_MAX bytes at most (a warning when others may read it).
 * Returns 0 or -errno with one line said. */
int push_auth__load(const char *file, const char *url, struct push_auth *a);

/* Wipes and frees the secret. */
void push_auth__free(struct push_auth *a);

#endif
