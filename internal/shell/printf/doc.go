// Package printf is the shell's one printf: GNU coreutils' standalone
// printf (the printf command, run through env, xargs or find -exec) and
// bash's printf builtin (the desk interpreter's, and the mvdan
// interpreter's through package cmds) format with the same code, in two
// flavors.
//
// Format takes a format and its arguments and an Env (where the output
// and the diagnostics go, the caller's quoting, a time formatter for bash's
// %(FORMAT)T). Both flavors take %s %b %q %c %d %i %o %u %x %X %e %E %f %F
// %g %G and %%, the flags - + space # 0 ', width and precision (also *), the
// length modifiers h l L j z t, backslash escapes in the format, and C
// numeric constants (decimal, 0x hex, 0 octal, 'c or "c). Floating point
// follows the x86 long double GNU and bash print (64-bit mantissa) through
// math/big. The flavors differ where the tools do:
//   - Coreutils: "printf: ‘abc’: expected a numeric value" (status 1, the
//     rest printed), "value not completely converted", out of range is an
//     error; excess arguments after a format without conversions are warned
//     about; %b and %q take no flags, width or precision; %q quotes in
//     gnulib's shell-escape style (Env.QuoteShell).
//   - Bash: "printf: abc: invalid number", out of range a warning with the
//     value clamped (status 0); "`z': invalid format character" and "`%5':
//     missing format character"; %b, %q and %Q (the precision cuts the
//     argument before quoting) take width and precision; %q quotes as bash's
//     sh_backslash_quote (or $'...' for what is not printable); %(FORMAT)T
//     formats seconds since the epoch (-1 or empty: now, -2: the shell's
//     start) through Env.Strftime.
//
// Bounds: a field (its width, or a number's precision) over MaxField (1
// MiB) is refused with ERANGE unless the destination is a Reserver that
// takes it (bash's printf -v and the interpreter's output, both bounded by
// the shell's MaxStringBytes). Not supported: %a and %A (invalid
// conversions), grouping by the ' flag (the C and C.UTF-8 locales have no
// thousands separator).
package printf
