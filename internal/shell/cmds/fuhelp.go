package cmds

import "fmt"

// fuHelp prints a coreutils command's --help: body (usage and options,
// ending in a newline), then the lines every coreutils help ends with.
func fuHelp(env *Env, cmd, body string) int {
	fmt.Fprintf(env.Stdout, "%s\nGNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n"+
		"Report any translation bugs to <https://translationproject.org/team/>\n"+
		"Full documentation <https://www.gnu.org/software/coreutils/%s>\n"+
		"or available locally via: info '(coreutils) %s invocation'\n", body, cmd, cmd)
	return 0
}
