package fusefs_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/hanwen/go-fuse/v2/posixtest"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// posixWrong are tests of go-fuse's suite that fail on the kernel's own
// filesystems too (checked on tmpfs and ext4), with the reason.
var posixWrong = map[string]string{
	"FcntlFlockLocksFile": "expects two descriptors of one process to conflict on POSIX (fcntl F_SETLK) locks, " +
		"which belong to the process and never conflict with each other; it fails on tmpfs and ext4 as well, " +
		"and go-fuse's own TestAll skips it",
}

// TestPosix runs go-fuse's POSIX suite through the mount, each test on a fresh
// store and mount.
func TestPosix(t *testing.T) {
	for name := range posixWrong {
		if _, ok := posixtest.All[name]; !ok {
			t.Errorf("go-fuse's suite has no %s any more: remove it from posixWrong", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(posixtest.All)) {
		if why, ok := posixWrong[name]; ok {
			t.Logf("not run: %s %s", name, why)
			continue
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, vfs.Options{}, fusefs.Options{})
			posixtest.All[name](t, e.mnt)
		})
	}
}
