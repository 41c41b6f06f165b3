package sandbox

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// bundle is the on-disk state of one sandbox: StateDir/ID/{config.json,
// init.pid, hostname, hosts}.
type bundle struct {
	dir      string
	rootfs   string // the shared root skeleton (host userland), Options.RootDir, an image's root or a writable root
	writable bool   // rootfs is a writable root (Image.Writable)
	hostname string
}

// initTarget is where the init binary is bound inside the sandbox.
const initTarget = "/.desk/init"

// makeBundle writes the bundle of sandbox id for workspace name. sk is the
// shared root skeleton (nil with Options.RootDir or an image), img the
// workspace's image (nil: the skeleton or RootDir).
func makeBundle(o *Options, sk *skeleton, id, name string, m Mount, img *Image) (*bundle, error) {
	b := &bundle{dir: filepath.Join(o.StateDir, id), hostname: hostname(name)}
	if err := os.Mkdir(b.dir, privateDirMode); err != nil {
		return nil, fmt.Errorf("make bundle: %w", err)
	}
	mounts := baseMounts(o, m)
	switch {
	case img != nil:
		b.rootfs = img.Root
	case sk == nil:
		b.rootfs = o.RootDir
	}
	if sk != nil {
		b.rootfs = sk.dir
		mounts = append(mounts, sk.mounts...)
	}
	if img != nil && img.Writable {
		if m.Root == "" {
			return nil, fmt.Errorf("make bundle: the image's root is writable but the workspace mount gave no writable root (Mount.Root)")
		}
		b.rootfs, b.writable = m.Root, true
	}
	if sk != nil || img != nil {
		// The skeleton is shared; the files naming the host are the sandbox's own.
		for name, content := range map[string]string{
			"hostname": b.hostname + "\n",
			"hosts":    "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t" + b.hostname + "\n",
		} {
			p := filepath.Join(b.dir, name)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return nil, fmt.Errorf("write bundle: %w", err)
			}
			mounts = append(mounts, roBind(p, "/etc/"+name))
		}
	}
	em, err := egressMounts(b.dir, sk != nil) // egress.go
	if err != nil {
		return nil, err
	}
	mounts = append(mounts, em...)
	for _, bd := range o.Binds {
		mounts = append(mounts, roBind(bd.Source, bd.Target))
	}
	data, err := json.MarshalIndent(makeSpec(o, b, mounts), "", "\t")
	if err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	if err := os.WriteFile(filepath.Join(b.dir, "config.json"), data, 0o600); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	return b, nil
}

// pidFile is where the runtime writes the init's host pid.
func (b *bundle) pidFile() string { return filepath.Join(b.dir, "init.pid") }

// remove deletes the bundle (nothing is mounted on the host side of it: the
// mounts live in the sandbox's mount namespace).
func (b *bundle) remove() error { return os.RemoveAll(b.dir) }

// skeleton is the root directory shared by every sandbox that uses the host's
// userland: an otherwise empty directory with mount points, the userland's
// symbolic links and a generated /etc, and the read-only bind mounts that
// fill it. It is made once per Backend (StateDir/rootfs) and never changes
// while sandboxes use it: runc makes each sandbox's mounts in the sandbox's
// own mount namespace.
type skeleton struct {
	dir    string
	mounts []ociMount
}

// hostname turns a workspace name into a hostname (at most 63 bytes).
func hostname(name string) string {
	if len(name) > 63 {
		name = name[:63]
	}
	if name == "" {
		return "sandbox"
	}
	return name
}

// baseMounts are the mounts every sandbox has.
func baseMounts(o *Options, m Mount) []ociMount {
	size := func(n int64) string { return "size=" + strconv.FormatInt(n, 10) }
	home := ociMount{Destination: o.Home, Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "nodev", "mode=700", size(o.HomeSize)}}
	if m.Home != "" {
		home = ociMount{Destination: o.Home, Type: "bind", Source: m.Home, Options: []string{"bind", "rw", "nosuid", "nodev"}}
	}
	return []ociMount{
		{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", size(o.ShmSize)}},
		{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "nodev", "mode=1777", size(o.TmpSize)}},
		home,
		{Destination: "/workspace", Type: "bind", Source: m.Dir, Options: []string{"bind", "rw", "nosuid", "nodev"}},
		roBind(o.InitPath, initTarget),
	}
}

