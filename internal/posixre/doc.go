// Package posixre translates POSIX regular expressions, basic (BRE) and
// extended (ERE) in GNU's flavour, to Go's RE2 syntax: the one translator
// of the shell's grep, sed, expr and csplit (internal/shell/cmds) and of
// git grep (internal/gitws), which are in layers that cannot import each
// other. It is a leaf: the standard library only.
//
// Translate keeps GNU's rules: in a BRE \( \) \{ \} \| \+ \? are
// operators and a leading * is literal; in an ERE a leading * + ? {..} is
// dropped with GNU's warning ("* at start of expression"); bracket
// expressions with the POSIX classes ([:alpha:] ...; ASCII only, as RE2's),
// equivalence classes and collating symbols of one character; \< \> \b \B
// \w \W \s \S \` \'. Syntax errors are Error values with GNU's messages.
// Back-references cannot be expressed in RE2: a valid one is ErrBackref.
// Matching leftmost-longest (regexp.Regexp.Longest) is the caller's
// choice, as POSIX wants it.
//
// Check bounds an RE2 expression before a program is built for it: its
// length and its compiled instructions, estimated from the parse tree
// first (EstimateInsts), so "(?:x{1000}){1000}" costs nothing; package
// search's CheckRegexp (the API's and the tools' grep, the shell's grep
// and rg) and git grep use it.
package posixre
