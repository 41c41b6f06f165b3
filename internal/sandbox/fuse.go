package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// mountActor labels the change the backend itself makes to a store: the
// working directory it creates when the store has none yet.
const mountActor = "sandbox"

// fuseMount is the default Options.Mount: the workspace's store mounted with
// fusefs on MountDir/ID/store, served as owned by the sandbox's id range
// (root inside owns what the store's root owns) and open to other users
// (allow_other: the sandbox's root is another uid on the host), and the
// store's WorkDir bound on MountDir/ID/workspace, the directory lent to the
// sandbox. Writes are attributed to the execution whose process made them
// (ExecutionOf). Done is closed when the FUSE server stops for any reason;
// Release unmounts both; Sync is the server's (each execution starts with
// the kernel's caches in step with the store). With Workspace.Lower, the
// writable root is mounted too (layer.go): Mount.Root.
//
// The bind is made here, from a descriptor reached without following
// symbolic links, not left to the runtime: runc resolves a bind's source in
// the host's root, so a WorkDir that someone made a symbolic link in the
// store ("/workspace" → "/etc") would otherwise put the host's /etc at the
// sandbox's /workspace.
func (b *Backend) fuseMount(ctx context.Context, ws Workspace) (m Mount, err error) {
	o := &b.opts
	if ws.FS == nil {
		return Mount{}, errors.New("mount workspace: no store")
	}
	if err := ensureDir(ctx, ws.FS, o.WorkDir, 0o755); err != nil {
		return Mount{}, err
	}
	if err := ensureDir(ctx, ws.FS, o.HomeDir, 0o700); err != nil {
		return Mount{}, err
	}
	if err := makeDir(o.MountDir, privateDirMode, -1); err != nil {
		return Mount{}, fmt.Errorf("make mount directory: %w", err)
	}
	var r [4]byte
	rand.Read(r[:])
	name := idChars.ReplaceAllString(ws.Name, "-")
	if len(name) > 40 {
		name = name[:40]
	}
	base := filepath.Join(o.MountDir, name+"-"+hex.EncodeToString(r[:]))
	storeDir, workDir, homeDir := filepath.Join(base, "store"), filepath.Join(base, "workspace"), filepath.Join(base, "home")
	for _, d := range []string{base, storeDir, workDir, homeDir} {
		if err := os.Mkdir(d, privateDirMode); err != nil {
			removeMountDirs(base)
			return Mount{}, fmt.Errorf("make mount point: %w", err)
		}
	}
	fo := o.FUSE
	fo.AllowOther = true
	fo.IDMap = fusefs.IDMap{Host: o.HostID, Count: o.IDCount, UID: ws.UID, GID: ws.GID}
	fo.ActorOf = b.actorOf(ws.Name)
	fo.AccessOf = b.accessOf(ws.Name)
	if fo.Logger == nil {
		fo.Logger = slog.NewLogLogger(b.log.Handler(), slog.LevelWarn)
	}
	srv, err := fusefs.Mount(ctx, ws.FS, storeDir, fo)
	if err != nil {
		removeMountDirs(base)
		return Mount{}, fmt.Errorf("mount workspace: %w", err)
	}
	var once sync.Once
	var rootDir string // the writable root's overlay, once mounted
	release := func() {
		once.Do(func() {
			if rootDir != "" {
				// The overlay first: it holds the store's upper layer.
				if err := unmountLayer(rootDir); err != nil {
					b.log.Warn("sandbox: unmount the writable root", "workspace", ws.Name, "dir", rootDir, "err", err)
				}
			}
			for _, d := range []string{workDir, homeDir} {
				if err := unix.Unmount(d, unix.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
					b.log.Warn("sandbox: unmount workspace", "workspace", ws.Name, "dir", d, "err", err)
				}
			}
			if err := srv.Unmount(); err != nil {
				b.log.Warn("sandbox: unmount workspace", "workspace", ws.Name, "dir", storeDir, "err", err)
			}
			removeMountDirs(base)
		})
	}
	if err := bindNoFollow(storeDir, o.WorkDir, workDir); err != nil {
		release()
		return Mount{}, err
	}
	if err := bindNoFollow(storeDir, o.HomeDir, homeDir); err != nil {
		release()
		return Mount{}, err
	}
	if ws.Lower != "" {
		if rootDir, err = mountLayer(ctx, o, ws.FS, base, ws.Lower); err != nil {
			release()
			return Mount{}, err
		}
	}
	done := make(chan struct{})
	go func() {
		srv.Wait()
		close(done)
	}()
	return Mount{Dir: workDir, Home: homeDir, Root: rootDir, Done: done, Release: release, Sync: srv.Sync}, nil
}

// bindNoFollow bind-mounts the directory at path dir below root on target,
// walking dir one name at a time without following symbolic links, and
// binding the descriptor reached (so nothing can swap the path meanwhile).
func bindNoFollow(root, dir, target string) error {
	fd, err := openNoFollow(root, dir)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("mount workspace: bind %s: %w", dir, err)
	}
	return nil
}

