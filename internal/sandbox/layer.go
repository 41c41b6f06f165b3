package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// The writable root (Image.Writable): an overlay whose lower layer is the
// image's shared read-only root and whose upper layer lives in the
// workspace's store, below Options.LayerDir:
//
//	LAYERDIR/upper  the changes (overlayfs's: files, whiteouts, xattrs)
//	LAYERDIR/work   overlayfs's work directory
//	LAYERDIR/image  the id of the image the changes were made over
//
// The default Mount opens upper and work on the store's FUSE mount (walked
// without following symbolic links, as the workspace is) and mounts the
// overlay on the host, in the mount's own directory; the sandbox's root is
// that overlay, writable.

// layerImageFile names, in LayerDir, the file holding the image id.
const layerImageFile = "image"

// ErrLayerImage: the workspace's writable root was made over another image.
var ErrLayerImage = errors.New("the workspace's writable root was made over another image")

// checkLayer records, or checks, the image the workspace's writable root is
// made over: changes made over one image are meaningless over another (a
// file deleted in the old one would hide the new one's), so a workspace
// that changes image must start its layer over.
func checkLayer(ctx context.Context, o *Options, fsys *vfs.FS, imageID string) error {
	dir := o.LayerDir
	for _, d := range []string{o.WorkDir, o.HomeDir} {
		if within(dir, d) || within(d, dir) {
			return fmt.Errorf("check the writable root: LayerDir %q overlaps %q (the sandbox would see its own layer)", dir, d)
		}
	}
	if imageID == "" {
		return errors.New("check the writable root: the image has no id")
	}
	if dir == "/" {
		return errors.New("check the writable root: LayerDir is the store's root")
	}
	if err := ensureDir(ctx, fsys, dir, 0o700); err != nil {
		return err
	}
	p := path.Join(dir, layerImageFile)
	var b []byte
	fi, err := fsys.Lstat(ctx, p)
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() > 256) {
		return fmt.Errorf("%w: %s is not the file desk wrote (remove %s with another backend to start the layer over)", ErrLayerImage, p, dir)
	}
	if err == nil {
		b, err = fsys.ReadFile(ctx, p)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := fsys.WriteFile(vfs.WithActor(ctx, mountActor), p, []byte(imageID+"\n"), 0o644); err != nil {
			return fmt.Errorf("record the writable root's image: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read the writable root's image: %w", err)
	}
	if got := strings.TrimSpace(string(b)); got != imageID {
		return fmt.Errorf("%w: %s has %s, the workspace's image is %s (use that image again, or remove %s with another backend to start the layer over)", ErrLayerImage, p, got, imageID, dir)
	}
	return nil
}

// rootsDir is where writable roots are mounted: StateDir/roots, 0710 with
// group HostID like StateDir (the sandbox's root passes through it to its
// root while the runtime sets the sandbox up; MountDir is private). Stale
// ones are detached at New, never walked into.
func (o *Options) rootsDir() string { return filepath.Join(o.StateDir, "roots") }

// within says whether store path p is dir or below it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// mountLayer mounts the writable root of a default Mount whose directory is
// base (base/store: the store's FUSE mount): the overlay of lower and
// LayerDir's upper and work on RootsDir/NAME (NAME: base's), which it
// returns. HostID owns a new upper layer's root (the sandbox's root sees /
// as its own).
func mountLayer(ctx context.Context, o *Options, fsys *vfs.FS, base, lower string) (string, error) {
	layerDir, hostID := o.LayerDir, o.HostID
	if strings.ContainsAny(lower, ",:\\") {
		return "", fmt.Errorf("mount the writable root: the image's root %s has a ',', ':' or '\\' in its path (overlayfs options)", lower)
	}
	upperNew := false
	if _, err := fsys.Lstat(ctx, path.Join(layerDir, "upper")); errors.Is(err, fs.ErrNotExist) {
		upperNew = true
	}
	for _, d := range []string{"upper", "work"} {
		if err := ensureDir(ctx, fsys, path.Join(layerDir, d), 0o755); err != nil {
			return "", err
		}
	}
	if err := makeDir(o.rootsDir(), passDirMode, int(hostID)); err != nil {
		return "", err
	}
	store, root := filepath.Join(base, "store"), filepath.Join(o.rootsDir(), filepath.Base(base))
	if err := os.Mkdir(root, privateDirMode); err != nil {
		return "", fmt.Errorf("make mount point: %w", err)
	}
	// Upper and work are given to overlayfs as descriptors reached without
	// following symbolic links (their /proc/self/fd paths), both on the
	// store's mount as overlayfs wants: a name another backend swaps for a
	// link meanwhile is not followed.
	var fds [2]int
	for i, d := range []string{"upper", "work"} {
		fd, err := openNoFollow(store, path.Join(layerDir, d))
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		fds[i] = fd
	}
	upper, work := "/proc/self/fd/"+strconv.Itoa(fds[0]), "/proc/self/fd/"+strconv.Itoa(fds[1])
	if upperNew {
		// The overlay's root is the upper layer's: the image's root's mode
		// and owner.
		fi, err := os.Stat(lower)
		if err != nil {
			return "", fmt.Errorf("mount the writable root: %w", err)
		}
		if err := os.Chmod(upper, fi.Mode().Perm()); err != nil {
			return "", fmt.Errorf("mount the writable root: %w", err)
		}
		if err := unix.Fchownat(fds[0], "", int(hostID), int(hostID), unix.AT_EMPTY_PATH); err != nil {
			return "", fmt.Errorf("mount the writable root: %w", err)
		}
	}
	// No index, metacopy or redirects (nor following them: the upper
	// layer is in the store, where another backend could forge their
	// xattrs): plain copies, valid wherever the store is moved or copied.
	// nosuid and nodev: a set-id file or a device node another backend
	// made in the layer does nothing.
	opts := "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work + ",index=off,metacopy=off,redirect_dir=nofollow"
	if err := unix.Mount("overlay", root, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		os.Remove(root)
		return "", fmt.Errorf("mount the writable root (overlay over %s): %w", lower, err)
	}
	return root, nil
}

// unmountLayer unmounts a writable root mounted by mountLayer and removes
// its mount point (never what is below it: a failed unmount is detached,
// and a mount point still mounted is left).
func unmountLayer(root string) error {
	err := unix.Unmount(root, 0)
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
		unix.Unmount(root, unix.MNT_DETACH)
	}
	if rerr := os.Remove(root); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("unmount the writable root: %w (%w)", rerr, err)
	}
	return nil
}

// cleanRoots removes the mount points of writable roots a previous server
// left (abortMounts detached them).
func (b *Backend) cleanRoots() {
	dir := b.opts.rootsDir()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if err := unmountLayer(filepath.Join(dir, e.Name())); err != nil {
			b.log.Warn("sandbox: cannot remove a writable root left by a previous server", "dir", e.Name(), "err", err)
		}
	}
}
