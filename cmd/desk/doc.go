// Command desk gives AI agents a persistent computer: a workspace whose files
// live in one SQLite database.
//
// The binary is a thin layer over the internal packages; each subcommand lives
// in its own file and parses its flags with the standard flag package.
//
//	desk fs -db PATH VERB [ARGS]   work directly on a workspace database
//	desk help                      print usage
//
// `desk fs` verbs: ls, cat, put, get, mkdir, rm, mv, stat, tree, import,
// export, check, stats; `desk fs help` describes each. Paths inside the
// workspace are slash paths; a relative one is taken from the workspace root.
//
// Exit status: 0 on success, 1 when the operation failed (the message reads
// "desk fs VERB: message", with the POSIX errno name where there is one), 2 for
// a usage error.
//
// main only converts run's result to an exit status, so tests drive the whole
// CLI in-process through run.
package main