// openNoFollow opens (O_PATH) the directory at path dir below root, walking
// it one name at a time without following symbolic links.
func openNoFollow(root, dir string) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open workspace mount: %w", err)
	}
	for _, name := range strings.Split(strings.Trim(dir, "/"), "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
				return -1, fmt.Errorf("mount workspace: %s is not a directory in the workspace (a symbolic link is not followed)", dir)
			}
			return -1, fmt.Errorf("mount workspace: open %s: %w", dir, err)
		}
		fd = next
	}
	return fd, nil
}

// removeMountDirs detaches whatever is still mounted in a mount directory
// (MountDir/ID: store, workspace, home) and removes it, never descending
// into a mount: a dead FUSE mount is detached, a live one left alone (with a log
// line from the caller's failed Remove).
func removeMountDirs(base string) error {
	var errs []error
	for _, d := range []string{"workspace", "home", "store"} {
		p := filepath.Join(base, d)
		unix.Unmount(p, unix.MNT_DETACH)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ensureDir makes the store directory dir (mode perm; its parents 0755) when
// it is missing, as the shell backend does on a workspace's first execution. A
// dir that exists as anything but a directory (a symbolic link included) is
// an error.
func ensureDir(ctx context.Context, fsys *vfs.FS, dir string, perm fs.FileMode) error {
	fi, err := fsys.Lstat(ctx, dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("mount workspace: %s is not a directory in the workspace (a symbolic link is not followed)", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("mount workspace: %w", err)
	}
	actx := vfs.WithActor(ctx, mountActor)
	if err := fsys.MkdirAll(actx, path.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	if err := fsys.Mkdir(actx, dir, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	return nil
}

// actorCacheTTL is how long the execution found for a process is reused for
// its later requests: finding it reads two files of /proc, which would
// otherwise be paid on every file a process creates. (Host pids are not
// reused within that time.)
const actorCacheTTL = 100 * time.Millisecond

// actorOf returns the fusefs.Options.ActorOf of workspace name's mount: the
// id of the execution a process belongs to (ExecutionOf), "" when it belongs
// to none (then the change is the mount's).
func (b *Backend) actorOf(name string) func(pid uint32) string {
	return b.cachedExecutionOf(name, b.ExecutionOf)
}

// cachedExecutionOf is find (ExecutionOf or SessionExecutionOf) for the
// processes of workspace name, each answer reused for actorCacheTTL.
func (b *Backend) cachedExecutionOf(name string, find func(int) (string, string, bool)) func(pid uint32) string {
	type entry struct {
		actor string
		at    time.Time
	}
	var mu sync.Mutex
	cache := map[uint32]entry{}
	return func(pid uint32) string {
		now := time.Now()
		mu.Lock()
		e, ok := cache[pid]
		mu.Unlock()
		if ok && now.Sub(e.at) < actorCacheTTL {
			return e.actor
		}
		ws, id, ok := find(int(pid))
		if !ok || ws != name {
			return "" // not remembered: the process may join an execution's report soon
		}
		mu.Lock()
		if len(cache) >= 1024 {
			for p, e := range cache {
				if now.Sub(e.at) >= actorCacheTTL {
					delete(cache, p)
				}
			}
		}
		cache[pid] = entry{id, now}
		mu.Unlock()
		return id
	}
}

// cleanMounts detaches and removes the mount points a previous server left
// in MountDir (a server killed with -9 leaves its FUSE mounts dead, but
// mounted). It never descends into a directory it could not unmount.
func (b *Backend) cleanMounts() {
	ents, err := os.ReadDir(b.opts.MountDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(b.opts.MountDir, e.Name())
		if err := removeMountDirs(p); err != nil {
			b.log.Warn("sandbox: cannot remove a mount point left by a previous server", "dir", p, "err", err)
		}
	}
}

// cleanWorkDir checks Options.WorkDir: an absolute, clean store path.
func cleanWorkDir(dir string) (string, error) {
	if !path.IsAbs(dir) || strings.IndexByte(dir, 0) >= 0 {
		return "", fmt.Errorf("check sandbox options: WorkDir %q is not an absolute path", dir)
	}
	return path.Clean(dir), nil
}

// MountAvailable reports whether the default Mount can work on this host:
// the FUSE device exists (the kernel has FUSE). It mounts with mount(2), so
// it also needs root, which Available checks. The error wraps ErrNoSandbox.
func MountAvailable() error {
	fi, err := os.Stat("/dev/fuse")
	if err != nil {
		return fmt.Errorf("%w: no FUSE device for the workspace mount (modprobe fuse): %w", ErrNoSandbox, err)
	}
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return fmt.Errorf("%w: /dev/fuse is not a character device", ErrNoSandbox)
	}
	return nil
}
