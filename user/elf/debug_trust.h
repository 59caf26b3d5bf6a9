/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whose debug file it is: the trust rule of the debug-file search
 * (debug_file.h). A debug file names a program's functions and source
 * paths, and bpfprof (root, often) copies them into a profile others read.
 * So a file found through a directory is used only when whoever could
 * have put it there could read it themselves:
 *
 *   - the owner of the directory the search was given (a --debug-dir,
 *     /usr/lib/debug, the program's own directory);
 *   - the owner of the link, when the name found is a symbolic link (the
 *     one who made it, in a shared directory as well);
 *   - the owner of the directory holding the name (a user's directory
 *     inside root's tree: a hard link they made there is theirs), or
 *     anyone, when that directory is writable by all (/tmp: whoever
 *     planted it may be anybody).
 *
 * "Could read" is the kernel's rule of mode bits along the file's real
 * path: search (x) on each directory, read (r) on the file, by owner,
 * group (the user's groups from the passwd and group databases) or
 * others. A file or directory with a POSIX ACL counts as readable only
 * by its owner (an ACL may deny a user the mode bits allow). root (uid 0)
 * reads everything: the system's own tree costs nothing to check.
 */
#ifndef BPFPROF_DEBUG_TRUST_H
#define BPFPROF_DEBUG_TRUST_H

#include <stdbool.h>
#include <sys/types.h>

/* Not a user: the mode bits for others alone. */
#define TRUST_ANYONE	((uid_t)-1)

/* Whether uid could read the file path_fd (an O_PATH fd, as
 * file_open_path() gives it) is open on, through its real path. A file
 * whose real path cannot be walked (deleted, renamed while looked at,
 * a link put in its way) is not readable. */
bool debug_trust__readable_by(uid_t uid, int path_fd);

/* Who may have placed the name path, found through the directory given
 * (see above): up to DEBUG_PLACERS uids into who; their count. */
#define DEBUG_PLACERS	3
int debug_trust__placers(const char *given, const char *path, uid_t who[DEBUG_PLACERS]);

#endif
