// SPDX-License-Identifier: MIT
/*
 * cxx_names: C++ names a profiler must demangle: a namespace, a class
 * template and its method, a free function template.
 *
 *   main -> hidden_ns::drive<unsigned long>(...) -> hidden_ns::Cruncher<unsigned long>::run(...)
 *
 * run() spins in an integer hash loop and gets nearly all samples (self).
 * Usage: cxx_names [seconds]   (default 5)
 */
#include "workload.h"

namespace hidden_ns {

template <typename T> class Cruncher {
public:
	explicit Cruncher(T seed) : state(seed) {}
	NOINLINE T run(T rounds)
	{
		FORCE_FRAME();
		for (T i = 0; i < rounds; i++) {
			state ^= state >> 29;
			state *= 0xbf58476d1ce4e5b9ull;
			state += i;
		}
		return state;
	}

private:
	T state;
};

template <typename T> NOINLINE T drive(Cruncher<T> &c, uint64_t deadline)
{
	T x = 0;

	while (now_ns() < deadline)
		x ^= c.run(400000);	/* ~1 ms */
	return x + 1;		/* work after the call: no tail call */
}

} // namespace hidden_ns

volatile uint64_t sink;

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5);
	hidden_ns::Cruncher<unsigned long> c(42);

	sink = hidden_ns::drive(c, now_ns() + (uint64_t)(secs * 1e9));
	return 0;
}