func roBind(src, dst string) ociMount {
	return ociMount{Destination: dst, Type: "bind", Source: src, Options: []string{"bind", "ro", "nosuid", "nodev"}}
}

// makeSkeleton makes the skeleton at dir, replacing what a previous server
// left there.
func makeSkeleton(o *Options, dir string) (*skeleton, error) {
	sk := &skeleton{dir: dir}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	dirs := []string{"", "workspace", "tmp", "proc", "dev", ".desk", "etc", "var", strings.TrimPrefix(o.Home, "/")}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
	}
	if err := os.Symlink("../tmp", filepath.Join(dir, "var/tmp")); err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	for _, f := range []string{initTarget, "/etc/hostname", "/etc/hosts"} {
		if err := touch(filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
	}
	deny, err := newDenyList(o.Deny)
	if err != nil {
		return nil, err
	}
	// The files the backend writes in /etc are never the host's.
	for name := range generatedEtc {
		deny = append(deny, []string{"etc", name})
	}
	for _, d := range o.Userland {
		m, err := mirrorTree(dir, "/"+strings.Trim(d, "/"), deny)
		if err != nil {
			return nil, err
		}
		sk.mounts = append(sk.mounts, m...)
	}
	for name, content := range etcFiles(o) {
		if err := os.WriteFile(filepath.Join(dir, "etc", name), []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("make root skeleton: %w", err)
		}
	}
	// Everything the sandbox's root should own appears owned by its root.
	err = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(o.HostID), int(o.HostID))
	})
	if err != nil {
		return nil, fmt.Errorf("make root skeleton: %w", err)
	}
	return sk, nil
}

func touch(p string) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// etcFiles are the /etc files the backend writes into the skeleton
// (hostname and hosts are written per sandbox).
func etcFiles(o *Options) map[string]string {
	return map[string]string{
		"passwd": "root:x:0:0:root:" + o.Home + ":" + o.Shell + "\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		"group":         "root:x:0:\ntty:x:5:\nnogroup:x:65534:\n",
		"resolv.conf":   "# no network in the sandbox\n",
		"nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\nprotocols: files\nservices: files\n",
	}
}

// makeSpec is the sandbox's config.json.
func makeSpec(o *Options, b *bundle, mounts []ociMount) *ociSpec {
	memory := o.Memory
	shares := o.CPUShares
	period := uint64(100_000)
	quota := int64(o.CPUs * float64(period))
	return &ociSpec{
		OCIVersion: "1.0.2",
		Process: ociProcess{
			Args: append([]string{initTarget}, o.InitArgs...),
			Env:  []string{},
			Cwd:  "/",
			Capabilities: ociCaps{
				Bounding: o.Capabilities, Effective: o.Capabilities, Permitted: o.Capabilities,
				Inheritable: []string{}, Ambient: []string{},
			},
			Rlimits: []ociRlimit{
				{Type: "RLIMIT_NOFILE", Hard: o.MaxOpenFiles, Soft: o.MaxOpenFiles},
				{Type: "RLIMIT_CORE", Hard: 0, Soft: 0},
			},
			NoNewPrivileges: true,
		},
		Root:     ociRoot{Path: b.rootfs, Readonly: !b.writable},
		Hostname: b.hostname,
		Mounts:   mounts,
		Linux: ociLinux{
			UIDMappings: []ociIDMap{{ContainerID: 0, HostID: o.HostID, Size: o.IDCount}},
			GIDMappings: []ociIDMap{{ContainerID: 0, HostID: o.HostID, Size: o.IDCount}},
			Resources: ociResources{
				Devices: []ociDevice{{Allow: false, Access: "rwm"}},
				Memory:  &ociMemory{Limit: &memory, Swap: &memory},
				CPU:     &ociCPU{Shares: &shares, Quota: &quota, Period: &period},
				Pids:    &ociPids{Limit: o.Pids},
			},
			CgroupsPath: filepath.Join(o.CgroupParent, filepath.Base(b.dir)),
			Namespaces: []ociNamespace{
				{Type: "pid"}, {Type: "network"}, {Type: "ipc"}, {Type: "uts"}, {Type: "mount"}, {Type: "user"}, {Type: "cgroup"},
			},
			Seccomp: o.Seccomp,
			MaskedPaths: []string{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
				"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi"},
			ReadonlyPaths: []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"},
		},
	}
}
