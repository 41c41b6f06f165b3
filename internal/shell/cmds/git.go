package cmds

import (
	"net/http"

	"github.com/desk-dev/desk/internal/gitws"
)

func init() { Register("git", Git(nil)) }

// Git returns the git command of the shell backend: every subcommand runs
// in-process in package gitws on the workspace store. client carries the
// http(s) requests of clone, fetch, pull and push (where the workspace's
// egress policy plugs in); nil refuses http(s) remotes. The registered
// "git" has none; a host that allows network puts Git(client) in
// shell.Options.Commands.
func Git(client *http.Client) Func {
	return func(env *Env, args []string) int {
		return gitws.Main(&gitws.Env{
			Ctx: env.Ctx, FS: env.FS, Dir: env.Dir,
			Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
			Getenv: env.Getenv, Now: env.Now, HTTPClient: client,
			MaxObjectBytes: env.Limits.MaxReadBytes,
		}, args)
	}
}
