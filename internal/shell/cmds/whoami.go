package cmds

import "fmt"

func init() {
	Register("whoami", Whoami)
	Register("hostname", Hostname)
}

// Whoami prints the name of the effective user, as GNU whoami does from
// geteuid (not $USER): the workspace's identity is root (uid 0), as id,
// ls -l and the sandbox report it.
func Whoami(env *Env, args []string) int {
	_, ok := parseNoOperands(env, "whoami", args[1:], optSpec{})
	if !ok {
		return 1
	}
	fmt.Fprintln(env.Stdout, fuUserName(0))
	return 0
}

// Hostname prints the host name: $HOSTNAME, or "workspace". Setting it is
// refused.
func Hostname(env *Env, args []string) int {
	_, ops, ok := parseOpts(env, "hostname", args[1:], optSpec{shorts: "sfAi", longs: []string{"short", "fqdn", "long"}})
	if !ok {
		return 1
	}
	if len(ops) > 0 {
		env.Errorf("hostname", "you must be root to change the host name")
		return 1
	}
	h := env.Getenv("HOSTNAME")
	if h == "" {
		h = "workspace"
	}
	fmt.Fprintln(env.Stdout, h)
	return 0
}
