package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestOpen_DataDirPrivate checks that Open makes a data directory (and its
// workspaces directory) that another tool made 0755 private: 0700.
func TestOpen_DataDirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(workspace.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, workspace.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h, err := host.Open(context.Background(), host.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, d := range []string{dir, workspace.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %04o, want 0700", d, fi.Mode().Perm())
		}
	}
}
