package sqlite

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileModes checks that the database, its -wal and its -shm are created
// 0600 whatever the umask lets through (the driver alone made the -wal and
// -shm 0644 under umask 022), and that files an older version made 0644 are
// narrowed when the database is opened again.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %s has mode %04o, want 0600", when, filepath.Base(p), fi.Mode().Perm())
			}
		}
	}
	c, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	check("created")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Prep("SELECT count(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Step() || st.Int64(0) != 1 {
		t.Fatalf("read back: %v", st.Err())
	}
	st.Reset()
	check("reopened")
	r.Close()
	c.Close()
}
