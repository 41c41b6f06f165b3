package fusefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"
)

// mountDevice opens /dev/fuse close-on-exec and mounts it on dir with
// mount(2), with the options go-fuse's own direct mount would pass (and
// MS_RDONLY when readOnly). It returns the device descriptor, which go-fuse
// then serves through its "/dev/fd/N" mount point form (see Mount).
//
// go-fuse's direct mount opens /dev/fuse without O_CLOEXEC, so until its
// server is up the descriptor is inherited by every program the process
// starts meanwhile (a sandbox's runc, another workspace's): such a program
// keeps the FUSE connection alive when the server dies, and a process
// waiting on the mount then never wakes. Opening it here, atomically
// close-on-exec, leaves no such window.
func mountDevice(dir string, mo *fuse.MountOptions, readOnly bool) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return -1, &fs.PathError{Op: "mount", Path: dir, Err: err}
	}
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: "/dev/fuse", Err: err}
	}
	opts := []string{
		"fd=" + strconv.Itoa(fd),
		fmt.Sprintf("rootmode=%o", st.Mode&unix.S_IFMT),
		"user_id=" + strconv.Itoa(os.Geteuid()),
		"group_id=" + strconv.Itoa(os.Getegid()),
		"max_read=" + strconv.Itoa(mo.MaxWrite),
	}
	opts = append(opts, mo.Options...)
	if mo.AllowOther {
		opts = append(opts, "allow_other")
	}
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV)
	if readOnly {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount(mo.FsName, dir, "fuse."+mo.Name, flags, strings.Join(opts, ",")); err != nil {
		unix.Close(fd)
		return -1, &fs.PathError{Op: "mount", Path: dir, Err: err}
	}
	return fd, nil
}

// devicePath is the mount point go-fuse is given for a descriptor mounted by
// mountDevice: it then serves fd as it is, sets nothing up, and leaves the
// unmount to us.
func devicePath(fd int) string { return "/dev/fd/" + strconv.Itoa(fd) }

// MountPoints lists where FUSE connection conn (the mount's minor device
// number, Server.Connection) is mounted in this process's mount table: one
// point per mount, binds included; none once it is unmounted everywhere.
func MountPoints(conn int) ([]string, error) {
	ms, err := mountinfo.GetMounts(func(m *mountinfo.Info) (skip, stop bool) {
		return m.Major != 0 || m.Minor != conn || !strings.HasPrefix(m.FSType, "fuse"), false
	})
	if err != nil {
		return nil, fmt.Errorf("list mounts of fuse connection %d: %w", conn, err)
	}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Mountpoint)
	}
	return out, nil
}

// fusectlDir is where the kernel's fusectl filesystem lists FUSE connections.
const fusectlDir = "/sys/fs/fuse/connections"

// AbortConnection aborts the FUSE connection whose number is id (the minor
// device number of the mount: st_dev, or the major:minor field of
// /proc/self/mountinfo), through the fusectl filesystem, which it mounts on
// /sys/fs/fuse/connections when needed. Every request waiting on the
// connection fails with ENOTCONN at once, and so do later ones: it is how a
// mount whose server died, or whose descriptor is held by a process that
// will never serve it, is made to let go of the processes waiting on it. A
// connection that is already gone is not an error.
func AbortConnection(id int) error {
	dir := fusectlDir + "/" + strconv.Itoa(id)
	const fusectlMagic = 0x65735543
	if st := (unix.Statfs_t{}); unix.Statfs(fusectlDir, &st) != nil || st.Type != fusectlMagic {
		if merr := unix.Mount("fusectl", fusectlDir, "fusectl", 0, ""); merr != nil && !errors.Is(merr, syscall.EBUSY) {
			return fmt.Errorf("abort fuse connection %d: mount fusectl: %w", id, merr)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		return nil // the connection has ended
	}
	if err := os.WriteFile(dir+"/abort", []byte("1"), 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("abort fuse connection %d: %w", id, err)
	}
	return nil
}
