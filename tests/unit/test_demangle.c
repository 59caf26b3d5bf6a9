// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of demangle.c: names as real compilers emit them (g++ 12,
 * rustc 1.95 legacy and v0 mangling), non-mangled and malformed names. */
#include <criterion/criterion.h>
#include <string.h>

#include "elf/demangle.h"
#include "leak_check.h"

TestSuite(demangle, .fini = check_leaks);

static void expect_name(struct demangler *dm, const char *mangled, const char *want)
{
	const char *got = demangler__name(dm, mangled);

	cr_assert_not_null(got, "%s", mangled);
	cr_expect_str_eq(got, want, "%s", mangled);
}

Test(demangle, cxx)
{
	struct demangler *dm = demangler__new(DEMANGLE_FULL);

	cr_assert_not_null(dm);
	expect_name(dm, "_ZN9hidden_ns8CruncherImE3runEm",
		    "hidden_ns::Cruncher<unsigned long>::run(unsigned long)");
	expect_name(dm, "_ZN9hidden_ns5driveImEET_RNS_8CruncherIS1_EEm",
		    "unsigned long hidden_ns::drive<unsigned long>(hidden_ns::Cruncher<unsigned long>&, unsigned long)");
	expect_name(dm, "_ZNSt6vectorIiSaIiEE9push_backERKi",
		    "std::vector<int, std::allocator<int> >::push_back(int const&)");
	demangler__free(dm);
}

/* perf's default form: no parameters, return type nor clone suffix, so a
 * function's clones and inlined copies read alike (perf report's names for
 * these, from a std::sort profile). */
Test(demangle, short_form_as_perf)
{
	struct demangler *dm = demangler__new(DEMANGLE_SHORT);

	cr_assert_not_null(dm);
	expect_name(dm, "_ZN9hidden_ns8CruncherImE3runEm", "hidden_ns::Cruncher<unsigned long>::run");
	expect_name(dm, "_ZSt16__introsort_loopIN9__gnu_cxx17__normal_iteratorIPdSt6vectorIdSaIdEEEElNS0_5__ops15_Iter_less_iterEEvT_S9_T0_T1_.isra.0",
		    "std::__introsort_loop<__gnu_cxx::__normal_iterator<double*, std::vector<double, std::allocator<double> > >, long, __gnu_cxx::__ops::_Iter_less_iter>");
	expect_name(dm, "_ZSt16__introsort_loopIN9__gnu_cxx17__normal_iteratorIPdSt6vectorIdSaIdEEEElNS0_5__ops15_Iter_less_iterEEvT_S9_T0_T1_",
		    "std::__introsort_loop<__gnu_cxx::__normal_iterator<double*, std::vector<double, std::allocator<double> > >, long, __gnu_cxx::__ops::_Iter_less_iter>");
	expect_name(dm, "_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size");
	/* the Rust forms are the same in both */
	expect_name(dm, "_ZN1r6shapes13Grid$LT$T$GT$5total17h2452a868f05e4c80E",
		    "r::shapes::Grid<T>::total");
	demangler__free(dm);
}

/* A PLT entry's name is its function's, demangled, and "@plt", as perf
 * prints it. */
Test(demangle, plt_entries)
{
	struct demangler *dm = demangler__new(DEMANGLE_SHORT), *full = demangler__new(DEMANGLE_FULL);

	cr_assert(dm && full);
	expect_name(dm, "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4swapERS4_@plt",
		    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::swap@plt");
	expect_name(full, "_Znwm@plt", "operator new(unsigned long)@plt");
	cr_expect_str_eq(demangler__name(dm, "memcmp@plt"), "memcmp@plt");
	cr_expect_str_eq(demangler__name(dm, "_Z@plt"), "_Z@plt");
	cr_expect_str_eq(demangler__name(dm, "@plt"), "@plt");
	demangler__free(dm);
	demangler__free(full);
}

Test(demangle, rust_legacy_and_v0)
{
	struct demangler *dm = demangler__new(DEMANGLE_FULL);

	cr_assert_not_null(dm);
	/* the legacy hash suffix is dropped, as perf and gdb drop it */
	expect_name(dm, "_ZN1r6shapes13Grid$LT$T$GT$5total17h2452a868f05e4c80E",
		    "r::shapes::Grid<T>::total");
	expect_name(dm, "_RNvMNtCs6GmmlP4bgsG_1r6shapesINtB2_4GridyE5totalB4_",
		    "<r::shapes::Grid<u64>>::total");
	demangler__free(dm);
}

Test(demangle, plain_and_malformed_names_pass_through)
{
	static const char *const names[] = {
		"main", "", "_Z", "_ZZZ", "_R", "_RNv", "_Zfoo", "__libc_start_main",
		"_ZN9hidden_ns8CruncherImE3runEm_truncated_garbage_", "_ZN3foo",
	};
	struct demangler *dm = demangler__new(DEMANGLE_FULL);

	cr_assert_not_null(dm);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_expect_eq(demangler__name(dm, names[i]), names[i], "%s", names[i]);
	cr_expect_null(demangler__name(dm, NULL));
	demangler__free(dm);
}

Test(demangle, each_name_once)
{
	struct demangler *dm = demangler__new(DEMANGLE_FULL);
	const char *a, *b;
	char copy[64];

	cr_assert_not_null(dm);
	strcpy(copy, "_ZN9hidden_ns8CruncherImE3runEm");
	a = demangler__name(dm, "_ZN9hidden_ns8CruncherImE3runEm");
	b = demangler__name(dm, copy);
	cr_expect_eq(a, b, "the same name is demangled once, whatever its address");
	demangler__name(dm, "main");	/* not mangled: not cached */
	cr_expect_eq(demangler__count(dm), 1);
	demangler__clear(dm);
	cr_expect_eq(demangler__count(dm), 0);
	expect_name(dm, copy, "hidden_ns::Cruncher<unsigned long>::run(unsigned long)");
	demangler__free(dm);
}
