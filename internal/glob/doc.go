// Package glob compiles the patterns desk matches names and paths with, so
// that every surface means the same by them. It is layer 0: it imports only
// the standard library and mvdan.cc/sh/v3/pattern (subpackage gitignore adds
// go-git's gitignore parser).
//
// # Path globs
//
// Compile compiles a glob an agent writes for the API's find and grep and the
// find and grep tools. It matches a slash-separated relative path:
//
//   - "*" matches any characters but "/", "?" one character but "/", and
//     "[..]" a bracket expression ("[!a]" or "[^a]" negated, ranges,
//     "[:alpha:]" classes), as in bash. Wildcards match a leading "." too
//     (bash's dotglob).
//   - A segment "**" matches any number of segments, none included:
//     "src/**/*.go" matches "src/a.go" and "src/x/y/a.go", and "a/**"
//     matches "a" and everything below it.
//   - "{a,b}" alternatives, nested allowed, are expanded first.
//   - "\" quotes the next character; an unclosed "[" is a literal.
//   - Leading and trailing slashes are ignored. With nameOnly, a pattern
//     without "/" matches the last segment (a name at any depth).
//
// The translation to a regular expression is mvdan.cc/sh/v3/pattern's (the
// shell interpreter's own); the alternatives become one RE2 expression, so a
// match takes time linear in the path whatever the pattern: a glob such as
// "**/**/**/**/x" costs no more than "**/x".
//
// # Shell patterns
//
// CompileShell compiles a pattern matched as fnmatch(3) with no flags does:
// "*" and "?" match "/" and a leading "." too. It is what the shell's find
// -name/-path, grep --include/--exclude, tree -I, du and tar --exclude and
// rg's -g globs use. A malformed pattern is an error; a nil *Shell, which the
// commands keep for one, matches nothing, as fnmatch(3) does.
//
// # Limits
//
// Brace expansion is bounded: at most MaxAlternatives (256) alternatives of
// at most MaxExpansionBytes (16 KiB) together; past either Compile fails
// with an error wrapping ErrLimit. The compiled expression then has at most
// a few instructions per byte of the expansion, and callers bound the
// pattern's own length (tools.Options.MaxPatternBytes and the API's, 1024
// bytes by default).
package glob
