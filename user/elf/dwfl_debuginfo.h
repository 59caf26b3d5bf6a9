/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libdwfl's callbacks for an offline session of one file: its debug file
 * found where debug_file finds it (build-id directory, .gnu_debuglink with
 * CRC, a dwz alternate file by its build-id, debuginfod last), never by
 * libdwfl's own searches. A module whose userdata points to a struct
 * compressed_scns gets its debug file's compressed sections there.
 */
#ifndef BPFPROF_DWFL_DEBUGINFO_H
#define BPFPROF_DWFL_DEBUGINFO_H

#include <elfutils/libdwfl.h>

extern const Dwfl_Callbacks dwfl_debuginfo__callbacks;

#endif
