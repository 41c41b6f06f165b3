package hostmount

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
)

// Records keeps a file per live mount in a directory, so that the mounts
// of a process that died (a worker killed by the OOM killer, a server
// killed with -9) can be found and detached (Cleanup): the kernel aborts
// a FUSE connection whose server is gone, but leaves its mount in place,
// where every access fails with ENOTCONN.
type Records struct {
	Dir string // made with mode 0700 when needed
}

// Record is what a record file says.
type Record struct {
	Dir  string `json:"dir"`  // the mount point
	Conn int    `json:"conn"` // the FUSE connection number
}

// maxRecordBytes bounds a record file read by Cleanup.
const maxRecordBytes = 64 << 10

func (r *Records) add(rec Record) (string, error) {
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return "", fmt.Errorf("record mount: %w", err)
	}
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	data, err := json.Marshal(rec)
	if err != nil {
		return "", fmt.Errorf("record mount: %w", err)
	}
	tmp := filepath.Join(r.Dir, "."+id+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return "", fmt.Errorf("record mount: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(r.Dir, id+".json")); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("record mount: %w", err)
	}
	return id, nil
}

func (r *Records) remove(id string) error {
	if err := os.Remove(filepath.Join(r.Dir, id+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove mount record: %w", err)
	}
	return nil
}

// Cleanup detaches every mount recorded in r that is still in the mount
// table (same mount point, same FUSE connection), aborting its connection
// first, and removes the records (the directory too, once empty). Call it
// only when the processes that made the mounts are gone: a live mount is
// detached as well. It returns the mount points it detached.
func (r *Records) Cleanup(log *slog.Logger) ([]string, error) {
	ents, err := os.ReadDir(r.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("clean up mounts: %w", err)
	}
	ms, err := readMounts()
	if err != nil {
		return nil, fmt.Errorf("clean up mounts: %w", err)
	}
	var detached []string
	var errs []error
	for _, e := range ents {
		p := filepath.Join(r.Dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			os.Remove(p) // a record being written when its writer died
			continue
		}
		rec, err := readRecord(p)
		if err != nil {
			log.Warn("mount cleanup: unreadable record, removed", "file", p, "err", err)
			os.Remove(p)
			continue
		}
		if rec.Conn > 0 && mountedAt(ms, rec.Dir, rec.Conn) {
			if err := detach(rec); err != nil {
				errs = append(errs, err)
				continue // the record stays for the next attempt
			}
			detached = append(detached, rec.Dir)
			log.Info("mount cleanup: detached a mount left by a process that died", "dir", rec.Dir, "connection", rec.Conn)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("clean up mounts: %w", err))
		}
	}
	os.Remove(r.Dir) // only if empty
	return detached, errors.Join(errs...)
}

func readRecord(p string) (Record, error) {
	var rec Record
	f, err := os.Open(p)
	if err != nil {
		return rec, err
	}
	defer f.Close()
	b := make([]byte, maxRecordBytes)
	n, _ := f.Read(b)
	if err := json.Unmarshal(b[:n], &rec); err != nil {
		return rec, err
	}
	if !filepath.IsAbs(rec.Dir) {
		return rec, fmt.Errorf("mount point %q is not absolute", rec.Dir)
	}
	return rec, nil
}

// detach aborts a recorded mount's connection and detaches it. Its mount
// point is reached from its parent without symbolic links, and must show
// the recorded connection's device, so a path changed since cannot make it
// detach anything else.
func detach(rec Record) error {
	if err := fusefs.AbortConnection(rec.Conn); err != nil {
		return err
	}
	pfd, _, err := openDir(filepath.Dir(rec.Dir))
	if err != nil {
		return fmt.Errorf("detach %s: %w", rec.Dir, err)
	}
	defer unix.Close(pfd)
	name := filepath.Base(rec.Dir)
	var st unix.Stat_t
	// A dead connection answers ENOTCONN to a stat of its root; a stat
	// that works must show the connection's device (else another mount
	// covers it now).
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && (unix.Major(st.Dev) != 0 || int(unix.Minor(st.Dev)) != rec.Conn) {
		return fmt.Errorf("detach %s: the directory shows another filesystem now", rec.Dir)
	}
	fd, err := unix.Openat(pfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("detach %s: %w", rec.Dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Unmount(fmt.Sprintf("/proc/self/fd/%d", fd), unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach %s: %w", rec.Dir, err)
	}
	return nil
}
