package cmds

import "strings"

func init() { Register("basename", Basename) }

// Basename prints NAME with any leading directory components removed, and
// a SUFFIX if given, as GNU basename: -a takes several names, -s SUFFIX
// removes a suffix (and implies -a), -z ends lines with NUL.
func Basename(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "a|multiple", "s|suffix=", "z|zero")
	if !ok {
		return 1
	}
	multi, suffix, end := false, "", "\n"
	for _, o := range opts {
		switch o.name {
		case "multiple":
			multi = true
		case "suffix":
			multi, suffix = true, o.val
		case "zero":
			end = "\x00"
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "basename")
		return 1
	}
	if !multi {
		if len(operands) > 2 {
			env.Errorf("basename", "extra operand %s", quote(env, operands[2]))
			fuTryHelp(env, "basename")
			return 1
		}
		if len(operands) == 2 {
			suffix = operands[1]
		}
		operands = operands[:1]
	}
	for _, op := range operands {
		b := fuBaseOf(op)
		if op == "" {
			b = ""
		}
		if suffix != "" && b != suffix && strings.HasSuffix(b, suffix) && b != "/" {
			b = strings.TrimSuffix(b, suffix)
		}
		fuPrintf(env, "%s%s", b, end)
	}
	return 0
}
