// Package fsbench measures the sandbox's workspace filesystem (the FUSE
// mount of the store, internal/fusefs through internal/sandbox) against a
// tmpfs and the host's disk, with the same programs in the same kind of
// sandbox: what `desk bench fs` runs and prints.
//
// Three sandbox backends are started, identical but for what is mounted at
// /workspace: the workspace store through FUSE (the real thing), a fresh
// tmpfs, and a directory on the disk that holds Options.Dir; where bindfs is
// installed, a fourth with bindfs (allow_other) over a tmpfs: what a plain
// FUSE passthrough costs on the same rows. Every scenario
// is a bash script run in each of them in turn (interleaved, Options.Runs
// times, the median kept); the script times itself with $EPOCHREALTIME, so
// the execution's own start is not counted. Sandbox cold start (the first
// `true` of a workspace, mount and runc included) and warm exec (`true` in a
// running sandbox) are timed from the host around Backend.Run.
//
// The cold read drops the host's page cache first (sync, then
// /proc/sys/vm/drop_caches), which affects the whole machine. Everything
// else runs with warm kernel caches, as an agent's next command would.
//
// With Options.Trace the sandbox's mount counts its FUSE requests
// (fusefs.Tracer), and the report gives, per row, the requests of its timed
// parts by opcode with the server's time on them: where a row's time goes.
// Options.Only runs a subset of the rows.
package fsbench
