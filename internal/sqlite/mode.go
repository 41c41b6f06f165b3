package sqlite

import (
	"os"
	"strings"
	"syscall"

	"github.com/ncruces/go-sqlite3/vfs"
)

// fileMode is the mode of every file of a database: the database, its
// write-ahead log (-wal), its shared-memory index (-shm) and its journal.
// The driver creates them 0666 less the umask (0644 as a rule), readable by
// every host user who can reach the directory.
const fileMode = 0o600

// privateFiles makes sure the files SQLite is about to open for the database
// file name are created with fileMode, and narrows the mode of ones an older
// version made wider. The driver opens the -shm file itself, after the -wal,
// with mode 0666 less the umask: creating it when the -wal is opened settles
// its mode, since an existing file keeps its mode when opened with O_CREAT.
func privateFiles(name string, flags vfs.OpenFlag) {
	if name == "" {
		return
	}
	files := []string{name}
	if flags&vfs.OPEN_WAL != 0 && strings.HasSuffix(name, "-wal") {
		// SQLite opens the WAL before it maps the shared-memory index; a
		// database not in WAL mode gets no -shm.
		files = append(files, strings.TrimSuffix(name, "-wal")+"-shm")
	}
	for _, p := range files {
		create := flags&vfs.OPEN_CREATE != 0 || p != name
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if os.IsNotExist(err) && create {
			f, err = os.OpenFile(p, os.O_RDONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, fileMode)
		}
		if err != nil {
			continue // SQLite's own open reports what matters
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&^fileMode != 0 {
			f.Chmod(fi.Mode().Perm() & fileMode)
		}
		f.Close()
	}
}
