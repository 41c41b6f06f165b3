package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultUserland returns the host paths bound read-only into a sandbox that
// uses the host's userland (Options.RootDir empty): the programs and
// libraries (/usr, the top-level /bin, /sbin, /lib*), /opt, the packages'
// data (/var/lib: TeX's formats, dpkg's database, alternatives) and /etc.
// Those that are symbolic links on the host (merged /usr) are recreated as
// the same links; those that do not exist are skipped. What Options.Deny
// names below them is left out. Each call returns a new slice.
func DefaultUserland() []string {
	return []string{"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt", "etc", "var/lib"}
}

// DefaultDeny returns the host paths a sandbox never sees, even below
// Options.Userland: absolute paths or path.Match patterns matched one path
// element at a time (a pattern names what it matches and everything below
// it). They are the host's secrets that a host user may be able to read
// (what only the host's root can read is unreadable in the sandbox anyway:
// host files are owned by an id the sandbox does not map, so its root has no
// override on them) and the places that hold other programs' private state.
// The server adds its own configuration and data directories (Options.Deny
// is the list). Each call returns a new slice.
func DefaultDeny() []string {
	return []string{
		// Passwords, privileges and host keys.
		"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
		"/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_*", "/etc/ssl/private",
		"/etc/credstore", "/etc/credstore.encrypted", "/etc/machine-id", "/etc/environment",
		// desk's own configuration (and that of a system-wide install).
		"/etc/desk", "/var/lib/desk",
		// The host's root and other daemons' private state.
		"/root", "/var/lib/sudo", "/var/lib/private", "/var/lib/polkit-1", "/var/lib/docker",
		"/var/lib/containerd", "/var/lib/containers", "/var/lib/kubelet", "/var/lib/libvirt",
		"/var/lib/systemd/credential", "/var/lib/NetworkManager", "/var/lib/bluetooth",
		"/var/lib/postgresql", "/var/lib/mysql",
	}
}

// generatedEtc are the /etc files the backend writes for every sandbox
// instead of the host's: the host's would name its users, its name and its
// resolvers.
var generatedEtc = map[string]bool{
	"passwd": true, "group": true, "hostname": true, "hosts": true, "resolv.conf": true, "nsswitch.conf": true,
}

// denyList matches host paths against Options.Deny.
type denyList [][]string // each pattern split into path elements

func newDenyList(patterns []string) (denyList, error) {
	var d denyList
	for _, p := range patterns {
		if !path.IsAbs(p) {
			return nil, fmt.Errorf("check sandbox options: deny %q: not an absolute path", p)
		}
		elems := splitPath(path.Clean(p))
		for _, e := range elems {
			if _, err := path.Match(e, ""); err != nil {
				return nil, fmt.Errorf("check sandbox options: deny %q: %w", p, err)
			}
		}
		d = append(d, elems)
	}
	return d, nil
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// prefixMatch reports whether the first len(a) elements of b match a's
// patterns (len(a) <= len(b)).
func prefixMatch(pat, p []string) bool {
	for i, e := range pat {
		if ok, _ := path.Match(e, p[i]); !ok {
			return false
		}
	}
	return true
}

// denied reports whether host path p is denied: a pattern matches it or one
// of its parents.
func (d denyList) denied(p string) bool {
	elems := splitPath(p)
	for _, pat := range d {
		if len(pat) <= len(elems) && prefixMatch(pat, elems) {
			return true
		}
	}
	return false
}

// below reports whether a pattern may match something strictly below p (so
// that p cannot be bound whole).
func (d denyList) below(p string) bool {
	elems := splitPath(p)
	for _, pat := range d {
		if len(pat) > len(elems) && prefixMatch(pat[:len(elems)], elems) {
			return true
		}
	}
	return false
}

// mirrorTree makes host path p appear in the skeleton at root, read-only,
// minus what deny names: a symbolic link is copied, a regular file or a
// directory with nothing denied below it gets a mount point and a read-only
// bind mount (not recursive: what is mounted below it on the host stays
// out), a directory with something denied below it is made in the skeleton
// (with the host's mode) and mirrored entry by entry. Anything else (a
// device, a socket, a FIFO), a denied path and a missing one are left out.
func mirrorTree(root, p string, deny denyList) ([]ociMount, error) {
	if deny.denied(p) {
		return nil, nil
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	dst := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err == nil {
			err = os.Symlink(target, dst)
		}
		if err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
		return nil, nil
	case fi.IsDir() && deny.below(p):
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
		if err := os.Chmod(dst, fi.Mode().Perm()); err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
		ents, err := os.ReadDir(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
		var mounts []ociMount
		for _, e := range ents {
			m, err := mirrorTree(root, filepath.Join(p, e.Name()), deny)
			if err != nil {
				return nil, err
			}
			mounts = append(mounts, m...)
		}
		return mounts, nil
	case fi.IsDir():
		err = os.MkdirAll(dst, 0o755)
	case fi.Mode().IsRegular():
		err = touch(dst)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	return []ociMount{roBind(p, p)}, nil
}
