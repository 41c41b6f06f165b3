// Package shell is the shell execution backend (id "shell"): bash,
// interpreted inside the desk process by desk's own interpreter (package
// internal/shell/interp, the default) or by mvdan.cc/sh/v3's interp
// (Options.Interpreter "mvdan"), on the workspace store, with commands
// written in Go (package cmds).
//
// Both interpreters share what this package documents: the store, the
// environment, the commands, the limits, the memory budget, routing. The
// sections "How commands are found" to "Known divergences from bash"
// describe the backend as it runs mvdan's interpreter, whose state is
// hidden behind handlers: the script is instrumented before it runs
// (instrument.go, plan.go, bound.go). desk's interpreter needs none of
// that (see "desk's own interpreter").
//
// # Concepts
//
// Backend implements run.Backend. Each Run parses the source as bash, builds
// a fresh interpreter whose every handler goes to the job's vfs store (with
// the job's ctx, so every change is attributed to the execution in the change
// journal), runs it, and reports the script's exit status. Output is written
// to the job's Stdout and Stderr as it is produced (run streams it as
// events); nothing is buffered to the end.
//
// The working directory is job.Cwd (a missing run.DefaultCwd is created on
// first use; another missing directory fails with status 1). The
// environment is exactly the job's plus defaults: PATH
// (/usr/local/bin:/usr/bin:/bin), HOME (/workspace), USER (user), SHELL
// (/bin/bash) when the job does not set them, LANG (C.UTF-8) when the job
// sets neither LANG nor LC_ALL, and PWD (the working directory); UID, EUID
// and GID read 1000. The host's environment is never used. $$ is a number
// from 2 to 4,194,303 derived from the execution's ID (the same in every
// subshell, as bash keeps $$; executions differ, so names like /tmp/x.$$ do
// not collide) and $PPID is 1: neither is a host process (the interpreter
// would answer both from the desk process, so every $$, ${PPID...} and
// arithmetic PPID of the script, its eval'd strings and sourced files is
// renamed to a variable the backend answers). BASHPID is unset. The locale is
// what commands see: as on Debian, the first non-empty of LC_ALL, LC_CTYPE
// and LANG naming a UTF-8 locale makes their diagnostics quote values
// ‘like this’ (gnulib's quote()), any other locale 'like this'.
//
// # How commands are found
//
// A simple command is, in order: a shell function, a builtin (read, cd,
// export, eval, source, test, [, ... are the interpreter's; echo, printf
// and pwd are package cmds' bash-flavoured ones, run in their place because
// the interpreter's lack \c, combined flags, precision, %q, printf -v, and
// resolve pwd -P on the host; read too, whose line the interpreter holds
// without a bound: the backend's reads it a byte at a time within
// MaxStringBytes, with the interpreter's flags -r -a -p -s and messages,
// and assigns through eval), then a command from Options.Commands (the place for
// commands that live in other packages, such as git), then a command
// registered in package cmds. A name with a slash names a command only when
// its directory is one of /bin, /usr/bin, /usr/local/bin, /sbin, /usr/sbin
// and its base name is known (/usr/bin/ls runs ls). Anything else prints
// bash's message and exits 127 ("bash: foo: command not found"); an
// existing workspace file named by path ("./run.sh") is not executed
// ("cannot execute", 126). Commands get a cmds.Env built from the
// interpreter's state at the call: Dir, the current stdin/stdout/stderr, the
// exported variables, Limits.MaxReadBytes, a Ctx cancelled on kill, timeout
// and limits, Net (the job's run.Job.Net: curl and wget send through it, and
// fail with run.ErrNoNetwork's message without one), and Exec to run
// another command (xargs, env, timeout, nice, nohup, stdbuf...). A
// command that panics prints "name: internal error" and exits 2.
//
// # Interpreter bugs worked around
//
// mvdan/sh v3.14.1 keeps the backslash of an escaped character in words it
// expands as one string: x=a\ b stored "a\ b", x=it\'s stored "it\'s",
// and > a\ b and [[ a\ b == ... ]] saw the backslash. Before running, every
// such escape in an assignment value, a redirection target or a [[ ]]
// operand is rewritten as the quoted character it means; eval's text and a
// sourced file are rewritten the same way and printed back to source before
// the interpreter parses them. The compatibility
// table (table_*_test.go) lists the other known divergences, each with its
// reason.
//
// # What is isolated, and how
//
// The script is hostile and the host is off-limits:
//
//   - Every interp option is set explicitly. The default exec handler (host
//     binaries) is unreachable: the exec middleware never calls the next
//     handler. runner.Dir is set directly (interp.Dir stats the host).
//   - Opens (redirections <, >, >>, &>, source, $(<file)) go to the store;
//     /dev/null, /dev/stdin, /dev/stdout, /dev/stderr (and /dev/fd/0-2) are
//     served in memory; other /dev paths are refused (EACCES). Read-only
//     opens are fed to the interpreter through an OS pipe (it wants an
//     *os.File for stdin); pipes, like the pipes of pipelines, are kernel
//     objects, never files.
//   - Globbing reads directories through ReadDirHandler2; test -e/-f/...,
//     cd and pushd stat through StatHandler; test -r/-w/-x through
//     AccessHandler, which checks the owner permission bits in the store.
//   - Builtins that would search PATH on the host (type, command -v/-V,
//     source) are rewritten by the call handler: type and command -v/-V
//     always answer from the command table ("ls is /usr/bin/ls") and from the
//     functions the script text and its eval'd strings declare (a function
//     defined only in a sourced file reads as not found; type prints no
//     body), never from the interpreter, whose lookups stat host paths.
//     source reads the named
//     workspace file (relative to the working directory; PATH is not
//     searched).
//   - Process substitution <(...) and >(...) is rejected before the script
//     runs (exit status 2, "process substitution ... is not supported"),
//     also inside eval and sourced files: the interpreter implements it with
//     FIFOs in a host temporary directory. As a second line of defence the
//     interpreter's private temporary directory is a path holding a NUL
//     byte, so a FIFO could never be created and the interpreter's direct
//     opens of its own FIFOs (paths under that directory) fail in the os
//     package before reaching the kernel.
//   - ~name at the start of a word stays as written (as for an unknown
//     user in bash): the interpreter would look the user up in the host's
//     password database. ~ and ~/... read HOME.
//   - Builtins whose text or input the interpreter would hold unseen:
//     trap's text is instrumented as eval's is (trap with no operand lists
//     it as given); an alias whose value holds a command substitution is
//     refused ("alias: x: the shell backend does not run command
//     substitutions in aliases", status 1; the words of the others count
//     in the memory bound of a command they may start); mapfile and
//     readarray run only when called by their name (then their input is
//     read through a pipe that charges it; a computed name fails with
//     status 2).
//
// TestBackend_canary runs hostile scripts and the whole table with the
// process's working directory and TMPDIR in a canary directory and checks
// that nothing there was read (atimes), created or changed.
//
// # Limits and exit statuses
//
// Wall time is run's (ExecOptions.Timeout; status timed-out, exit 124); a
// kill gives cancelled, 128+signal. The backend's own limits are Options
// fields with documented defaults; hitting one cancels the execution and it
// ends with exit status ExitLimit (122) and the line
//
//	desk: shell: limit exceeded: MaxCommands (1000000)
//
// on stderr. They are: MaxOutputBytes (64 MiB of stdout+stderr),
// MaxMemoryBytes (256 MiB held at once; see Memory), MaxCommands
// (1,000,000 simple commands, counted by the call handler and
// Env.Exec), MaxLoopIters (1,000,000 iterations of while, until and
// for ((;;)) loops, counted by a tick statement inserted at the head of each
// loop condition or body), MaxCallDepth (1000 call frames alive at once:
// function calls, eval'd strings, sourced files, subshells and command
// substitutions, nested or side by side in pipelines and background jobs),
// MaxStringBytes
// (16 MiB for one argument or one variable), MaxVarBytes (64 MiB for all
// variables), MaxArgs (100,000 arguments of one command), MaxReadBytes
// (64 MiB one command may hold in memory; cmds.Limits.MaxReadBytes; also
// bounds a sourced file), MaxGlobEntries (100,000 directory entries read
// by globbing while expanding one command) and MaxBraceWords (100,000 words
// made by the brace expansions of one command).
//
// Brace expansion is counted before anything is expanded: instrument
// computes, for every simple command, declaration and for loop, the words
// its brace expansions make (a product over the groups of a word, a sum
// over the alternatives of a group and over the words of the command; a
// sequence {x..y..n} counts its elements) and the bytes of their literal
// text (each sequence element as wide as its widest endpoint; a parameter
// or command substitution counts nothing, its size being known only when it
// runs). The count is desk's interpreter's (interp.BraceSize), one for
// both: mvdan's expand.Braces reads every sequence syntax.SplitBraces
// accepts as desk's does and as bash 5.2 does (TestBraceSize_bash checks
// both against real bash), except a sequence that steps past the largest
// int64, which mvdan v3.14.1 wraps until its own 16,384-word cap stops it
// with an error. A command over MaxBraceWords words, or over
// MaxStringBytes bytes, is replaced by one that stops the execution with
// that limit when it is reached (a command never run costs nothing), in
// the script, eval'd strings and sourced files alike. Under these, the interpreter still
// refuses a single word of more than 16,384 words ("brace expansion would
// exceed 16384 elements"), as MaxArgs refuses a command's whole
// argument list.
//
// Globbing reads a directory a page (4,096 entries) at a time and stops at
// MaxGlobEntries, so a huge directory is never listed whole. The
// interpreter reads each literal directory of a pattern once more to check
// that it is one (big/* reads big twice): both reads count.
//
// Other statuses: a script that does not parse, or uses process
// substitution, exits ExitSyntax (2); an unknown command 127.
//
// MaxCallDepth is counted through the handlers, not on the Go stack: before
// the script, an eval'd string or a sourced file runs, every function body,
// subshell, command substitution, and the eval'd or sourced text as a
// whole, gets the redirection 2>>/dev/desk-frame; the open handler counts
// the frame when the interpreter opens it and the frame's Close (when the
// statement ends, however it ends) uncounts it. TestCallDepth_frames pins
// that interpreter behaviour for every kind of frame. Eval'd strings and
// sourced files are instrumented as the script is (loop ticks included) and
// printed back to source for the interpreter. Once a limit has stopped the
// execution, nothing more is written but the limit's line.
//
// Commands have limits of their own (package cmds documents them): printf's
// field width and precision (cmds.MaxPrintfField, 1 MiB); the text of a
// regular expression grep, sed, csplit, nl, tac, find and rg compile
// (1 MiB and 500,000 instructions, checked before compiling); the nesting of a jq filter and of a value jq
// prints (cmds.MaxJqDepth, 10,000); what one command holds in memory
// (MaxReadBytes).
//
// MaxStringBytes and MaxVarBytes are checked on the values as they are,
// before each simple command and loop iteration; what a statement is about
// to build is bounded before it is built by the memory budget.
//
// A write to a redirected store file past the workspace's quota fails at
// that write with EDQUOT (package vfs). A builtin reports it as bash does
// ("echo: write error: Disk quota exceeded", status 1); a command that did
// not check its writes and still ended with status 0 gets "NAME: write
// error: Disk quota exceeded" and status 1 (runSafe, as gnulib's
// close_stdout does for GNU programs), so no output is silently lost.
//
// # CPU time
//
// An execution's CPU time is that of its goroutines: Run's own and every
// one the interpreter starts (pipeline stages, background jobs,
// substitutions; interp.Config.Enter) or the backend starts to feed a pipe
// from the store, each locked to its OS thread while it works and metered
// by its thread's CPU clock (run.ThreadMeter, given to run with
// Job.MeterCPU). A goroutine waiting on an in-process pipe leaves the meter
// meanwhile (interp.Config.Block). run records the total as Usage.CPU and
// stops the execution at its CPU limit (cpu-limit, exit code 152). With
// Options.Interpreter mvdan only Run's goroutine is metered.
//
// # Memory
//
// MaxMemoryBytes (256 MiB by default) is what one execution may hold at
// once. Reaching it stops the execution with the limit's line and exit 122,
// before the memory is allocated. Counted, in one budget (memory.used):
//
//   - the variables of every runner, with overheads (a variable's name and
//     text, 96 bytes a variable, 16 an element of an array, 8 an index of a
//     sparse one, 64 an entry of an associative one). The interpreter runs
//     every pipeline stage but the last and every background job in a
//     runner of its own, with its own copy of the variables: each has a
//     slot (found by runnerKey), charged with what it sees until it ends
//     (slotFile). A slot is measured when it starts, at every simple
//     command and loop tick, and when a statement that may assign ends (the
//     names it assigns, or all of them after declare, read, a function or
//     command named by a variable...); a subshell's variables go when it
//     ends;
//   - the positional parameters set sets, per scope (a function call or a
//     subshell), the directory stack (a path a pushd), the text of each
//     trap (parsed again each time it runs) and of functions declared by
//     eval'd or sourced text;
//   - a reservation per statement being run: before the interpreter
//     expands anything of a statement, its check (memFile, a redirection
//     instrument puts first) evaluates the statement's plan (its words, in
//     the order the interpreter expands them) against the variables as
//     they are, and reserves the bound of what its expansions build, held
//     until the statement ends (see below). Assignments made by the
//     statement itself (x=$y y=$x$x, ${x:=...}, $((x=...))) count with their
//     new bounds;
//   - a command substitution's output: its capture (captureFile) evaluates
//     the plan again with the output's size and shape as it will be (a
//     reservation for twice the output so far, so a command writing a byte
//     at a time costs a few evaluations) before letting it through: output
//     that would take the budget over is refused and never reaches the
//     interpreter, so ${x//a/$(cmd)} is bounded by what $(cmd) writes
//     before it is built;
//   - what the statement adds while it runs: the directory entries globbing
//     reads, eval's and source's text (charged before it is parsed, twice
//     200 bytes a byte: it is parsed here to instrument it, then by the
//     interpreter), read's line, printf -v's value, mapfile's input (read
//     through a pipe that charges it: mapfile is run only by its name);
//   - what each command holds (cmds.Env.Mem, an account returned when the
//     command ends: sort's and tac's input and lines, jq's values at 64
//     bytes a byte of JSON, diff's lines, tail's, head's, csplit's and grep
//     -B's windows, sed's spaces, uniq's and sort's output files...);
//   - the script's own text, 200 bytes a byte (its syntax tree).
//
// The bound of a statement is computed from the sizes, and where the check
// can read them the texts, of the variables it expands: the matches of
// ${x//pattern/...} are counted when the pattern and the value are known
// (else bounded by the pattern's shortest match), the fields of an
// unquoted $x by scanning x with IFS, a glob character looked for; "$*"
// (and "${DIRSTACK[*]}") is passed to the check when the statement refers
// to positional parameters. Each form's cost is per byte or per item
// (bound.go), measured on the interpreter and rounded up; TestBound_sound
// runs every form at megabytes and checks that the live heap stays under
// what was accounted. Upper bounds: a statement may be refused that would
// have fitted, by at most the factor TestBound_sound logs (1 to 3 for the
// common forms); it never passes one that does not fit.
//
// Overshoot: the heap may exceed the budget by the interpreter's and the
// check's own state (a few KiB a statement, garbage once it ends), what
// the garbage collector has not yet reclaimed (the process's GOGC, not the
// execution's), the page of directory entries globbing reads (4,096
// entries) and the buffer a command fills before charging it (64 KiB at
// most). The statement of exec N>file keeps its reservation until the
// execution ends. Not bounded by the budget: the values an awk or jq
// program builds (GoAWK and gojq have no hook for it; the input they read
// is charged), the line select reads (a byte a system call, bounded by the
// execution's time), the environment list a command asks for (at most the
// variables' size), what a command of Options.Commands (git) holds unless
// it charges Env.Mem itself.
//
// # Known divergences from bash
//
// Of mvdan's interpreter (mvdan.cc/sh v3.14.1): where it differs from bash
// 5.2 the table row says so (field mvdan; diverge where desk's differs
// too). Among them: `>&-` discards output
// instead of failing the write; declare has no -i; assigning a readonly variable does not stop bash -c;
// expansion errors and unbound variables (set -u) exit 1, not 127; cd's
// messages are worded differently; an associative array assigned twice
// counts wrong. Process substitution is refused. set -x traces the loop
// tick as ":". A function body carries its call frame's redirection, so
// exec's redirections made in a function last only until it returns, and
// declare -f prints the redirection (and a function from eval'd text its
// statements' check redirections). read and printf -v assign through eval:
// set -x traces the assignment after the command. Error messages carry no "line N:" (as bash -c on Debian).
//
// # desk's own interpreter (Options.Interpreter, the default)
//
// Options.Interpreter "desk" (or "", the default) runs scripts on package
// internal/shell/interp, desk's own bash interpreter; "mvdan" selects
// mvdan.cc/sh's (the default before). desk's uses the same parser, the
// store for every file access (interp.Files; globbing reads a page of
// entries at a time through interp.DirPager), the commands above (bash
// -c, sh -c, bash file and ./script with a bash or sh shebang run in a
// child interpreter in process), the limits of Options and the memory
// budget. It enforces each limit itself, with the meaning documented
// above: MaxBraceWords and MaxStringBytes on the words a command's brace
// expansions make, counted before any word is expanded (the count
// instrument uses); MaxGlobEntries on the directory entries read while
// expanding one command (it reads each directory once: big/* of n
// entries counts n, where mvdan's counts 2n); MaxCommands, MaxLoopIters,
// MaxCallDepth, MaxArgs, MaxStringBytes, MaxVarBytes, MaxReadBytes and
// MaxMemoryBytes as package interp documents. Variables, command
// substitution output, read, mapfile, eval and source text, a statement's
// expansions and a subshell's copies are charged to the budget as they
// are made, so it runs in full what mvdan's must refuse: mapfile by a
// computed name, an alias holding a command substitution, process
// substitution (an in-process pipe named /dev/fd/N). A command's argument
// /dev/fd/N (a process substitution <(...)), /dev/stdin or /dev/null is
// given to it as a store file under /tmp/.desk-fd holding what the
// descriptor reads (read whole before the command starts, within
// MaxReadBytes), removed when the command ends. Errors read as bash -c's
// under a pipe ("bash: line N: ..."). The compatibility table's rows
// marked mvdan are mvdan's divergences: desk's gives bash's answer there
// (TestBackend_Run_table runs bash to check it); TestInterpTable_* measure
// both on the interpreter's own table. See docs/decisions.md.
//
// # Routing ("auto")
//
// Backend.Route is the run.Options.Router for executions that ask for the
// "auto" backend. It parses the script and collects every command name it can
// know statically (the literal first word of each simple command, also inside
// functions, pipelines and command substitutions, and the command after the
// wrappers command, builtin, exec, env, timeout, xargs, nice, nohup and
// stdbuf, past their options and the options' values: timeout -s KILL 5
// make names make). If every one is an
// interpreter builtin, a function the script defines, or a command of this
// backend, the script runs here; otherwise it goes to the "sandbox" backend
// when one is configured, else Route fails naming the missing commands. Names
// computed at run time ($cmd) cannot be known and do not count. The reason is
// kept in the execution's record (Info.Route).
//
// # Locks
//
// An execution's state is per Run. Counters are atomic; the set of open
// files and input pipes is guarded by execution.fmu, a leaf lock. Every
// vfs.File opened for the script is closed, and every input-copying
// goroutine has ended, before Run returns.
package shell
