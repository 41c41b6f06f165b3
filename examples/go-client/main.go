// Command go-client uses desk's Go client: create a workspace, upload a
// tree, run its tests in the sandbox, and read what they changed.
//
//	go run ./examples/go-client [-w WORKSPACE] [DIR]
package main

import (
	"archive/tar"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/desk-dev/desk/client"
)

func main() {
	ws := flag.String("w", "go-client-example", "the workspace")
	flag.Parse()
	dir := "examples/go-client/project"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	c, err := client.FromEnvironment(client.Options{})
	if err == nil {
		err = run(context.Background(), c, *ws, dir, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c *client.Client, ws, dir string, w io.Writer) error {
	if _, err := c.CreateWorkspace(ctx, ws); err != nil && client.ErrorCode(err) != "exists" {
		return err
	}
	pr, pw := io.Pipe() // the tree goes up as a tar stream, of any size
	go func() {
		tw := tar.NewWriter(pw)
		err := tw.AddFS(os.DirFS(dir))
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	sum, err := c.PutTree(ctx, ws, "project", pr, client.TreeOptions{})
	if err != nil {
		return err
	}
	r, err := c.Run(ctx, ws, client.ExecRequest{Backend: "sandbox", Cwd: "project", Source: "python3 -m unittest -v"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "uploaded %d files; tests: %s, exit %d\n%s", sum.Files, r.Status, r.ExitCode, r.Stderr)
	if ch := r.Changes; ch != nil { // what the run changed, from the change journal
		for _, p := range ch.Created {
			fmt.Fprintln(w, "created:", p)
		}
		for _, p := range ch.Modified {
			fmt.Fprintln(w, "modified:", p)
		}
		for _, p := range ch.Deleted {
			fmt.Fprintln(w, "deleted:", p)
		}
	}
	return nil
}
