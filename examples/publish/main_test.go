package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/examples/internal/exampletest"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestPublish runs the example against a real desk serve, clones the
// published repository with the real git, builds it with the real npm and
// compares the pages with the ones the sandbox built.
func TestPublish(t *testing.T) {
	for _, tool := range []string{"git", "node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, testenv.Sandbox, errors.New(tool+" is not installed (make examples-setup)"))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	srv := exampletest.Start(t)
	srv.NeedSandbox(t, ctx, "publish-example")
	var log bytes.Buffer
	url, err := run(ctx, srv.Client, "publish-example", &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Log(log.String())
	dir := filepath.Join(t.TempDir(), "site")
	command := func(dir, name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "npm_config_update_notifier=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	command("", "git", "clone", "-q", url, dir)
	command(dir, "git", "fsck", "--strict")
	if _, err := os.Stat(filepath.Join(dir, "dist")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the clone has dist/ (it is ignored): %v", err)
	}
	command(dir, "npm", "run", "build", "--silent")
	for _, page := range []string{"index.html", "about.html", "hello.html"} {
		local, err := os.ReadFile(filepath.Join(dir, "dist", page))
		if err != nil {
			t.Fatal(err)
		}
		built, err := srv.Client.ReadFile(ctx, "publish-example", "site/dist/"+page)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(local, built) {
			t.Errorf("dist/%s built from the clone differs from the sandbox's:\n%s\n---\n%s", page, local, built)
		}
	}
	// Running it again publishes the same commit: nothing new to commit.
	log.Reset()
	if _, err := run(ctx, srv.Client, "publish-example", &log); err != nil {
		t.Fatalf("second run: %v\n%s", err, log.String())
	}
}
