// Package cmds holds the commands of the shell backend, written in Go over
// the workspace store: one file per command, each registering itself with
// Register from an init function. The shell (package shell) looks commands up
// by name; nothing here touches the host: files go through Env.FS, paths are
// resolved against Env.Dir with Env.Abs, the environment is Env.Getenv.
//
// Behaviour, output and messages follow GNU coreutils (and grep, sed, ...) on
// Debian: the same flags agents use, the same diagnostics ("ls: cannot access
// 'x': No such file or directory"), the same exit statuses. Names and values
// in diagnostics are quoted by the functions of quote.go (quote, quoteaf,
// quotef), which follow the locale of Env.Getenv as gnulib does: ‘x’ in a
// UTF-8 locale, 'x' in C. Each command has table tests in its own _test.go
// file, run here directly against a vfs store (with LANG=C.UTF-8, or LC_ALL=C
// for the file tools' tables, the locale each confirm runner gives the real
// tools), and the shell package's compatibility table confirms the behaviour
// against real bash and coreutils.
//
// Commands that are bash builtins in the interpreter (echo, printf, test, [,
// true, false, pwd, cd, export, read, type, command...) are the interpreter's,
// not this package's, unless a command needs its own version (for use from
// xargs or env).
//
// Long-running commands must check Env.Ctx (Kill and timeouts cancel it) in
// their loops, and must respect Env.Limits.MaxReadBytes when they hold input
// in memory. What they hold that grows with their input (a whole input, lines
// kept, a window, an output kept for a file, decoded values) is charged to
// Env.Mem, the execution's memory budget, before it is allocated (Env.Hold,
// readAllLimited, heldBuffer): when a charge fails the command stops (the
// execution is over its budget and already stopping, with its own message),
// and what a command still holds is returned when it ends. Per line kept a
// command charges lineCost (48 bytes) beyond the text, per byte of JSON jq
// charges jsonCost (64: gojq's values measured at up to 60 times the text),
// per line diff compares diffCost (160). TestMem_buffering checks each.
// Not charged: the values an awk program builds (GoAWK has no hook).
package cmds
