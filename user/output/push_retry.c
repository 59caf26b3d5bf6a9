// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* When a push is sent again, and after how long (push_retry.h). */
#include <stdio.h>
#include <string.h>

#include "output/push_retry.h"

enum push_verdict push_retry__verdict(long status)
{
	if (status <= 0)
		return PUSH_RETRY;	/* no answer: the connection failed or was cut */
	if (status >= 200 && status < 300)
		return PUSH_SENT;
	switch (status) {
	case 429:	/* Too Many Requests */
	case 502:	/* Bad Gateway */
	case 503:	/* Service Unavailable */
	case 504:	/* Gateway Timeout */
		return PUSH_RETRY;
	default:	/* "All other 4xx or 5xx response status codes MUST NOT be retried" */
		return PUSH_REFUSED;
	}
}

static int month_of(const char *name)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

	for (int i = 0; i < 12; i++)
		if (!strcmp(name, months[i]))
			return i;
	return -1;
}

static bool is_day_name(const char *name, bool long_form)
{
	static const char *const days[7][2] = {
		{ "Mon", "Monday" }, { "Tue", "Tuesday" }, { "Wed", "Wednesday" },
		{ "Thu", "Thursday" }, { "Fri", "Friday" }, { "Sat", "Saturday" },
		{ "Sun", "Sunday" },
	};

	for (int i = 0; i < 7; i++)
		if (!strcmp(name, days[i][long_form]))
			return true;
	return false;
}

/* RFC 9110 5.6.7's three forms of an HTTP-date, all GMT, each whole:
 *   Sun, 06 Nov 1994 08:49:37 GMT     IMF-fixdate (what servers send)
 *   Sunday, 06-Nov-94 08:49:37 GMT    obsolete RFC 850
 *   Sun Nov  6 08:49:37 1994          ANSI C's asctime()
 * Each fills tm's fields but the year (*year) and the month (mon). */
static bool imf_fixdate(const char *s, struct tm *tm, char mon[4], int *year)
{
	char day[4];
	int n = -1;

	return sscanf(s, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", day, &tm->tm_mday,
		      mon, year, &tm->tm_hour, &tm->tm_min, &tm->tm_sec, &n) == 7 &&
	       n > 0 && !s[n] && is_day_name(day, false);
}

static bool rfc850_date(const char *s, time_t now, struct tm *tm, char mon[4], int *year)
{
	struct tm now_tm;
	char day[10];
	int n = -1, this_year;

	if (sscanf(s, "%9[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n", day, &tm->tm_mday, mon,
		   year, &tm->tm_hour, &tm->tm_min, &tm->tm_sec, &n) != 7 ||
	    n <= 0 || s[n] || !is_day_name(day, true))
		return false;
	/* a two-digit year more than 50 years ahead is the past century's */
	gmtime_r(&now, &now_tm);
	this_year = 1900 + now_tm.tm_year;
	*year += this_year - this_year % 100;
	if (*year > this_year + 50)
		*year -= 100;
	return true;
}

static bool asctime_date(const char *s, struct tm *tm, char mon[4], int *year)
{
	char day[4];
	int n = -1;

	return sscanf(s, "%3[A-Za-z] %3[A-Za-z] %2d %2d:%2d:%2d %4d%n", day, mon, &tm->tm_mday,
		      &tm->tm_hour, &tm->tm_min, &tm->tm_sec, year, &n) == 7 &&
	       n > 0 && !s[n] && is_day_name(day, false);
}

static bool parse_http_date(const char *s, time_t now, struct tm *tm)
{
	char mon[4];
	int year;

	memset(tm, 0, sizeof(*tm));
	if (!imf_fixdate(s, tm, mon, &year) && !rfc850_date(s, now, tm, mon, &year) &&
	    !asctime_date(s, tm, mon, &year))
		return false;
	tm->tm_mon = month_of(mon);
	tm->tm_year = year - 1900;
	return tm->tm_mon >= 0 && year >= 1970 && tm->tm_mday >= 1 && tm->tm_mday <= 31 &&
	       tm->tm_hour >= 0 && tm->tm_hour <= 23 && tm->tm_min >= 0 && tm->tm_min <= 59 &&
	       tm->tm_sec >= 0 && tm->tm_sec <= 60;
}

/* delay-seconds: 1*DIGIT, saturating well past the bound */
static bool parse_seconds(const char *s, int64_t *secs)
{
	const int64_t past = PUSH_RETRY_AFTER_MAX_MS / 1000 + 1;

	*secs = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (*secs < past)
			*secs = *secs * 10 + (*s - '0');
	}
	return true;
}

bool push_retry__after(const char *value, time_t now, int64_t *ms)
{
	struct tm tm;
	int64_t secs;

	*ms = 0;
	if (parse_seconds(value, &secs)) {
		*ms = secs * 1000;
	} else if (parse_http_date(value, now, &tm)) {
		time_t at = timegm(&tm);

		if (at == (time_t)-1)
			return false;
		*ms = at > now ? ((int64_t)at - (int64_t)now) * 1000 : 0;
	} else {
		return false;
	}
	if (*ms > PUSH_RETRY_AFTER_MAX_MS)
		*ms = PUSH_RETRY_AFTER_MAX_MS;
	return true;
}

int64_t push_retry__wait_ms(unsigned int failures, uint32_t random, int64_t after_ms)
{
	int64_t d = PUSH_BACKOFF_MAX_MS, wait;

	/* 1 s, 2 s, 4 s ... up to the bound */
	if (failures < 1)
		failures = 1;
	if (failures <= 20 && (int64_t)PUSH_BACKOFF_MIN_MS << (failures - 1) < d)
		d = (int64_t)PUSH_BACKOFF_MIN_MS << (failures - 1);
	/* uniform in [d/2, 3d/2) */
	wait = d / 2 + (int64_t)(((uint64_t)random * (uint64_t)d) >> 32);
	if (after_ms > PUSH_RETRY_AFTER_MAX_MS)
		after_ms = PUSH_RETRY_AFTER_MAX_MS;
	return after_ms > wait ? after_ms : wait;
}
