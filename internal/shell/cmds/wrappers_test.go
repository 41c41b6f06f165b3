package cmds

import (
	"strings"
	"testing"
)

func TestWrappers(t *testing.T) {
	th := func(c string) string { return "Try '" + c + " --help' for more information.\n" }
	runTextRows(t, []textRow{
		{args: []string{"nohup", "seq", "2"}, out: "1\n2\n"},
		{args: []string{"nohup", "--", "seq", "1"}, out: "1\n"},
		{args: []string{"nohup", "seq", "-x"}, errOut: "seq: invalid option -- 'x'\n" + th("seq"), code: 1},
		{args: []string{"nohup"}, errOut: "nohup: missing operand\n" + th("nohup"), code: 125},
		{args: []string{"nohup", "-n", "true"}, errOut: "nohup: invalid option -- 'n'\n" + th("nohup"), code: 125},
		{args: []string{"nohup", "--x"}, errOut: "nohup: unrecognized option '--x'\n" + th("nohup"), code: 125},
		{args: []string{"nohup", "nosuchcmd"}, errOut: "nohup: failed to run command 'nosuchcmd': No such file or directory\n", code: 127},
		{args: []string{"nohup", "nohup", "false"}, code: 1},
		{args: []string{"nohup", "--help"}, out: nohupHelp},
		{args: []string{"nohup", "--version"}, out: "nohup (GNU coreutils) 9.1\n", host: "the rest of GNU's --version text"},

		{args: []string{"nice"}, out: "0\n", host: "the host's niceness"},
		{args: []string{"nice", "seq", "1"}, out: "1\n"},
		{args: []string{"nice", "-n", "5", "seq", "1"}, out: "1\n"},
		{args: []string{"nice", "-5", "seq", "1"}, out: "1\n"},
		{args: []string{"nice", "-n3", "--adjustment=4", "--", "seq", "1"}, out: "1\n"},
		{args: []string{"nice", "--adj", "+4", "-+5", "seq", "1"}, out: "1\n"},
		{args: []string{"nice", "-n", "99999999999999999999", "true"}},
		{args: []string{"nice", "-n", " 5", "true"}},
		{args: []string{"nice", "-n", "5", "nice"}, out: "0\n", skip: "no niceness in process: GNU prints 5"},
		{args: []string{"nice", "-n", "x", "true"}, errOut: "nice: invalid adjustment ‘x’\n", code: 125},
		{args: []string{"nice", "-n", "1.5", "true"}, errOut: "nice: invalid adjustment ‘1.5’\n", code: 125},
		{args: []string{"nice", "-5x", "true"}, errOut: "nice: invalid adjustment ‘5x’\n", code: 125},
		{args: []string{"nice", "-n", "5"}, errOut: "nice: a command must be given with an adjustment\n" + th("nice"), code: 125},
		{args: []string{"nice", "-n"}, errOut: "nice: option requires an argument -- 'n'\n" + th("nice"), code: 125},
		{args: []string{"nice", "-x", "true"}, errOut: "nice: invalid option -- 'x'\n" + th("nice"), code: 125},
		{args: []string{"nice", "--bogus"}, errOut: "nice: unrecognized option '--bogus'\n" + th("nice"), code: 125},
		{args: []string{"nice", "--adjustment"}, errOut: "nice: option '--adjustment' requires an argument\n" + th("nice"), code: 125},
		{args: []string{"nice", "nosuchcmd"}, errOut: "nice: ‘nosuchcmd’: No such file or directory\n", code: 127},
		{args: []string{"nice", "false"}, code: 1},

		{args: []string{"stdbuf", "-oL", "seq", "1"}, out: "1\n"},
		{args: []string{"stdbuf", "-o", "0", "-e", "1M", "-i", "4KiB", "seq", "1"}, out: "1\n"},
		{args: []string{"stdbuf", "--output=L", "--error=0", "seq", "1"}, out: "1\n"},
		{args: []string{"stdbuf"}, errOut: "stdbuf: missing operand\n" + th("stdbuf"), code: 125},
		{args: []string{"stdbuf", "-o", "L"}, errOut: "stdbuf: missing operand\n" + th("stdbuf"), code: 125},
		{args: []string{"stdbuf", "true"}, errOut: "stdbuf: you must specify a buffering mode option\n" + th("stdbuf"), code: 125},
		{args: []string{"stdbuf", "-i", "L", "true"}, errOut: "stdbuf: line buffering stdin is meaningless\n" + th("stdbuf"), code: 125},
		{args: []string{"stdbuf", "-o", "x", "true"}, errOut: "stdbuf: invalid mode ‘x’\n", code: 125},
		{args: []string{"stdbuf", "-o", "Lx", "true"}, errOut: "stdbuf: invalid mode ‘Lx’\n", code: 125},
		{args: []string{"stdbuf", "-o", "1b", "true"}, errOut: "stdbuf: invalid mode ‘1b’\n", code: 125},
		{args: []string{"stdbuf", "-o", "-1", "true"}, errOut: "stdbuf: invalid mode ‘-1’\n", code: 125},
		{args: []string{"stdbuf", "-o", "99999999999999999999999", "true"}, errOut: "stdbuf: invalid mode ‘99999999999999999999999’: Value too large for defined data type\n", code: 125},
		{args: []string{"stdbuf", "-o"}, errOut: "stdbuf: option requires an argument -- 'o'\n" + th("stdbuf"), code: 125},
		{args: []string{"stdbuf", "-oL", "nosuchcmd"}, errOut: "stdbuf: failed to run command ‘nosuchcmd’: No such file or directory\n", code: 127},
		{args: []string{"stdbuf", "-o0", "nice", "nohup", "seq", "1"}, out: "1\n"},
	})
}

// nohupHelp is GNU nohup's --help in C.UTF-8.
var nohupHelp = strings.Join([]string{
	"Usage: nohup COMMAND [ARG]...",
	"  or:  nohup OPTION",
	"Run COMMAND, ignoring hangup signals.",
	"",
	"      --help        display this help and exit",
	"      --version     output version information and exit",
	"",
	"If standard input is a terminal, redirect it from an unreadable file.",
	"If standard output is a terminal, append output to 'nohup.out' if possible,",
	"'$HOME/nohup.out' otherwise.",
	"If standard error is a terminal, redirect it to standard output.",
	"To save output to FILE, use 'nohup COMMAND > FILE'.",
	"",
	"NOTE: your shell may have its own version of nohup, which usually supersedes",
	"the version described here.  Please refer to your shell's documentation",
	"for details about the options it supports.",
	"",
	"GNU coreutils online help: <https://www.gnu.org/software/coreutils/>",
	"Report any translation bugs to <https://translationproject.org/team/>",
	"Full documentation <https://www.gnu.org/software/coreutils/nohup>",
	"or available locally via: info '(coreutils) nohup invocation'",
	"",
}, "\n")
