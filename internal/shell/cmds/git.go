package cmds

import (
	"net/http"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/gitws"
)

func init() { Register("git", Git(nil)) }

// Git returns the git command of the shell backend: every subcommand runs
// in-process in package gitws on the workspace store. The http(s)
// requests of clone, fetch, pull and push go through the execution's
// network (Env.Net, run.Job.Net: the workspace's egress policy, each
// redirect checked too), else through client; with neither, http(s)
// remotes are refused. The registered "git" has no client: it uses Env.Net.
// A refusal by the egress policy is git's error with its explanation
// (egress.RefusalErrors); go-git would call any 403 an authentication
// failure.
func Git(client *http.Client) Func {
	return func(env *Env, args []string) int {
		c := client
		if env.Net != nil {
			c = &http.Client{Transport: egress.RefusalErrors(env.Net)}
		}
		return gitws.Main(&gitws.Env{
			Ctx: env.Ctx, FS: env.FS, Dir: env.Dir,
			Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
			Getenv: env.Getenv, Now: env.Now, HTTPClient: c,
			MaxObjectBytes: env.Limits.MaxReadBytes,
		}, args)
	}
}
