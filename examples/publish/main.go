// Command publish is desk's publishing example: a small web project is
// uploaded into a workspace, built in the sandbox (npm run build), committed
// with git in the shell backend, and published as a repository anyone with
// its token can clone.
//
//	go run ./examples/publish [-w WORKSPACE]
//
// It talks to the server `desk serve` wrote in the config file, or to
// $DESK_URL with $DESK_TOKEN.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/desk-dev/desk/client"
)

// site is the project: site/ beside this file.
//
//go:embed all:site
var site embed.FS

func main() {
	ws := flag.String("w", "publish-example", "the workspace (created when missing)")
	flag.Parse()
	c, err := client.FromEnvironment(client.Options{})
	if err == nil {
		_, err = run(context.Background(), c, *ws, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
}

// run publishes the site from workspace ws and returns the clone URL (with
// a read token in it), which it also prints to w.
func run(ctx context.Context, c *client.Client, ws string, w io.Writer) (string, error) {
	if _, err := c.CreateWorkspace(ctx, ws); err != nil && client.ErrorCode(err) != "exists" {
		return "", err
	}
	// 1. Upload the project tree as one archive.
	sub, _ := fs.Sub(site, "site")
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	if err := tw.AddFS(sub); err != nil {
		return "", err
	}
	tw.Close()
	sum, err := c.PutTree(ctx, ws, "site", &archive, client.TreeOptions{Format: client.FormatTar})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(w, "uploaded %d files into /workspace/site\n", sum.Files)
	// 2. Build it in the sandbox, with the userland's node and npm.
	if err := runScript(ctx, c, ws, w, "sandbox", "cd site && npm run build --silent && ls dist"); err != nil {
		return "", err
	}
	// 3. Commit it with git, in-process on the shell backend (the built
	// pages stay out: .gitignore).
	if err := runScript(ctx, c, ws, w, "shell", `cd site
[ -d .git ] || git init -q -b main
git config user.name "desk example" && git config user.email example@desk.invalid
git add -A && { git diff --cached --quiet || git commit -q -m "Site: pages and their build"; }
git log --oneline -1 && git status --short`); err != nil {
		return "", err
	}
	// 4. Publish the repository, with a read token for whoever clones it.
	if _, err := c.CreateArtifact(ctx, ws, client.ArtifactRequest{Name: "site", Path: "site"}); err != nil && client.ErrorCode(err) != "exists" {
		return "", err
	}
	tok, err := c.CreateArtifactToken(ctx, ws, "site", client.ArtifactTokenRequest{Scope: client.ArtifactScopeRead})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(w, "clone it: git clone %s\n", tok.URL)
	return tok.URL, nil
}

// runScript runs a script on a backend and copies its output to w.
func runScript(ctx context.Context, c *client.Client, ws string, w io.Writer, backend, script string) error {
	r, err := c.Run(ctx, ws, client.ExecRequest{Backend: backend, Source: script})
	if err != nil {
		return err
	}
	fmt.Fprint(w, r.Stdout)
	if r.Status != client.StatusCompleted || r.ExitCode != 0 {
		return fmt.Errorf("%s: %s, exit %d: %s%s", backend, r.Status, r.ExitCode, r.Error, r.Stderr)
	}
	return nil
}
