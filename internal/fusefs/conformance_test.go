package fusefs_test

import (
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// TestConformance runs the vfs conformance suite through the kernel on the
// mount, with the suite's OS adapter (the same one that runs it against the
// kernel on a host directory), each test on a fresh store and mount. A small
// chunk size makes multi-chunk paths common.
func TestConformance(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfstest.FS {
		e := newEnv(t, vfs.Options{ChunkSize: 4 << 10}, fusefs.Options{})
		fsys := vfstest.OS(e.mnt)
		if err := fsys.Chmod(t.Context(), "/", 0o755); err != nil {
			t.Fatal(err)
		}
		return fsys
	})
}
