package shell

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// fixture is the tree every table row runs on: in the store under /work, and
// for the confirm test in a temporary directory on the host.
var fixture = shelltest.Fixture

// newStore makes a store holding the fixture under /work.
func newStore(t testing.TB, files map[string]string) *vfs.FS {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	shelltest.WriteStoreFixture(t, f, "/work", files)
	return f
}

// result is what a script did.
type result struct {
	stdout, stderr string
	exit           int
	err            error
}

// runScript runs script through b on f in /work with stdin.
func runScript(ctx context.Context, b *Backend, f *vfs.FS, script, stdin string) result {
	var out, errb testenv.SyncBuffer
	job := &run.Job{
		ID: "test", Backend: "shell", Source: script, Cwd: "/work",
		Env:   map[string]string{"LANG": "C.UTF-8", "DESK_EXEC_ID": "test"},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, FS: f,
	}
	o, err := b.Run(vfs.WithActor(ctx, "test"), job)
	return result{out.String(), errb.String(), o.ExitCode, err}
}

var _ = fs.ModePerm
