package cmds

// PrintfBuiltin is bash's printf builtin, which the shell runs in place of
// its interpreter's (that one lacks precision, %q, %f and more): the formats
// of Printf, with bash's differences. A bad number reads "printf: abc:
// invalid number" (status 1); a number out of range is a warning and is
// clamped (status 0); an unknown conversion is "`z': invalid format
// character"; extra arguments after a format without conversions are
// ignored silently; no arguments prints the usage line (status 2); %q quotes
// as bash does (backslashes, or $'...' for control characters). The shell
// handles -v NAME itself. Not supported: %(fmt)T.
func PrintfBuiltin(env *Env, args []string) int {
	return printf(env, args, true)
}
