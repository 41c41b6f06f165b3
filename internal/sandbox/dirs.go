package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Modes of the backend's directories. While a sandbox is warm its workspace
// is a FUSE mount open to other users (allow_other: the sandbox's root is
// another uid), so what keeps host users out is the directories above it.
// Everything the backend makes is private to root (0700), except the
// directories the sandbox's own root must pass through while its runtime
// sets it up (StateDir, for the root skeleton below it, and the parents New
// makes for it): those are 0710 with group HostID, which no host user has
// (as Docker does for a user-namespaced daemon root). The runtime opens bind
// mount sources (the workspace mount, the init, the /etc files) as root
// before entering the user namespace, so their directories stay 0700.
const (
	privateDirMode = 0o700
	passDirMode    = 0o710
)

// makeDir makes dir with mode perm and group gid (-1: root's), and the
// missing parents alike. An existing dir is given the mode and group
// (one a previous version made 0711); existing parents are left as they are.
func makeDir(dir string, perm fs.FileMode, gid int) error {
	if parent := filepath.Dir(dir); parent != dir {
		if _, err := os.Lstat(parent); errors.Is(err, fs.ErrNotExist) {
			if err := makeDir(parent, perm, gid); err != nil {
				return err
			}
		}
	}
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make sandbox directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("make sandbox directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("make sandbox directory: %w", &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR})
	}
	if err := os.Chmod(dir, perm); err != nil { // the umask applied to Mkdir
		return fmt.Errorf("make sandbox directory: %w", err)
	}
	if gid < 0 {
		gid = 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Gid) != gid {
		if err := os.Lchown(dir, -1, gid); err != nil {
			return fmt.Errorf("make sandbox directory: %w", err)
		}
	}
	return nil
}
