// Package interp is desk's own bash interpreter: it walks the syntax tree
// mvdan.cc/sh/v3/syntax parses (LangBash) and runs it as bash 5.2 would,
// with every file access through Config.Files and every command it does
// not run itself through Config.Exec. It never starts a host process and
// never touches the host's files.
//
// # Concepts
//
// A Runner is one shell: New makes the execution's, and subshells
// (( ... ), pipeline stages, command and process substitutions, background
// jobs) run on copies of it, with their own variables, functions, options,
// traps and file descriptors. The runners of one execution share their
// counters (limits) and a stop flag. RunSource parses and runs a script as
// bash -c does (on a syntax error the lines before it run, then bash's two
// lines of message, status 2); Run runs a parsed one.
//
// Parts: vars.go (variables: scalars, sparse indexed arrays, associative
// arrays in insertion order, namerefs, the attributes -i -l -u -r -x -n),
// expand.go (words: brace expansion, tilde, parameter expansion in every
// form, command and arithmetic substitution, field splitting with any IFS,
// globbing, quote removal), arith.go (arithmetic: bash's operators, bases,
// 64-bit wrap-around, bash's error words), pattern.go (shell patterns with
// extglob, classes, nocase; globbing with nullglob, failglob, dotglob,
// globstar, nocaseglob), redir.go (file descriptors 0–1023 and {var},
// dup and move, here-documents and here-strings, the virtual /dev files,
// in-process pipes for pipelines and process substitution), test.go
// ([[ ]], test and [), braces.go (brace expansion and its count),
// builtins.go and printf.go (the builtins),
// call.go (simple commands, functions, declare), bashfmt.go (functions
// printed as bash prints them), syntaxerr.go (parse errors worded as bash's),
// lenient.go (the rewrites that let the parser take what bash takes),
// traps.go (trap, kill, signals, DEBUG and RETURN, BASH_COMMAND).
//
// # Traps and signals
//
// EXIT, ERR, DEBUG and RETURN run as bash runs them. DEBUG runs before
// every simple command, (( )), [[ ]], each for iteration, case and the
// parts of an arithmetic for. $BASH_COMMAND is the command, words as
// written. Functions and subshells see DEBUG and RETURN only under set -T.
// A function that sets one keeps it; after return N, RETURN sees $? 0.
// trap -p lists in bash's order (EXIT, signals by number, DEBUG, ERR,
// RETURN); a subshell lists its parent's traps until it sets one. kill
// reaches only the execution's own shells: $$, a subshell's $BASHPID, a
// child bash -c (its $$; its $PPID is the caller) and background jobs
// ($!). A trapped signal runs its trap once the running command ends; an
// empty action ignores it. An untrapped one that ends a process ends that shell with
// 128+n, and interrupts a background job's command; its EXIT trap runs.
// A ( ) subshell or bash -c that a signal ended is reported as bash
// reports a foreground job: SIGTERM (or a signal this shell traps) by its
// name ("Terminated"), SIGINT and SIGPIPE not at all, the others as
// "bash: line N:  PID Killed                  ( cmd )" with the job's
// command on one line (not for a pipeline's stage, nor for a background
// job: "( ... ) &" killed is the job's own end). Not done: bash's
// notification at wait of a background job that a signal other than
// SIGTERM, SIGINT and SIGPIPE ended ("bash: line N: PID Killed  sleep 5");
// desk prints nothing there. CHLD, CONT, URG, WINCH and the stop signals do nothing.
// Never the host's processes: a pid that is not one of the execution's
// is "No such process".
//
// Errors in expansions as in bash -c: ${x?} and set -u end the shell
// (127); a bad substitution or an arithmetic error discards the command
// being read (a line of the script, of eval's or source's text, or a
// trap's action) with status 1 and reading goes on, except in a subshell
// (it ends) and under set -e.
//
// The call stack is bash's: FUNCNAME, BASH_SOURCE and BASH_LINENO, caller,
// and messages named by ${BASH_SOURCE[0]}: a function defined by bash -c's
// text is bash's "environment".
//
// Order as in bash: a simple command's words are expanded (command
// substitutions run) before its redirections are performed, so
// echo $(cat f) > f reads f before truncating it; an assignment-only
// command assigns, then redirects.
//
// # What goes out
//
// Files.Open, Stat and ReadDir get absolute paths; /dev/null, /dev/zero,
// /dev/urandom, /dev/random, /dev/stdin, /dev/stdout, /dev/stderr and
// /dev/fd/N are served by the interpreter for redirections (other /dev
// paths: EACCES). Config.Exec runs every other command with a Call: its
// arguments, directory, standard streams, exported environment, the
// prefix bash puts before its messages, the shell's readable descriptors
// (Fd, for /dev/fd/N arguments) and Sub, which runs a script in a child
// interpreter (bash -c, sh -c, bash file): a fresh shell on the same
// counters.
//
// # Limits
//
// Limits bound what one execution does: simple commands, loop iterations,
// call frames alive at once (functions, subshells, eval, source, command
// substitutions; a pipeline stage is none), the bytes of one word or
// variable, all variables together (MaxVarBytes), the arguments of one
// command (for lists and array literals are bounded by the memory budget
// instead, as bash has no such limit), the directory entries globbing
// reads while expanding one command (MaxGlobEntries; a Files that is a
// DirPager is read a page of at most 4,096 entries at a time, asking for
// one past what the limit leaves, so a huge directory is never listed
// whole), the words the brace expansions of one command make
// (MaxBraceWords) and the bytes of their literal text (MaxStringBytes),
// both counted before any of its words is expanded (braces.go: a product
// over the groups of a word, a sum over the alternatives of a group and
// over the words; exact), a sourced file (MaxReadBytes). Reaching one calls Config.Limit,
// whose error stops every runner of the execution (Run returns it).
// Cancellation of the context is checked at every statement, loop
// iteration, arithmetic step and replacement match.
//
// Config.Mem is charged before memory is used where the size is known
// first (mem.go): variables as their size changes; what a statement's
// expansions build (concatenations, replacements, case changes, joins, the
// @ operators, here-documents, field and segment lists), each builder
// reserving its next capacity before it grows, so a word past
// MaxStringBytes or the budget stops before it is built, these holds
// returned when the statement ends; command substitution output as it
// arrives; read's line, mapfile's input, eval's and source's text before
// it is parsed, and the functions eval'd or sourced text declares; a
// subshell's copies of the arrays it inherits. A subshell returns what it
// charged when it ends and never what its parent did. The backend's tests
// (TestBound_sound, TestMemory_*) hold both interpreters to it: the heap
// never grows past what was charged plus a tenth and 4 MiB.
//
// Patterns without extglob groups match in linear time (matchSimple), and
// ${x//p/r}, ${x/#p/r}, ${x/%p/r}, ${x##p} and ${x%%p} find their matches
// with one pass of a regular expression the pattern translates to (a
// literal pattern with strings.Index); extglob patterns backtrack, bounded
// by a step count per match.
//
// # Never a panic
//
// A panic anywhere in the interpreter (a bug) is recovered, in the main
// runner and in every goroutine it starts, and stops the execution with
// ErrInternal; the shell backend's fuzz target (FuzzDeskInterp) runs
// generated scripts and fails on it.
//
// # Known gaps
//
// The parser is mvdan.cc/sh's, made lenient (lenient.go): where it
// refuses what bash accepts and reports only when it runs ($((1 +)),
// ((2 3)), $((1=2)), let 1=2, ${x!y}, ${a b}, ${x~~}, ${m[a b]},
// declare 1x=2, A=(a b) cmd), Parse rewrites that part into a marker the
// interpreter evaluates from the original text, as bash does, and parses
// again; errors in [[ ]] are worded as bash's (syntaxerr.go). A
// construct spanning lines and the (( )) of for are not rewritten. let is
// run as the builtin (its words expanded, then evaluated as text, with
// bash's error tokens; printed code shows let). An
// expansion error inside eval stops the script (bash: eval fails, status
// 1).
// Not done yet: coproc, select's full prompt, times' figures, caller's
// frames, declare -t (functions' trace attribute), the messages bash
// prints with a pid for other fatal signals; set -o only records
// most options (errexit, nounset, xtrace, noglob, noclobber, pipefail and
// braceexpand act). Indexed arrays are maps (about 70 bytes an element
// over its life, charged as 96): a dense slice would cost a third.
package interp
