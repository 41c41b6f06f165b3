// Package deskgit is the js backend's desk:git module: git for JavaScript
// programs, run in-process by package gitws on the workspace store (the
// same implementation as the shell backend's git command; there is no
// second git). It is a jsvm.HostModule; desk serve gives the js backend
// Modules() (cmd/desk/backends.go), so that
//
//	import git from 'desk:git';          // or
//	import { clone, status, commit } from 'desk:git';
//
// works in every execution. Each function is async, takes its positional
// arguments then an optional options object, and runs one git command line
// (two or three for commit and branch) with the execution's environment
// (HOME, GIT_AUTHOR_NAME and the rest: job.Env, never the host's) in the
// directory options.cwd (default the execution's cwd; relative to it).
//
// # Functions
//
//	cli(argv, {cwd, stdin})        any git command line (a leading "git" is
//	                               dropped): {stdout, stderr, code}; a
//	                               non-zero exit is a result, not an error
//	init(dir, {bare, branch})      {stdout, stderr}
//	clone(url, dir, {depth, branch, singleBranch, bare, noCheckout, origin})
//	                               {dir (absolute), stdout, stderr}
//	status({paths, untracked, ignored})
//	                               [{path, from, index, worktree}]: git's
//	                               porcelain v1 columns X and Y (" ", M, A,
//	                               D, R, C, U, ?, !), from for a rename
//	diff(...revs, {cached, paths, stat, nameOnly, nameStatus, context})
//	                               git diff's text
//	log(...revs, {n, skip, paths, all})
//	                               [{hash, parents, author, email, date,
//	                               committer, committerEmail, committerDate,
//	                               subject, message}], newest first; dates
//	                               are ISO 8601 (%aI)
//	add(paths, {all, update, force})
//	commit(message, {all, amend, allowEmpty, author, date, paths})
//	                               {hash, branch, stdout, stderr}
//	checkout(ref, {create, start, force, detach, paths})
//	branch()                       [{name, hash, current}]
//	branch(name, {start, delete, force})
//	fetch(remote, {depth, prune, tags})
//	pull(remote, branch, {ffOnly, noFf})
//	push(remote, refspecs, {force, delete, tags, setUpstream})
//	revParse(rev)                  the object id
//
// Paths and refspecs take a string or an array of strings. A positional
// value that starts with "-" (which git would read as an option) is
// refused; git.cli passes anything.
//
// # Errors
//
// A git command that exits non-zero rejects with an Error whose message is
// git's error text (stderr without its "fatal: "/"error: " prefix), code
// ERR_GIT, exitCode, stderr and argv (the command line run). Bad arguments
// reject with ERR_INVALID_ARG_TYPE or ERR_INVALID_ARG_VALUE (an unknown
// option is named, so a typo is not silently ignored); output past
// Module.MaxOutputBytes with E2BIG.
//
// # Network
//
// clone, fetch, pull and push reach http(s) remotes only through the
// execution's network, run.Job.Net: the workspace's egress policy, exactly
// as the shell's git (egress.RefusalErrors turns a refusal into git's error,
// so the message names the host, the policy and the rule, and how to allow
// it). Without a network (Job.Net nil) http(s) remotes fail with gitws's
// "network access is not configured" error. Remotes in the workspace (a
// path, file://) need no network. Credentials: as the shell's git, none are
// sent yet (gitws.Env.Credentials is not wired to the workspace's secrets).
//
// # Limits
//
// Each call's stdout and stderr are bounded by Module.MaxOutputBytes (8 MiB
// each by default): the result must fit in the engine's memory (jsvm's
// MaxMemory, 64 MiB by default). A blob read for a diff is bounded by
// MaxObjectBytes (gitws's default, 64 MiB). A call runs synchronously on
// the execution's thread (timers wait for it) under the execution's
// context: its timeout and kill stop it at the next store call or network
// read.
//
// # Why no model-facing git tool
//
// The agent tools (internal/tools) get git through exec: `git status`,
// `git commit -am ...` in the shell backend run this same gitws in-process,
// and a model knows git's command line better than any schema desk could
// invent. A structured tool would duplicate exec with a smaller surface.
// desk:git is for programs, where parsed results (status entries, log
// records) and thrown errors are what a program wants.
package deskgit
