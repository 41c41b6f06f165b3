package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// ErrHostile is wrapped by the errors of a layer that would write outside
// the root, through a symbolic link, or make a device node.
var ErrHostile = errors.New("hostile image layer")

// Whiteout markers of the OCI image layer specification.
const (
	whiteoutPrefix = ".wh."
	opaqueWhiteout = ".wh..wh..opq"
)

// unpacker applies layers to a root directory on the host.
type unpacker struct {
	root     string // absolute
	hostID   uint32 // host id of uid and gid 0 in the image
	idCount  uint32 // ids mapped: 0..idCount-1
	limits   Limits
	bytes    int64 // file content written so far
	entries  int64
	streamed int64 // uncompressed layer bytes read so far
	pending  int64 // the size of the file being written
}

// streamSlack is what a layer stream may hold beyond file content and 4
// KiB of headers per entry: PAX records, the end-of-archive blocks.
const streamSlack = 2 << 20

// applyAll applies one layer from its uncompressed stream r, then reads r
// to its end (so a registry's blob is verified against its digest before
// the image is kept). The stream is bounded: file content (Limits.MaxBytes)
// plus 4 KiB per entry plus 2 MiB; a layer hiding more (data in non-file
// entries, a compression bomb after its tar) is refused.
func (u *unpacker) applyAll(r io.Reader) error {
	br := &boundedReader{r: r, u: u}
	if err := u.apply(br); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return fmt.Errorf("read layer: %w", err)
	}
	return nil
}

// boundedReader counts a layer stream against the unpacker's budget.
type boundedReader struct {
	r io.Reader
	u *unpacker
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.u.streamed += int64(n)
	if budget := b.u.bytes + b.u.pending + 4096*b.u.entries + streamSlack; b.u.streamed > budget {
		return n, fmt.Errorf("%w: a layer stream of over %d bytes holding %d bytes of files in %d entries (more than their headers need; Limits.MaxBytes is %d)", ErrTooLarge, b.u.streamed, b.u.bytes, b.u.entries, b.u.limits.MaxBytes)
	}
	return n, err
}

// hostilef is an error wrapping ErrHostile.
func hostilef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrHostile, fmt.Sprintf(format, args...))
}

// clean turns a layer entry's name into a clean relative path, refusing
// names with ".." elements (which would leave the root) and NUL bytes.
func clean(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", hostilef("entry %q: a NUL byte in its name", name)
	}
	for _, e := range strings.Split(name, "/") {
		if e == ".." {
			return "", hostilef("entry %q: a path traversal (\"..\") out of the root", name)
		}
	}
	p := strings.TrimPrefix(path.Clean("/"+name), "/")
	return p, nil
}

// host is the host path of image path p (clean, relative).
func (u *unpacker) host(p string) string { return filepath.Join(u.root, filepath.FromSlash(p)) }

// checkParents makes sure every parent of p inside the root is a real
// directory (never a symbolic link, which would take writes elsewhere),
// making the missing ones (0755, root's).
func (u *unpacker) checkParents(p string) error {
	dir := path.Dir(p)
	if dir == "." {
		return nil
	}
	cur := ""
	for _, e := range strings.Split(dir, "/") {
		cur = path.Join(cur, e)
		hp := u.host(cur)
		fi, err := os.Lstat(hp)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(hp, 0o755); err != nil {
				return fmt.Errorf("unpack %s: %w", cur, err)
			}
			if err := os.Lchown(hp, int(u.hostID), int(u.hostID)); err != nil {
				return fmt.Errorf("unpack %s: %w", cur, err)
			}
		case err != nil:
			return fmt.Errorf("unpack %s: %w", cur, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return hostilef("entry %q: its parent /%s is a symbolic link (a layer may not write through one)", p, cur)
		case !fi.IsDir():
			return fmt.Errorf("unpack %q: its parent /%s is not a directory", p, cur)
		}
	}
	return nil
}

// owner maps an image uid or gid to the host's.
func (u *unpacker) owner(name string, id int) (int, error) {
	if id < 0 || uint64(id) >= uint64(u.idCount) {
		return 0, fmt.Errorf("unpack %q: owner %d outside the sandbox's ids (0..%d)", name, id, u.idCount-1)
	}
	return int(u.hostID) + id, nil
}

// apply applies one layer (an uncompressed tar stream).
func (u *unpacker) apply(r io.Reader) error {
	tr := tar.NewReader(r)
	added := map[string]bool{} // paths this layer made (an opaque whiteout keeps them)
	var opaque []string
	type dirTime struct {
		p     string
		mtime time.Time
	}
	var dirTimes []dirTime
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read layer: %w", err)
		}
		u.entries++
		if u.entries > u.limits.MaxEntries {
			return fmt.Errorf("unpack: more than %d entries (Limits.MaxEntries)", u.limits.MaxEntries)
		}
		p, err := clean(hdr.Name)
		if err != nil {
			return err
		}
		if p == "" || p == "." {
			continue // the root itself
		}
		base := path.Base(p)
		if base == opaqueWhiteout {
			opaque = append(opaque, path.Dir(p))
			continue
		}
		if strings.HasPrefix(base, whiteoutPrefix) {
			name := strings.TrimPrefix(base, whiteoutPrefix)
			if name == "" || name == "." || name == ".." || strings.HasPrefix(name, whiteoutPrefix) {
				return hostilef("entry %q: a whiteout of %q, not of an entry of its directory", hdr.Name, name)
			}
			target := path.Join(path.Dir(p), name)
			if err := u.checkParents(target); err != nil {
				return err
			}
			if err := os.RemoveAll(u.host(target)); err != nil {
				return fmt.Errorf("unpack whiteout %q: %w", hdr.Name, err)
			}
			continue
		}
		if err := u.checkParents(p); err != nil {
			return err
		}
		if err := u.entry(tr, hdr, p); err != nil {
			return err
		}
		added[p] = true
		if hdr.Typeflag == tar.TypeDir {
			dirTimes = append(dirTimes, dirTime{p, hdr.ModTime})
		}
	}
	for _, d := range opaque {
		if err := u.opaque(d, added); err != nil {
			return err
		}
	}
	for i := len(dirTimes) - 1; i >= 0; i-- {
		setTimes(u.host(dirTimes[i].p), dirTimes[i].mtime)
	}
	return nil
}

