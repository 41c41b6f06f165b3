package cmds

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/desk-dev/desk/internal/gitws"
)

func init() { Register("git", Git(nil)) }

// Git returns the git command of the shell backend: every subcommand runs
// in-process in package gitws on the workspace store. The http(s)
// requests of clone, fetch, pull and push go through the execution's
// network (Env.Net, run.Job.Net: the workspace's egress policy, each
// redirect checked too), else through client; with neither, http(s)
// remotes are refused. The registered "git" has no client: it uses Env.Net.
func Git(client *http.Client) Func {
	return func(env *Env, args []string) int {
		c := client
		if env.Net != nil {
			c = &http.Client{Transport: refusalError{env.Net}}
		}
		return gitws.Main(&gitws.Env{
			Ctx: env.Ctx, FS: env.FS, Dir: env.Dir,
			Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
			Getenv: env.Getenv, Now: env.Now, HTTPClient: c,
			MaxObjectBytes: env.Limits.MaxReadBytes,
		}, args)
	}
}

// refusalError turns the egress's refusal (a 403 answer marked
// X-Desk-Egress: refused) into an error carrying its explanation, which
// git prints; go-git would report any 403 as an authentication failure.
type refusalError struct{ rt http.RoundTripper }

func (r refusalError) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rt.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Desk-Egress") != "refused" {
		return resp, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return nil, errors.New(strings.TrimSpace(string(b)))
}
