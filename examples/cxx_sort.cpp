// SPDX-License-Identifier: MIT
/*
 * cxx_sort: what a C++ profile is made of: std::sort's templates (their
 * long names, the recursion gcc -O2 inlines into itself) and calls through
 * the PLT into libc and libstdc++ in a loop.
 *
 *   main -> sort_doubles -> std::sort<double> (std::__introsort_loop<...>, ...)
 *   main -> sort_words   -> std::sort<std::string> -> memcmp@plt -> libc's memcmp
 *   main -> count_prefix -> memcmp@plt -> libc's memcmp (2 bytes a call)
 *   main -> weigh_inline -> scoring::weigh (inlined: an inline frame)
 *   main -> weigh_called -> scoring::weigh (its out-of-line copy)
 *
 * Each round shuffles and sorts 20000 doubles, sorts 4000 short strings
 * that share a prefix (each comparison a call to memcmp through the
 * executable's PLT), and compares each word's first bytes 100 times over
 * (short calls: the PLT stub is a good share of them). Built -O2 -g with
 * frame pointers.
 * Usage: cxx_sort [seconds]   (default 5)
 */
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "workload.h"

static NOINLINE double sort_doubles(std::vector<double> &v, std::mt19937_64 &rng)
{
	std::shuffle(v.begin(), v.end(), rng);
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static NOINLINE size_t sort_words(std::vector<std::string> &w, std::mt19937_64 &rng)
{
	std::shuffle(w.begin(), w.end(), rng);
	std::sort(w.begin(), w.end());
	return w.front().size();
}

namespace scoring {

/* static: internal linkage, so gcc's DWARF names it "weigh" without a
 * linkage name, while its symbol's (_ZN7scoringL5weighEd) says scoring:: */
static double weigh(double x)
{
	for (int i = 0; i < 64; i++)
		x = x * 0.999 + 0.5;
	return x;
}

} // namespace scoring

/* flatten: weigh inlined here */
static NOINLINE __attribute__((flatten)) double weigh_inline(const std::vector<double> &v)
{
	double s = 0;

	for (size_t i = 0; i < v.size(); i += 8)
		s += scoring::weigh(v[i]);
	return s;
}

/* through a pointer: weigh's out-of-line copy */
static double (*volatile weigh_ptr)(double) = scoring::weigh;

static NOINLINE double weigh_called(const std::vector<double> &v)
{
	double s = 0;

	for (size_t i = 0; i < v.size(); i += 8)
		s += weigh_ptr(v[i]);
	return s;
}

/* The length is not a constant, or gcc would inline memcmp. */
static volatile size_t prefix_len = 2;

static NOINLINE size_t count_prefix(const std::vector<std::string> &w, const char *key)
{
	size_t n = 0, len = prefix_len;

	for (int rep = 0; rep < 100; rep++)
		for (const std::string &s : w)
			n += memcmp(s.data(), key, len) == 0;
	return n;
}

static std::vector<std::string> make_words(size_t n)
{
	std::vector<std::string> w;

	for (size_t i = 0; i < n; i++)
		w.push_back("a shared prefix of a word " + std::to_string(i * 7919 % n));
	return w;
}

volatile double sink;

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5);
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	std::vector<double> v(20000);
	std::vector<std::string> w = make_words(4000);
	std::mt19937_64 rng(42);

	for (size_t i = 0; i < v.size(); i++)
		v[i] = (double)(i * 2654435761u % 1000003);
	while (now_ns() < deadline)
		sink = sort_doubles(v, rng) + (double)sort_words(w, rng) +
		       (double)count_prefix(w, "ab") + weigh_inline(v) + weigh_called(v);
	return 0;
}
