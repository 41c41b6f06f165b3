package image

import (
	"archive/tar"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Defaults.
const (
	DefaultDir        = "/var/lib/desk/images" // Store's directory (outside desk's data directories: see Open)
	DefaultHostID     = 1 << 20                // host id of the image's uid 0 (the sandbox's)
	DefaultIDCount    = 65536                  // ids an image may use: 0..65535
	DefaultMaxBytes   = 16 << 30               // file content per image
	DefaultMaxEntries = 1 << 20                // entries per image, all layers
)

// Limits bound an import or a pull. Zero fields take the defaults.
type Limits struct {
	MaxBytes   int64 // file content written, all layers (default 16 GiB)
	MaxEntries int64 // layer entries read, all layers (default 1 Mi)
	// MaxDownload bounds what a pull receives (default 8 GiB): checked
	// against the sizes the manifest declares before any layer is
	// fetched, and against the bytes that arrive.
	MaxDownload int64
	// MaxManifestBytes bounds a manifest or index a pull reads (default 4
	// MiB).
	MaxManifestBytes int64
}

// Options configure a Store.
type Options struct {
	// HostID and IDCount are the sandbox's id mapping: image uid N is host
	// uid HostID+N (defaults 1048576 and 65536, sandbox.Options' defaults).
	HostID, IDCount uint32
	// Home is made in every rootfs as a mount point (default /home/agent).
	Home   string
	Limits Limits
}

// Store is a directory of unpacked images: DIR/ID/rootfs (read-only in
// sandboxes, shared by every workspace that uses the image), DIR/ID/image.json
// (Info), DIR/index.json (names and workspaces' choices), where ID is
// "sha256-" and the hex of the image's manifest digest.
type Store struct {
	dir  string
	opts Options
}

// Info describes an unpacked image.
type Info struct {
	ID     string `json:"id"`     // sha256-HEX of the manifest
	Digest string `json:"digest"` // sha256:HEX
	// Source is the pinned reference of the pull that unpacked it
	// (REGISTRY/REPO@sha256:HEX: the manifest's or the index's); empty
	// for an import.
	Source string    `json:"source,omitempty"`
	Names  []string  `json:"names,omitempty"`
	Size   int64     `json:"size"` // file content bytes
	Added  time.Time `json:"added"`
	// Env, WorkingDir and User are the image config's.
	Env        []string `json:"env,omitempty"`
	WorkingDir string   `json:"working_dir,omitempty"`
	User       string   `json:"user,omitempty"`
	// UID and GID are User resolved against the image's /etc/passwd and
	// /etc/group (0 when User is empty).
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
	// Shell is /bin/bash when the image has it, else /bin/sh.
	Shell string `json:"shell"`
}

// index is DIR/index.json.
type index struct {
	Names      map[string]string `json:"names"`      // name → ID
	Workspaces map[string]string `json:"workspaces"` // workspace → name
	Default    string            `json:"default,omitempty"`
	// Writable lists the workspaces whose sandbox root is writable
	// (SetWritable).
	Writable map[string]bool `json:"writable,omitempty"`
}

// ErrNotFound: no image of that name.
var ErrNotFound = errors.New("no such image")

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$`)

// ValidName checks an image name: letters, digits and ._:/@-, at most 128.
func ValidName(n string) error {
	if !nameRE.MatchString(n) || strings.Contains(n, "..") {
		return fmt.Errorf("image name %q: want letters, digits and ._:/@- (at most 128, no \"..\")", n)
	}
	return nil
}

// Open opens (making it) the store at dir. Its directories are 0710 with
// group HostID, so that a sandbox's root (host uid HostID) passes through
// them to its rootfs while no other host user can: keep dir outside desk's
// data directories, which are private (0700).
func Open(dir string, o Options) (*Store, error) {
	if o.HostID == 0 {
		o.HostID = DefaultHostID
	}
	if o.IDCount == 0 {
		o.IDCount = DefaultIDCount
	}
	if o.Home == "" {
		o.Home = "/home/agent"
	}
	if o.Limits.MaxBytes <= 0 {
		o.Limits.MaxBytes = DefaultMaxBytes
	}
	if o.Limits.MaxEntries <= 0 {
		o.Limits.MaxEntries = DefaultMaxEntries
	}
	if o.Limits.MaxDownload <= 0 {
		o.Limits.MaxDownload = DefaultMaxDownload
	}
	if o.Limits.MaxManifestBytes <= 0 {
		o.Limits.MaxManifestBytes = DefaultMaxManifestBytes
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open image store: %w", err)
	}
	if err := makePassDir(abs, int(o.HostID)); err != nil {
		return nil, fmt.Errorf("open image store: %w", err)
	}
	return &Store{dir: abs, opts: o}, nil
}

// makePassDir makes dir (and missing parents) 0710 with group gid.
func makePassDir(dir string, gid int) error {
	if parent := filepath.Dir(dir); parent != dir {
		if _, err := os.Lstat(parent); errors.Is(err, fs.ErrNotExist) {
			if err := makePassDir(parent, gid); err != nil {
				return err
			}
		}
	}
	if err := os.Mkdir(dir, 0o710); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := os.Chmod(dir, 0o710); err != nil {
		return err
	}
	return os.Lchown(dir, -1, gid)
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// lock takes the store's write lock until the returned func is called.
func (s *Store) lock() (func(), error) {
	f, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock image store: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock image store: %w", err)
	}
	return func() { f.Close() }, nil
}

func (s *Store) readIndex() (*index, error) {
	ix := &index{Names: map[string]string{}, Workspaces: map[string]string{}}
	b, err := os.ReadFile(filepath.Join(s.dir, "index.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return ix, nil
	}
	if err == nil {
		err = json.Unmarshal(b, ix)
	}
	if err != nil {
		return nil, fmt.Errorf("read image index: %w", err)
	}
	if ix.Names == nil {
		ix.Names = map[string]string{}
	}
	if ix.Workspaces == nil {
		ix.Workspaces = map[string]string{}
	}
	if ix.Writable == nil {
		ix.Writable = map[string]bool{}
	}
	return ix, nil
}

func (s *Store) writeIndex(ix *index) error {
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.dir, "index.json"), b)
}

func writeAtomic(p string, b []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(p), err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(p), err)
	}
	return nil
}

// Import unpacks the image in file (an OCI image layout directory, an OCI
// archive: that layout as a tar, or a `docker save` tarball) unless the
// store has it already, and names it name (replacing what the name named).
func (s *Store) Import(ctx context.Context, file, name string) (Info, error) {
	if err := ValidName(name); err != nil {
		return Info{}, err
	}
	img, cleanup, err := openImage(file)
	if err != nil {
		return Info{}, err
	}
	defer cleanup()
	d, err := img.Digest()
	if err != nil {
		return Info{}, fmt.Errorf("import image: %w", err)
	}
	return s.add(ctx, img, d, name, nil)
}

// unpackJob is what an unpack reports and records beyond the image.
type unpackJob struct {
	source  string      // Info.Source
	onLayer func(i int) // called as layer i (0-based) starts being applied
	// open, if set, gives layer i's uncompressed stream (default: the
	// layer's Uncompressed).
	open func(ctx context.Context, layers []v1.Layer, i int) (io.ReadCloser, error)
}

// add unpacks img (digest d) unless the store has it, and names it name.
func (s *Store) add(ctx context.Context, img v1.Image, d v1.Hash, name string, configure func(*unpackJob)) (Info, error) {
	id := d.Algorithm + "-" + d.Hex
	unlock, err := s.lock()
	if err != nil {
		return Info{}, err
	}
	defer unlock()
	info, err := s.info(id)
	if errors.Is(err, fs.ErrNotExist) {
		job := &unpackJob{}
		if configure != nil {
			configure(job)
		}
		info, err = s.unpack(ctx, img, id, d, job)
	}
	if err != nil {
		return Info{}, err
	}
	ix, err := s.readIndex()
	if err != nil {
		return Info{}, err
	}
	ix.Names[name] = id
	if err := s.writeIndex(ix); err != nil {
		return Info{}, err
	}
	info.Names = namesOf(ix, id)
	return info, nil
}

func namesOf(ix *index, id string) []string {
	var out []string
	for n, i := range ix.Names {
		if i == id {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Store) info(id string) (Info, error) {
	var info Info
	b, err := os.ReadFile(filepath.Join(s.dir, id, "image.json"))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("read image %s: %w", id, err)
	}
	return info, nil
}

// unpack makes DIR/ID from img: the layers applied in a temporary directory,
// the mount points a sandbox needs added, then renamed into place.
func (s *Store) unpack(ctx context.Context, img v1.Image, id string, d v1.Hash, job *unpackJob) (Info, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return Info{}, fmt.Errorf("import image: read its config: %w", err)
	}
	layers, err := img.Layers()
	if err != nil {
		return Info{}, fmt.Errorf("import image: %w", err)
	}
	tmp, err := os.MkdirTemp(s.dir, ".unpack-")
	if err != nil {
		return Info{}, fmt.Errorf("import image: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o710); err != nil {
		return Info{}, err
	}
	if err := os.Lchown(tmp, -1, int(s.opts.HostID)); err != nil {
		return Info{}, err
	}
	root := filepath.Join(tmp, "rootfs")
	if err := os.Mkdir(root, 0o755); err != nil {
		return Info{}, err
	}
	if err := os.Lchown(root, int(s.opts.HostID), int(s.opts.HostID)); err != nil {
		return Info{}, err
	}
	u := &unpacker{root: root, hostID: s.opts.HostID, idCount: s.opts.IDCount, limits: s.opts.Limits}
	for i, l := range layers {
		if err := ctx.Err(); err != nil {
			return Info{}, err
		}
		var rc io.ReadCloser
		if job.open != nil {
			rc, err = job.open(ctx, layers, i)
		} else {
			rc, err = l.Uncompressed()
		}
		if err != nil {
			return Info{}, fmt.Errorf("import image: layer %d: %w", i+1, err)
		}
		if job.onLayer != nil {
			job.onLayer(i)
		}
		err = u.applyAll(rc)
		rc.Close()
		if err != nil {
			return Info{}, fmt.Errorf("import image: layer %d: %w", i+1, err)
		}
	}
	if err := s.mountPoints(u); err != nil {
		return Info{}, err
	}
	info := Info{ID: id, Digest: d.String(), Source: job.source, Size: u.bytes, Added: time.Now().UTC(),
		Env: cf.Config.Env, WorkingDir: cf.Config.WorkingDir, User: cf.Config.User, Shell: "/bin/sh"}
	if info.UID, info.GID, err = resolveUser(root, cf.Config.User); err != nil {
		return Info{}, fmt.Errorf("import image: %w", err)
	}
	if info.UID >= s.opts.IDCount || info.GID >= s.opts.IDCount {
		return Info{}, fmt.Errorf("import image: user %q is outside the sandbox's ids", cf.Config.User)
	}
	if fi, err := os.Lstat(filepath.Join(root, "bin", "bash")); err == nil && !fi.IsDir() {
		info.Shell = "/bin/bash"
	} else if fi, err := os.Lstat(filepath.Join(root, "usr", "bin", "bash")); err == nil && !fi.IsDir() {
		info.Shell = "/usr/bin/bash"
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "image.json"), b, 0o600); err != nil {
		return Info{}, err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, id)); err != nil {
		return Info{}, fmt.Errorf("import image: %w", err)
	}
	ok = true
	return info, nil
}

// mountPoints adds what a sandbox mounts on, where the image lacks it:
// /workspace, /tmp, /proc, /dev, /.desk/init (and the egress proxy's
// /.desk/egress.sock and /.desk/ca.pem), the home, /etc/hostname,
// /etc/hosts and /etc/resolv.conf (a symbolic link there is replaced by a
// file: the runtime binds onto it).
func (s *Store) mountPoints(u *unpacker) error {
	id := int(u.hostID)
	for _, d := range []string{"workspace", "tmp", "proc", "dev", ".desk", "etc", strings.TrimPrefix(s.opts.Home, "/")} {
		if err := u.checkParents(path.Join(d, "x")); err != nil {
			return fmt.Errorf("import image: mount point /%s: %w", d, err)
		}
	}
	os.Chmod(u.host("tmp"), 0o1777)
	for _, f := range []string{".desk/init", ".desk/egress.sock", ".desk/ca.pem", "etc/hostname", "etc/hosts", "etc/resolv.conf"} {
		hp := u.host(f)
		if fi, err := os.Lstat(hp); err == nil && fi.Mode().IsRegular() {
			continue
		}
		os.RemoveAll(hp)
		if err := os.WriteFile(hp, nil, 0o644); err != nil {
			return fmt.Errorf("import image: mount point /%s: %w", f, err)
		}
		if err := os.Lchown(hp, id, id); err != nil {
			return err
		}
	}
	return nil
}

// resolveUser resolves a config User ("", "name", "uid", "name:group",
// "uid:gid") against the image's /etc/passwd and /etc/group.
func resolveUser(root, user string) (uid, gid uint32, err error) {
	if user == "" {
		return 0, 0, nil
	}
	u, g, hasGroup := strings.Cut(user, ":")
	lookup := func(file, name string) (uint32, uint32, bool) {
		b, err := os.ReadFile(filepath.Join(root, "etc", file))
		if err != nil {
			return 0, 0, false
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, ":")
			if len(f) >= 3 && f[0] == name {
				id, err1 := strconv.ParseUint(f[2], 10, 32)
				var gid uint64
				if len(f) >= 4 && file == "passwd" {
					gid, _ = strconv.ParseUint(f[3], 10, 32)
				}
				return uint32(id), uint32(gid), err1 == nil
			}
		}
		return 0, 0, false
	}
	if n, err := strconv.ParseUint(u, 10, 32); err == nil {
		uid, gid = uint32(n), uint32(n)
	} else if id, pg, ok := lookup("passwd", u); ok {
		uid, gid = id, pg
	} else {
		return 0, 0, fmt.Errorf("user %q: not in the image's /etc/passwd", u)
	}
	if hasGroup {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			gid = uint32(n)
		} else if id, _, ok := lookup("group", g); ok {
			gid = id
		} else {
			return 0, 0, fmt.Errorf("group %q: not in the image's /etc/group", g)
		}
	}
	return uid, gid, nil
}

// openImage opens the image in file: an OCI layout directory, an OCI
// archive (extracted to a temporary directory, removed by cleanup) or a
// docker save tarball.
func openImage(file string) (v1.Image, func(), error) {
	none := func() {}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, none, fmt.Errorf("open image: %w", err)
	}
	if fi.IsDir() {
		img, err := fromLayout(file)
		return img, none, err
	}
	kind, err := archiveKind(file)
	if err != nil {
		return nil, none, err
	}
	if kind == "docker" {
		img, err := tarball.ImageFromPath(file, nil)
		if err != nil {
			return nil, none, fmt.Errorf("open image %s (docker save): %w", file, err)
		}
		return img, none, nil
	}
	dir, err := os.MkdirTemp("", "desk-oci-")
	if err != nil {
		return nil, none, fmt.Errorf("open image: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	if err := extractLayout(file, dir); err != nil {
		cleanup()
		return nil, none, err
	}
	img, err := fromLayout(dir)
	if err != nil {
		cleanup()
		return nil, none, err
	}
	return img, cleanup, nil
}

// fromLayout is the image of an OCI layout: its index's only image (or
// the first one whose platform is this one's).
func fromLayout(dir string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("open image layout %s: %w", dir, err)
	}
	ii, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("open image layout %s: %w", dir, err)
	}
	im, err := ii.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("open image layout %s: %w", dir, err)
	}
	for _, m := range im.Manifests {
		if m.MediaType.IsImage() {
			return ii.Image(m.Digest)
		}
		if m.MediaType.IsIndex() {
			child, err := ii.ImageIndex(m.Digest)
			if err != nil {
				return nil, err
			}
			cm, err := child.IndexManifest()
			if err != nil {
				return nil, err
			}
			for _, c := range cm.Manifests {
				if c.MediaType.IsImage() && (c.Platform == nil || c.Platform.OS == "linux") {
					return child.Image(c.Digest)
				}
			}
		}
	}
	return nil, fmt.Errorf("open image layout %s: no image in its index", dir)
}

// archiveKind says whether a tarball is a docker save ("docker": it has
// manifest.json) or an OCI archive ("oci": oci-layout).
func archiveKind(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("open image: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	oci := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("open image %s: not a tar archive nor a directory: %w", file, err)
		}
		switch path.Clean(h.Name) {
		case "manifest.json":
			return "docker", nil
		case "oci-layout":
			oci = true
		}
	}
	if oci {
		return "oci", nil
	}
	return "", fmt.Errorf("open image %s: neither an OCI archive (oci-layout) nor a docker save tarball (manifest.json)", file)
}

// extractLayout extracts an OCI archive's layout files (oci-layout,
// index.json, blobs/ALG/HEX) into dir; anything else is refused.
func extractLayout(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("open image: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	blob := regexp.MustCompile(`^blobs/[a-z0-9]+/[a-f0-9]{32,128}$`)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read image archive: %w", err)
		}
		name := strings.TrimPrefix(path.Clean(h.Name), "./")
		switch {
		case h.Typeflag == tar.TypeDir && slices.Contains([]string{".", "blobs"}, name), h.Typeflag == tar.TypeDir && blob.MatchString(name+"/"+strings.Repeat("0", 64)):
			os.MkdirAll(filepath.Join(dir, name), 0o700)
			continue
		case h.Typeflag != tar.TypeReg:
			return fmt.Errorf("read image archive: %w: entry %q is not a layout file", ErrHostile, h.Name)
		case name == "oci-layout" || name == "index.json" || blob.MatchString(name):
		default:
			return fmt.Errorf("read image archive: %w: entry %q is not a layout file", ErrHostile, h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("read image archive: %w", err)
		}
	}
}

// List lists the store's images by name.
func (s *Store) List() ([]Info, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Info
	ids := make([]string, 0, len(ix.Names))
	for _, id := range ix.Names {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		info, err := s.info(id)
		if err != nil {
			return nil, fmt.Errorf("read image %s: %w", id, err)
		}
		info.Names = namesOf(ix, id)
		out = append(out, info)
	}
	return out, nil
}

// inUseFile, in an image's directory, is what Hold locks shared for as long
// as a sandbox runs on the image, and Remove exclusively before it deletes
// the image.
const inUseFile = "in-use"

// ErrInUse is wrapped, with syscall.EBUSY, by Remove's error for an image
// a sandbox runs on.
var ErrInUse = errors.New("a sandbox runs on the image")

// Hold marks img (a Resolve or ForWorkspace result) in use until release is
// called: Remove of its last name is refused meanwhile (EBUSY). It takes a
// shared flock on the image's DIR/ID/in-use, so it holds across processes
// (desk serve's sandboxes against desk image rm) and goes with the process
// if it dies. An image removed since it was resolved is ErrNotFound.
func (s *Store) Hold(img Image) (release func(), err error) {
	dir := filepath.Join(s.dir, img.ID)
	if img.ID == "" || filepath.Base(dir) != img.ID || filepath.Join(dir, "rootfs") != img.Root {
		return nil, fmt.Errorf("hold image %q: not an image of this store", img.ID)
	}
	f, err := os.OpenFile(filepath.Join(dir, inUseFile), os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("hold image %s: %w (removed)", img.ID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("hold image %s: %w", img.ID, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, fmt.Errorf("hold image %s: %w", img.ID, err)
	}
	// Remove may have taken the image between the open and the lock: it
	// renames the directory away before it deletes it.
	if _, err := os.Lstat(filepath.Join(dir, "image.json")); err != nil {
		f.Close()
		return nil, fmt.Errorf("hold image %s: %w (removed)", img.ID, ErrNotFound)
	}
	return sync.OnceFunc(func() { f.Close() }), nil
}

// Remove removes name; the unpacked image goes with its last name, unless
// a sandbox runs on it (Hold): then nothing changes and the error wraps
// ErrInUse and syscall.EBUSY. Workspaces that chose it fall back to the
// default.
func (s *Store) Remove(name string) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	ix, err := s.readIndex()
	if err != nil {
		return err
	}
	id, ok := ix.Names[name]
	if !ok {
		return fmt.Errorf("remove image %q: %w", name, ErrNotFound)
	}
	delete(ix.Names, name)
	last := len(namesOf(ix, id)) == 0
	if last {
		// Held exclusively until the image is gone: a Hold meanwhile waits,
		// then finds it removed.
		f, err := os.OpenFile(filepath.Join(s.dir, id, inUseFile), os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return fmt.Errorf("remove image %q: %w", name, err)
		}
		defer f.Close()
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("remove image %q: %w: %w (try again once its sandboxes have stopped: a sandbox stops after 5 minutes with nothing running, when its workspace closes, or with its server)", name, ErrInUse, syscall.EBUSY)
		}
		if err != nil {
			return fmt.Errorf("remove image %q: %w", name, err)
		}
	}
	for ws, n := range ix.Workspaces {
		if n == name {
			delete(ix.Workspaces, ws)
		}
	}
	if ix.Default == name {
		ix.Default = ""
	}
	if err := s.writeIndex(ix); err != nil {
		return err
	}
	if last {
		// Renamed first, so that a half-removed image is never found.
		gone := filepath.Join(s.dir, ".removed-"+id)
		if err := os.Rename(filepath.Join(s.dir, id), gone); err != nil {
			return fmt.Errorf("remove image %q: %w", name, err)
		}
		return os.RemoveAll(gone)
	}
	return nil
}

// Use makes workspace ws use image name ("" : the default again).
func (s *Store) Use(ws, name string) error {
	return s.updateIndex(func(ix *index) error {
		if name == "" {
			delete(ix.Workspaces, ws)
			return nil
		}
		if _, ok := ix.Names[name]; !ok {
			return fmt.Errorf("use image %q: %w", name, ErrNotFound)
		}
		ix.Workspaces[ws] = name
		return nil
	})
}

// updateIndex changes the index with fn under the store's lock (nothing is
// written when fn fails).
func (s *Store) updateIndex(fn func(ix *index) error) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	ix, err := s.readIndex()
	if err != nil {
		return err
	}
	if err := fn(ix); err != nil {
		return err
	}
	return s.writeIndex(ix)
}

// SetWritable makes workspace ws's sandbox root writable (on) or
// read-only again (off, the default): an overlay over its image's root
// whose changes the sandbox backend keeps in the workspace's store. It
// applies from the next sandbox start, to whatever image the workspace
// uses (the host's userland is never writable).
func (s *Store) SetWritable(ws string, on bool) error {
	return s.updateIndex(func(ix *index) error {
		if on {
			ix.Writable[ws] = true
		} else {
			delete(ix.Writable, ws)
		}
		return nil
	})
}

// Writable returns the workspaces whose sandbox root is writable.
func (s *Store) Writable() (map[string]bool, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	return ix.Writable, nil
}

// SetDefault makes name the image of every workspace that chose none (""
// : the host's userland).
func (s *Store) SetDefault(name string) error {
	return s.updateIndex(func(ix *index) error {
		if _, ok := ix.Names[name]; name != "" && !ok {
			return fmt.Errorf("default image %q: %w", name, ErrNotFound)
		}
		ix.Default = name
		return nil
	})
}

// Choices returns the workspaces' choices (workspace → image name) and the
// default.
func (s *Store) Choices() (map[string]string, string, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, "", err
	}
	return ix.Workspaces, ix.Default, nil
}

// Image is what a sandbox needs of an image: its root and config.
type Image struct {
	Root string // the unpacked rootfs (read-only, shared)
	Info
	// Writable says the workspace asked for a writable root over it
	// (SetWritable; ForWorkspace only).
	Writable bool
}

// Resolve returns the image named name.
func (s *Store) Resolve(name string) (Image, error) {
	ix, err := s.readIndex()
	if err != nil {
		return Image{}, err
	}
	id, ok := ix.Names[name]
	if !ok {
		return Image{}, fmt.Errorf("image %q: %w", name, ErrNotFound)
	}
	info, err := s.info(id)
	if err != nil {
		return Image{}, fmt.Errorf("image %q: %w", name, err)
	}
	info.Names = namesOf(ix, id)
	return Image{Root: filepath.Join(s.dir, id, "rootfs"), Info: info}, nil
}

// ForWorkspace returns the image workspace ws uses: its own choice (Use),
// else def, else the store's default (SetDefault). ok is false when it
// uses the host's userland.
func (s *Store) ForWorkspace(ws, def string) (img Image, ok bool, err error) {
	ix, err := s.readIndex()
	if err != nil {
		return Image{}, false, err
	}
	name := cmp.Or(ix.Workspaces[ws], def, ix.Default)
	if name == "" {
		return Image{}, false, nil
	}
	img, err = s.Resolve(name)
	img.Writable = ix.Writable[ws]
	return img, err == nil, err
}
