// Package fsiotest describes host directory trees for the tests that copy
// trees between the host and a workspace (internal/fsio, internal/api,
// cmd/desk): the kernel's view of each entry, to compare a tree with its
// copy. Only tests import it (internal/archtest enforces that).
package fsiotest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Node is what the tests compare of one host entry, as lstat(2) reports it.
type Node struct {
	Type   string // dir, file, symlink, other
	Perm   uint32 // the 12 mode bits (0 for a symlink)
	Size   int64  // a file's
	SHA    string // a file's content, SHA-256 in hex
	Target string // a symlink's
	Mtime  int64  // ns
	Links  string // the names (relative, sorted, comma-separated) of a file with more than one link
}

// MakeWritable makes every directory of the host tree at root writable
// (mode 0755), so that a tree with read-only directories can be removed
// (by TempDir's cleanup). It reports nothing: what it cannot change, the
// removal reports.
func MakeWritable(root string) {
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// HostTree describes the tree at root, keyed by path relative to root (the
// root itself is "."). It fails the test on an error.
func HostTree(t testing.TB, root string) map[string]Node {
	t.Helper()
	out := map[string]Node{}
	inos := map[uint64][]string{}
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		n := Node{Perm: st.Mode & 0o7777, Mtime: st.Mtim.Nano()}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			n.Type = "dir"
		case unix.S_IFLNK:
			n.Type, n.Perm = "symlink", 0
			n.Target, _ = os.Readlink(p)
		case unix.S_IFREG:
			n.Type, n.Size = "file", st.Size
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			n.SHA = hex.EncodeToString(h[:])
			if st.Nlink > 1 {
				inos[st.Ino] = append(inos[st.Ino], rel)
			}
		default:
			n.Type = "other"
		}
		out[rel] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, names := range inos {
		sort.Strings(names)
		for _, name := range names {
			n := out[name]
			n.Links = strings.Join(names, ",")
			out[name] = n
		}
	}
	return out
}

// SetTimes sets the access and modification times of every entry of the
// tree at root (root included; a symlink's own), deepest first, so that
// setting an entry's times does not move its directory's: times(i) gives
// them for the i-th path in filepath.Walk's order. It fails the test on an
// error.
func SetTimes(t testing.TB, root string, times func(i int) (atime, mtime time.Time)) {
	t.Helper()
	var paths []string
	if err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		paths = append(paths, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i := len(paths) - 1; i >= 0; i-- {
		a, m := times(i)
		ts := []unix.Timespec{unix.NsecToTimespec(a.UnixNano()), unix.NsecToTimespec(m.UnixNano())}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, paths[i], ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			t.Fatalf("set times of %s: %v", paths[i], err)
		}
	}
}
