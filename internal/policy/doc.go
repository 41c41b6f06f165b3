// Package policy is desk's one statement of who may touch which paths and
// run which commands, as plain values evaluated here and nowhere else: the
// API, MCP, the tools and the run framework call it; backends never
// re-implement it.
//
// # Policies and layers
//
// A Policy holds ordered path rules and ordered command rules. The rules in
// force for a call are a Set of Layers: the workspace's policy (Store),
// then a token's (auth.Token.Policy), then an execution's; a call must pass
// every layer, so a later layer narrows, never widens — the shape of
// package egress's layers. Narrowing layers travel with the call's context
// (WithLayer, LayersFrom). The zero Policy and the zero Set restrict
// nothing, so a workspace without a policy behaves as before.
//
// # Path rules
//
// "ACCESS PATTERN" (ParsePathRule): access is read, write or deny; the
// pattern a path glob of package glob ("*", "?", "[..]", "**" segments,
// "{a,b}"). A pattern starting with "/" is absolute ("/workspace/**"), one
// starting with "**" matches at any depth of the whole tree ("**/.env"),
// any other is relative to /workspace ("src/**" is "/workspace/src/**").
// "a/**" matches a itself and everything below it. In one layer the first
// rule whose pattern matches the path decides; a path no rule of a layer
// matches is not restricted by it. The access of a path is the least any
// layer grants (deny < read < write). Set.Path decides one access; the
// caller passes the cleaned absolute path it will touch (after resolving
// symlinks where it can).
//
// # Command rules
//
// "ACTION PATTERN" (ParseCommandRule): action allow, ask or deny; the
// pattern words, the command's name then its arguments, each a shell
// pattern (fnmatch: "*" matches "/" too). A rule matches a command whose
// words start with its words: "npm publish" matches "npm publish --tag
// next", a final "*" word also matches no word ("git push *" matches "git
// push"); a name without "/" matches the last element of the command's
// name ("curl" matches "/usr/bin/curl"). Options before a subcommand are
// words like any other: "git push *" does not match "git -C x push" (write
// "git * push *" too). In one layer the first matching rule decides, else
// Policy.DefaultCommand (allow when unset); across layers the strictest
// (deny > ask > allow).
//
// For bash (the shell and sandbox backends, auto), Parse finds every simple
// command of the script with mvdan.cc/sh's syntax package: in functions,
// pipelines, lists, subshells, loops, conditionals, $(...), backquotes,
// <(...); the literal scripts of eval, bash -c (and sh, dash, zsh, ksh)
// and alias values; and what wrappers run (command, builtin, exec, env
// (-S too), nohup, nice, timeout, time, sudo, doas, setsid, stdbuf, ionice,
// chrt, taskset, xargs, find -exec/-execdir/-ok/-okdir) besides the
// wrappers. A word whose value is known only when the script runs —
// $var, ${...}, $(...), an unquoted glob or brace pattern, ~, $'..' — is
// dynamic: a rule matches it maybe, and a maybe-match makes the decision at
// least as strict as that rule (the first sure match still ends the
// search). Code the parse cannot see at all is one dynamic command, which
// every rule may match, so the strictest rule of the layer (or its
// default) decides: eval or bash -c of a non-literal, a shell reading a
// script file or its standard input, source and ".", a script that does
// not parse, more than MaxCommands (4096) commands or MaxDepth (8) nested
// literal scripts.
//
// How the attempts to hide a command fare (TestSet_Script):
//
//   - eval "$(echo Y3VybCB4 | base64 -d)": dynamic, the strictest rule.
//   - alias p='git push'; p: caught (the alias value is parsed).
//   - command git push, env A=1 git push, exec, nohup, timeout: caught.
//   - echo push | xargs git: caught as git with unknown arguments (rules
//     for git that could match decide, the strictest of them).
//   - find . -exec curl {} \;: caught ({} is a dynamic word).
//   - bash -c "$x", $cmd args, "${a[@]}": dynamic, the strictest rule.
//   - a program that runs another by itself (make, npm run, a script
//     file's own commands, python -c, git's hooks and aliases): not seen by
//     parsing; in the sandbox, decided at exec (every execve of the
//     execution's processes, by seccomp user notification: package
//     sandbox, "Command rules at exec"); in the shell backend, whose
//     commands are Go code, there is no such exec to check.
//
// The js backend runs no programs (node:child_process is refused), so
// command rules do not apply to it.
//
// # Enforcement (the callers)
//
// Set.AllowPath (and Checker, which remembers decisions for one call) is
// the store's path check, vfs.Access: the API puts it on every workspace
// call's context, run's Gate (run.PolicyGate) on every execution's, and
// the store consults it on each walk of a name — so the file routes, the
// tools, MCP, the shell's commands and js's node:fs are all bound by it. A
// denied path is ENOENT for every use (not visible), a change to a
// read-only one EACCES. The sandbox's mount (fusefs Options.AccessOf)
// checks the calling process's execution's rules and answers EACCES for
// both. run's Gate decides each bash execution's script (Set.Script) and
// holds an asked one in Approvals.
//
// # Decisions
//
// Every evaluation returns a Decision: the kind (path or command), the
// action, the Outcome (Allowed, Denied, Asked), the deciding Rule and its
// layer (Source), and the subject (the path or the command line). It is a
// plain value for the caller to act on and for the audit journal to record.
//
// A Checker counts its refusals in a Denials (Set.CheckerFor takes the
// call's from the context, WithDenials): one Denial per rule, layer and
// access, with the first refused path and a count, at most MaxDenialKinds
// (16) kinds, further refusals counted only. The caller takes them when
// the call ends (Take) and records one policy record per kind, so a find
// over a denied tree costs one record, not one per path. Counting costs one
// Set.Path evaluation per refusal; allowed paths cost nothing more.
//
// # Approvals
//
// A call whose decision is Asked waits in Approvals.Wait as
// pending_approval (listed by List with its script, the decision and who
// asked) until Decide approves it (Wait returns nil), denies it
// (ErrApprovalDenied, naming the approver and the rule), the timeout
// passes (ApprovalOptions.Timeout, DefaultApprovalTimeout 10 minutes:
// ErrApprovalTimeout) or the caller goes away. Who may decide is the
// caller's check (the approve scope of package auth). ApprovalOptions
// .OnDecide sees each approval when it stops pending: the record of
// decisions. At most MaxPending (DefaultMaxPending, 64) wait at once per
// Approvals (ErrTooManyPending past it); a subject is kept to at most
// MaxSubjectBytes (16 KiB). Approvals live in the process that holds the
// call; with ApprovalOptions.Dir each pending one is also a file
// (Dir/WS/approvals/ID.json, written before it is listed, removed when it
// stops pending). A restart cannot resume a held call (its request or
// execution died with the process), so the next process fails the ones
// it finds (Abandon: status Abandoned, passed to OnDecide for the
// record) and no longer lists them; the caller retries.
//
// # Storage
//
// Store keeps each workspace's policy in DATA/policy/WS/policy.json (0600,
// 0700 directories, outside the store, replaced atomically and bounded in
// size by package wsfile), as egress.Store keeps its policy; Policy keeps the compiled policy while the file's size, time
// and inode stay the same. A token's rules are part of its record
// (auth.Token.Policy).
//
// # A workspace's own limits
//
// Limits are one workspace's quota values over the server's (bytes and
// inodes of its store, executions per minute, CPU per day, CPU per
// execution), kept by Store
// in DATA/policy/WS/limits.json beside its policy (Store.Limits,
// SetLimits; zero Limits remove the file, a zero field is the server's
// value). Package policy only keeps them: the store enforces the quota
// (vfs.FS.SetLimits, host.Options.StoreLimits), the API the execution
// quotas (a run.Quota), run the CPU limit per execution.
//
// # Limits
//
// At most MaxPathRules and MaxCommandRules (256 each) per policy and
// MaxPatternBytes (1024) per pattern (Validate, ErrInvalid). Evaluating a
// path costs one compiled-pattern match per rule tried (linear in the
// path); a script costs one parse (bounded by the backend's source limit)
// and one match per command and rule tried. BenchmarkEvaluate measures it.
package policy