// opaque empties directory d of what lower layers put there (an opaque
// whiteout), keeping what this layer added.
func (u *unpacker) opaque(d string, added map[string]bool) error {
	if d != "." {
		if err := u.checkParents(path.Join(d, "x")); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(u.host(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unpack opaque whiteout of /%s: %w", d, err)
	}
	for _, e := range ents {
		c := path.Join(d, e.Name())
		if d == "." {
			c = e.Name()
		}
		if added[c] {
			continue
		}
		keep := false
		for a := range added {
			if strings.HasPrefix(a, c+"/") {
				keep = true // a directory this layer wrote into: empty it of the rest
				break
			}
		}
		if keep {
			if err := u.opaque(c, added); err != nil {
				return err
			}
			continue
		}
		if err := os.RemoveAll(u.host(c)); err != nil {
			return fmt.Errorf("unpack opaque whiteout of /%s: %w", d, err)
		}
	}
	return nil
}

// entry makes one entry at p.
func (u *unpacker) entry(tr *tar.Reader, hdr *tar.Header, p string) error {
	hp := u.host(p)
	uid, err := u.owner(hdr.Name, hdr.Uid)
	if err != nil {
		return err
	}
	gid, err := u.owner(hdr.Name, hdr.Gid)
	if err != nil {
		return err
	}
	mode := fs.FileMode(hdr.Mode).Perm()
	fi, lerr := os.Lstat(hp)
	exists := lerr == nil
	// Replace what is there, except a directory by a directory (its
	// content stays: layers add to it).
	if exists && !(fi.IsDir() && hdr.Typeflag == tar.TypeDir) {
		if err := os.RemoveAll(hp); err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if !exists || !fi.IsDir() {
			if err := os.Mkdir(hp, 0o700); err != nil {
				return fmt.Errorf("unpack %q: %w", hdr.Name, err)
			}
		}
	case tar.TypeReg:
		if hdr.Size > u.limits.MaxBytes-u.bytes {
			return fmt.Errorf("unpack %q: %w: the image's files exceed %d bytes (Limits.MaxBytes)", hdr.Name, ErrTooLarge, u.limits.MaxBytes)
		}
		f, err := os.OpenFile(hp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
		u.pending = hdr.Size
		n, err := io.Copy(f, io.LimitReader(tr, hdr.Size))
		u.bytes += n
		u.pending = 0
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && n != hdr.Size {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
	case tar.TypeSymlink:
		if strings.IndexByte(hdr.Linkname, 0) >= 0 {
			return hostilef("entry %q: a NUL byte in its link target", hdr.Name)
		}
		if err := os.Symlink(hdr.Linkname, hp); err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
		if err := os.Lchown(hp, uid, gid); err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
		setTimes(hp, hdr.ModTime)
		return nil
	case tar.TypeLink:
		target, err := clean(hdr.Linkname)
		if err != nil {
			return err
		}
		if err := u.checkParents(target); err != nil {
			return err
		}
		tfi, err := os.Lstat(u.host(target))
		if err != nil {
			return fmt.Errorf("unpack %q: its hard link target /%s: %w", hdr.Name, target, err)
		}
		if tfi.IsDir() {
			return hostilef("entry %q: a hard link to the directory /%s", hdr.Name, target)
		}
		if err := os.Link(u.host(target), hp); err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
		return nil // the link shares its target's inode: owner, mode and times
	case tar.TypeFifo:
		if err := unix.Mkfifo(hp, 0o600); err != nil {
			return fmt.Errorf("unpack %q: %w", hdr.Name, err)
		}
	case tar.TypeChar, tar.TypeBlock:
		return hostilef("entry %q: a device node (%d:%d); images may not carry devices", hdr.Name, hdr.Devmajor, hdr.Devminor)
	case tar.TypeXGlobalHeader:
		return nil
	default:
		return fmt.Errorf("unpack %q: unsupported entry type %q", hdr.Name, hdr.Typeflag)
	}
	// Owner first: chown clears the set-id bits, which chmod then sets.
	if err := os.Lchown(hp, uid, gid); err != nil {
		return fmt.Errorf("unpack %q: %w", hdr.Name, err)
	}
	if err := os.Chmod(hp, mode|vfs.UnixToFileMode(uint32(hdr.Mode)&0o7000)); err != nil {
		return fmt.Errorf("unpack %q: %w", hdr.Name, err)
	}
	setTimes(hp, hdr.ModTime)
	return nil
}

// setTimes sets p's modification (and access) time without following a
// symbolic link; a zero time leaves it.
func setTimes(p string, t time.Time) {
	if t.IsZero() {
		return
	}
	ts := unix.NsecToTimespec(t.UnixNano())
	unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}
