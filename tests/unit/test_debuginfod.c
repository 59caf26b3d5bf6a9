// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of debuginfod_curl.c: the servers requests may go to, and
 * the exported curl_easy_setopt handing other libraries' calls to their
 * own libcurl. */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "elf/debuginfod_curl.h"
#include "output/libcurl.h"

Test(debuginfod, every_server_of_debuginfod_urls_is_allowed)
{
	char urls[64 * 40] = "", url[64];

	for (int i = 0; i < 40; i++) {
		snprintf(url, sizeof(url), " http://127.0.0.1:%d/", 9000 + i);
		strcat(urls, url);
	}
	debuginfod_curl__allow(urls, NULL);
	for (int i = 0; i < 40; i++) {
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/buildid/ab/debuginfo", 9000 + i);
		cr_expect(debuginfod_curl__allowed(url), "%s", url);
	}
	cr_expect_not(debuginfod_curl__allowed("http://127.0.0.1:9040/buildid"));
	cr_expect_not(debuginfod_curl__allowed("https://127.0.0.1:9000/buildid"));
	debuginfod_curl__allow("localhost:8002", NULL);	/* libcurl guesses http */
	cr_expect(debuginfod_curl__allowed("http://localhost:8002/buildid"));
	debuginfod_curl__allow(NULL, NULL);
	cr_expect_not(debuginfod_curl__allowed("http://localhost:8002/buildid"));
}

/* A DoH server that reads the first bytes of one connection. */
struct doh_server {
	int fd;
	unsigned char head[64];
	ssize_t len;
};

/* Reads the first connection's first bytes, then closes the socket: the
 * other lookup's connection (A and AAAA go apart) is refused, not left to
 * wait for the transfer's timeout. */
static void *doh_serve(void *arg)
{
	struct doh_server *s = arg;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	int c = poll(&p, 1, 20000) == 1 ? accept(s->fd, NULL, NULL) : -1;

	close(s->fd);
	if (c < 0)
		return NULL;
	p.fd = c;
	if (poll(&p, 1, 20000) == 1)
		s->len = read(c, s->head, sizeof(s->head));
	close(c);
	return NULL;
}

/* push's libcurl.so.4 (loaded as push loads it) makes a handle for a DoH
 * lookup with its own curl_easy_setopt calls, which bind to bpfprof's:
 * they must reach libcurl.so.4, the DoH request go out (libcurl asks a DoH
 * server over https only: its TLS handshake, a record of type 22). */
Test(debuginfod, push_libcurls_own_calls_reach_it)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	struct doh_server s = { .len = -1 };
	char doh[64];
	pthread_t t;
	CURL *h;

	/* links debuginfod_curl.o, the archive's member that defines it */
	debuginfod_curl__allow(NULL, NULL);
	cr_assert_eq(libcurl__load(), 0);
	s.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(s.fd >= 0);
	cr_assert_eq(bind(s.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(s.fd, 4), 0);
	cr_assert_eq(getsockname(s.fd, (struct sockaddr *)&a, &alen), 0);
	snprintf(doh, sizeof(doh), "https://127.0.0.1:%d/dns-query", ntohs(a.sin_port));
	cr_assert_eq(pthread_create(&t, NULL, doh_serve, &s), 0);
	h = libcurl.easy_init();
	cr_assert_not_null(h);
	cr_assert_eq(libcurl.easy_setopt(h, CURLOPT_URL, "http://doh-test.invalid/"), CURLE_OK);
	cr_assert_eq(libcurl.easy_setopt(h, CURLOPT_DOH_URL, doh), CURLE_OK);
	cr_assert_eq(libcurl.easy_setopt(h, CURLOPT_TIMEOUT_MS, 20000L), CURLE_OK);
	cr_expect_neq(libcurl.easy_perform(h), CURLE_OK);	/* no answer */
	libcurl.easy_cleanup(h);
	pthread_join(t, NULL);
	cr_expect(s.len > 0 && s.head[0] == 0x16, "the DoH request: %zd bytes", s.len);
}
