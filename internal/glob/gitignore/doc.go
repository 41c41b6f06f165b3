// Package gitignore decides which entries the patterns of .gitignore files
// (and of ignore files in the same format, such as ripgrep's .ignore and
// .rgignore) leave out, as git does. The shell's rg walks with it.
//
// Semantics are git's (gitignore(5)): blank lines and lines starting with
// "#" are skipped ("\#" for a literal "#"); trailing spaces go unless quoted
// ("\ "); "!" re-includes ("\!" for a literal "!"); a trailing "/" matches
// directories only; a pattern with a "/" at its start or in its middle is
// anchored to the directory of its ignore file, any other matches a name at
// any depth below it; "*" and "?" do not match "/", "[...]" is a bracket
// expression, "**/" matches any number of directories, "/**" everything
// inside, and other runs of "*" are plain stars; the last matching pattern
// decides, and the ignore files of deeper directories come after those of
// the directories above. Nothing inside an ignored directory can be
// re-included: a walk that does not descend into an ignored directory gets
// that rule (Rules.Ignored looks at one entry alone). A trailing "\r" is
// dropped from each line, as ripgrep does.
//
// The wildcard matching is mvdan.cc/sh/v3/pattern's translation to RE2 (in
// its Filenames mode, which is git's wildmatch with WM_PATHNAME), so a match
// takes time linear in the path. go-git's plumbing/format/gitignore was the
// first choice, but it disagrees with git where it matters to a walk (see
// docs/decisions.md); the tests compare this package with git check-ignore
// on generated trees.
//
// Limits: MaxRules (4096) rules in force at once and MaxLineBytes (4096)
// bytes a pattern line; past either the rest is left out and Rules.Add
// returns an error wrapping ErrLimit. Callers bound the bytes they read of
// an ignore file.
package gitignore
