package gitws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/desk-dev/desk/internal/vfs"
)

// Env is what a git command sees: the store, the working directory, the
// streams and the environment. Nothing on the host is touched.
type Env struct {
	Ctx    context.Context
	FS     *vfs.FS
	Dir    string // absolute working directory in the store
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv returns an environment variable ("" when unset).
	Getenv func(string) string
	// Now is the clock for commit dates when GIT_AUTHOR_DATE and
	// GIT_COMMITTER_DATE are unset (nil: time.Now).
	Now func() time.Time
	// HTTPClient carries every http:// and https:// request of clone, fetch,
	// pull and push. It is where the workspace's egress policy plugs in (its
	// Transport decides which hosts are reached). Nil: http(s) remotes are
	// refused with an error saying that no network is configured.
	HTTPClient *http.Client
	// Credentials returns the username and password (a token goes in
	// Password) sent with HTTP basic authentication to an http(s) remote;
	// it is asked once per operation with the remote's URL. This is the
	// seam for the workspace's secrets: the secret broker of issue 14
	// supplies it, so credentials never come from the command line, the
	// remote URL or the store. Nil, or ok false: nothing is sent, and a
	// remote that asks for authentication is an error saying so.
	Credentials func(ctx context.Context, remoteURL string) (cred Credential, ok bool, err error)
	// MaxObjectBytes bounds one blob read into memory for diff, merge and
	// show (0: DefaultMaxObjectBytes).
	MaxObjectBytes int64

	configParams []string // -c key=value of the command line
}

// Credential is what Env.Credentials returns for a remote.
type Credential struct {
	Username string
	Password string
}

// DefaultMaxObjectBytes is Env.MaxObjectBytes when it is 0: larger blobs are
// reported as binary by diff and refused by merge.
const DefaultMaxObjectBytes = 64 << 20

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Env) maxObject() int64 {
	if e.MaxObjectBytes > 0 {
		return e.MaxObjectBytes
	}
	return DefaultMaxObjectBytes
}

// abs resolves p against the working directory.
func (e *Env) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return vfs.Clean(p)
	}
	return vfs.Clean(e.Dir + "/" + p)
}

// Repo is an open repository in the store: its git directory, its work tree
// and go-git's repository over the billy adapter.
type Repo struct {
	env    *Env
	GitDir string // absolute store path of .git
	Work   string // absolute store path of the work tree ("" when bare)
	R      *git.Repository
	st     *objStore // go-git's storage, loose object writes batched (objStore.buffer)
	cfg    *config   // local + global, read once
}

// errNotRepo is what a command outside any repository reports.
var errNotRepo = errors.New("not a git repository (or any of the parent directories): .git")

// isGitDir reports whether dir looks like a git directory (HEAD and objects).
func isGitDir(ctx context.Context, f *vfs.FS, dir string) bool {
	if fi, err := f.Stat(ctx, dir+"/HEAD"); err != nil || fi.IsDir() {
		return false
	}
	fi, err := f.Stat(ctx, dir+"/objects")
	return err == nil && fi.IsDir()
}

// findRepo looks for the repository holding dir, as git does: dir/.git,
// then the parents; a bare repository (dir itself a git dir) also counts.
func findRepo(env *Env, dir string) (gitDir, work string, err error) {
	if gd := env.getenv("GIT_DIR"); gd != "" {
		gd = env.abs(gd)
		if !isGitDir(env.Ctx, env.FS, gd) {
			return "", "", fmt.Errorf("not a git repository: '%s'", gd)
		}
		w := env.getenv("GIT_WORK_TREE")
		if w != "" {
			w = env.abs(w)
		} else {
			w = env.Dir
		}
		return gd, w, nil
	}
	for d := dir; ; d = path.Dir(d) {
		cand := strings.TrimSuffix(d, "/") + "/.git"
		if isGitDir(env.Ctx, env.FS, cand) {
			return cand, d, nil
		}
		if isGitDir(env.Ctx, env.FS, d) {
			return d, "", nil
		}
		if d == "/" {
			return "", "", errNotRepo
		}
	}
}

// openRepo opens the repository at gitDir with work tree work.
func openRepo(env *Env, gitDir, work string) (*Repo, error) {
	st := &objStore{
		Storage: filesystem.NewStorageWithOptions(NewBilly(env.Ctx, env.FS, gitDir), cache.NewObjectLRUDefault(), filesystem.Options{}),
		ctx:     env.Ctx, fs: env.FS, gitDir: gitDir,
	}
	var wt *Billy
	if work != "" {
		wt = NewBilly(env.Ctx, env.FS, work)
		wt.inPlace = true // work-tree files: no reader needs them whole
	}
	var r *git.Repository
	var err error
	if wt != nil {
		r, err = git.Open(st, wt)
	} else {
		r, err = git.Open(st, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", gitDir, err)
	}
	rp := &Repo{env: env, GitDir: gitDir, Work: work, R: r, st: st}
	if rp.cfg, err = loadConfig(env, gitDir); err != nil {
		return nil, err
	}
	return rp, nil
}

// --- index ---

// treeEntries are the index entries of a flat tree: an entry of idx (stage
// 0) with the same blob and mode is kept with its stat data; any other is
// new, without stat data (the work tree may hold other content, and stat
// data copied from it would vouch for it: real git compares whole seconds).
func treeEntries(tree map[string]treeEntry, idx *index.Index) []*index.Entry {
	cur := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			cur[e.Name] = e
		}
	}
	ents := make([]*index.Entry, 0, len(tree))
	for p, te := range tree {
		if e, ok := cur[p]; ok && e.Hash == te.Hash && e.Mode == te.Mode {
			ents = append(ents, e)
			continue
		}
		ents = append(ents, &index.Entry{Name: p, Hash: te.Hash, Mode: te.Mode})
	}
	return ents
}

// trackedNames is the set of the paths the index holds (any stage).
func trackedNames(idx *index.Index) map[string]bool {
	tracked := make(map[string]bool, len(idx.Entries))
	for _, e := range idx.Entries {
		tracked[e.Name] = true
	}
	return tracked
}

// readIndex reads .git/index (an empty index when there is none).
func (r *Repo) readIndex() (*index.Index, error) {
	idx := &index.Index{Version: 2}
	p := r.GitDir + "/index"
	fi, err := r.env.FS.Stat(r.env.Ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := r.env.FS.ReadFile(r.env.Ctx, p)
	if err != nil {
		return nil, err
	}
	fast, ok, err := decodeIndex(data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("index file corrupt: %w", err)
	case ok:
		idx = fast
	default:
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
			return nil, fmt.Errorf("index file corrupt: %w", err)
		}
	}
	idx.ModTime = fi.ModTime()
	return idx, nil
}

// writeIndex replaces .git/index atomically. Extensions (the cache tree) are
// not written, so real git never trusts a stale one.
func (r *Repo) writeIndex(idx *index.Index) error {
	if err := r.st.flush(); err != nil { // the blobs it names first
		return err
	}
	idx.Cache = nil
	idx.ResolveUndo = nil
	idx.EndOfIndexEntry = nil
	if idx.Version == 0 || idx.Version > 3 {
		idx.Version = 2
	}
	for _, e := range idx.Entries {
		if e.IntentToAdd || e.SkipWorktree {
			idx.Version = 3
		}
	}
	r.smudgeRacy(idx)
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := r.env.FS.WriteFile(r.env.Ctx, r.GitDir+"/index", buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// smudgeRacy applies git's racy-git rule before idx replaces the index read
// at idx.ModTime: real git compares whole seconds, so an entry whose file was
// modified in or after that index's second could look clean once a later
// index vouches for it. Such an entry keeps its stat data only while its file
// still has exactly that stat data (the store's times are nanoseconds);
// otherwise its size becomes 0, which git and statClean read as "compare the
// content".
func (r *Repo) smudgeRacy(idx *index.Index) {
	if idx.ModTime.IsZero() || r.Work == "" {
		return // a new index: nothing vouched for before (git does the same)
	}
	sec := idx.ModTime.Unix()
	for _, e := range idx.Entries {
		if e.Stage != 0 || e.Size == 0 || e.ModifiedAt.Unix() < sec {
			continue
		}
		fi, err := r.env.FS.Lstat(r.env.Ctx, r.Work+"/"+e.Name)
		if err == nil {
			a := fi.Attr()
			if a.Mtime.Equal(e.ModifiedAt) && uint32(a.Size) == e.Size && uint32(a.Ino) == e.Inode {
				continue
			}
		}
		e.Size = 0
	}
}

// entryFromAttr fills an index entry's stat data from the store's attributes.
func entryFromAttr(e *index.Entry, a vfs.Attr) {
	e.CreatedAt = a.Ctime
	e.ModifiedAt = a.Mtime
	e.Inode = uint32(a.Ino)
	e.UID, e.GID = a.Uid, a.Gid
	e.Size = uint32(a.Size)
	e.Dev = 0
}

// modeOf is git's mode for a work-tree file.
func modeOf(a vfs.Attr) filemode.FileMode {
	switch {
	case a.IsSymlink():
		return filemode.Symlink
	case a.IsDir():
		return filemode.Dir
	case a.Mode&0o100 != 0:
		return filemode.Executable
	}
	return filemode.Regular
}

// emptyBlobHash is the id of the empty blob.
var emptyBlobHash = plumbing.ComputeHash(plumbing.BlobObject, nil)

// statClean reports whether the work-tree attributes match the index entry's
// stat data (so the content need not be read), with git's racy rule: a file
// modified at or after the index was written is not trusted.
func statClean(e *index.Entry, a vfs.Attr, idxTime time.Time) bool {
	if modeOf(a) != e.Mode || uint32(a.Size) != e.Size || !a.Mtime.Equal(e.ModifiedAt) {
		return false
	}
	if e.Size == 0 && e.Hash != emptyBlobHash {
		return false // smudged by git's racy rule (or no stat data): compare the content
	}
	if uint32(a.Ino) != e.Inode && e.Inode != 0 {
		return false
	}
	if idxTime.IsZero() || !a.Mtime.Before(idxTime) {
		return false
	}
	return true
}

// --- objects ---

// hashBlob computes a blob's id without storing it.
func hashBlob(data []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, data)
}

// readWork reads a work-tree file's content (a symlink's target).
func (r *Repo) readWork(rel string, a vfs.Attr) ([]byte, error) {
	p := r.Work + "/" + rel
	if a.IsSymlink() {
		t, err := r.env.FS.Readlink(r.env.Ctx, p)
		return []byte(t), err
	}
	return r.env.FS.ReadFile(r.env.Ctx, p)
}

// storeBlob writes data as a blob object.
func (r *Repo) storeBlob(data []byte) (plumbing.Hash, error) {
	h := hashBlob(data)
	if r.st.HasEncodedObject(h) == nil {
		return h, nil
	}
	o := r.st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	o.SetSize(int64(len(data)))
	w, err := o.Writer()
	if err != nil {
		return h, err
	}
	if _, err := w.Write(data); err != nil {
		return h, err
	}
	if err := w.Close(); err != nil {
		return h, err
	}
	return r.st.SetEncodedObject(o)
}

// blob reads a blob's content, bounded by MaxObjectBytes.
func (r *Repo) blob(h plumbing.Hash) ([]byte, error) {
	o, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	if o.Size() > r.env.maxObject() {
		return nil, fmt.Errorf("read blob %s: %d bytes is over the limit of %d", h, o.Size(), r.env.maxObject())
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// treeEntry is one file of a flattened tree.
type treeEntry struct {
	Hash plumbing.Hash
	Mode filemode.FileMode
}

// flatTree lists every file of a tree (recursively) by path; a zero hash
// gives an empty map.
func (r *Repo) flatTree(h plumbing.Hash) (map[string]treeEntry, error) {
	out := map[string]treeEntry{}
	if h.IsZero() {
		return out, nil
	}
	cache := &stateOf(r.env.FS).trees
	key := treeCacheKey{r.GitDir, h}
	if m, ok := cache.get(key); ok {
		return m, nil
	}
	t, err := object.GetTree(r.st, h)
	if err != nil {
		return nil, err
	}
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		for _, e := range t.Entries {
			p := prefix + e.Name
			if e.Mode == filemode.Dir {
				sub, err := object.GetTree(r.st, e.Hash)
				if err != nil {
					return err
				}
				if err := walk(sub, p+"/"); err != nil {
					return err
				}
				continue
			}
			out[p] = treeEntry{e.Hash, e.Mode}
		}
		return nil
	}
	if err := walk(t, ""); err != nil {
		return nil, err
	}
	cache.put(key, out)
	return out, nil
}

// writeTree stores the tree objects of a set of files and returns the root.
func (r *Repo) writeTree(files map[string]treeEntry) (plumbing.Hash, error) {
	type dir struct {
		files map[string]treeEntry
		dirs  map[string]*dir
	}
	root := &dir{files: map[string]treeEntry{}, dirs: map[string]*dir{}}
	for p, e := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			sub := d.dirs[part]
			if sub == nil {
				sub = &dir{files: map[string]treeEntry{}, dirs: map[string]*dir{}}
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = e
	}
	var store func(d *dir) (plumbing.Hash, error)
	store = func(d *dir) (plumbing.Hash, error) {
		var ents []object.TreeEntry
		for name, e := range d.files {
			ents = append(ents, object.TreeEntry{Name: name, Mode: e.Mode, Hash: e.Hash})
		}
		for name, sub := range d.dirs {
			h, err := store(sub)
			if err != nil {
				return h, err
			}
			ents = append(ents, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		sort.Slice(ents, func(i, j int) bool { return treeKey(ents[i]) < treeKey(ents[j]) })
		t := &object.Tree{Entries: ents}
		o := r.st.NewEncodedObject()
		if err := t.Encode(o); err != nil {
			return plumbing.ZeroHash, err
		}
		return r.st.SetEncodedObject(o)
	}
	return store(root)
}

// treeKey is git's tree order: a directory sorts as if its name ended in "/".
func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// indexFiles is the index (stage 0) as a flat tree.
func indexFiles(idx *index.Index) map[string]treeEntry {
	out := make(map[string]treeEntry, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			out[e.Name] = treeEntry{e.Hash, e.Mode}
		}
	}
	return out
}

// --- refs ---

// head returns HEAD's symbolic target ("refs/heads/master"; "" when
// detached) and the commit it names (zero when unborn).
func (r *Repo) head() (target string, h plumbing.Hash, err error) {
	ref, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		return "", h, fmt.Errorf("read HEAD: %w", err)
	}
	if ref.Type() == plumbing.HashReference {
		return "", ref.Hash(), nil
	}
	target = ref.Target().String()
	t, err := r.st.Reference(ref.Target())
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return target, plumbing.ZeroHash, nil
	}
	if err != nil {
		return target, h, err
	}
	return target, t.Hash(), nil
}

// headFiles is the flat tree of HEAD's commit (empty when unborn).
func (r *Repo) headFiles() (map[string]treeEntry, error) {
	ht, err := r.headTree()
	if err != nil {
		return nil, err
	}
	return r.flatTree(ht)
}

// headTree returns the tree of HEAD's commit (zero when unborn).
func (r *Repo) headTree() (plumbing.Hash, error) {
	_, h, err := r.head()
	if err != nil || h.IsZero() {
		return plumbing.ZeroHash, err
	}
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// setRef points name at h, logging the change in its reflog with msg
// (git's words: "commit: subject", "reset: moving to HEAD~1", ...).
func (r *Repo) setRef(name string, h plumbing.Hash, msg string) error {
	var old plumbing.Hash
	if ref, err := r.st.Reference(plumbing.ReferenceName(name)); err == nil && ref.Type() == plumbing.HashReference {
		old = ref.Hash()
	}
	if err := r.st.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
		return err
	}
	r.logRef(name, old, h, msg)
	return nil
}

// renameReflog moves the reflog of from to to (git branch -m).
func (r *Repo) renameReflog(from, to string) {
	src, dst := r.GitDir+"/logs/"+from, r.GitDir+"/logs/"+to
	if _, err := r.env.FS.Lstat(r.env.Ctx, src); err != nil {
		return
	}
	if err := r.env.FS.MkdirAll(r.env.Ctx, path.Dir(dst), 0o755); err == nil {
		_ = r.env.FS.Rename(r.env.Ctx, src, dst, 0)
	}
}

// maxReflogBytes bounds a reflog: past it the oldest half is dropped.
const maxReflogBytes = 1 << 20

// logRef appends a line to the reflog of name (as core.logAllRefUpdates
// does for branches and HEAD), so that commits left behind by reset,
// amend or a deleted branch stay reachable for git fsck and gc.
func (r *Repo) logRef(name string, old, nw plumbing.Hash, msg string) {
	if old == nw {
		return
	}
	r.appendReflog(name, old, nw, msg)
}

// appendReflog appends a line to the reflog of name even when the value
// stays (HEAD moving between branches of one commit).
func (r *Repo) appendReflog(name string, old, nw plumbing.Hash, msg string) {
	if !(name == "HEAD" || strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/remotes/")) {
		return
	}
	who := "gitws <gitws@desk>"
	if n, ok := r.cfg.get("user.name"); ok {
		if e, ok := r.cfg.get("user.email"); ok {
			who = n + " <" + e + ">"
		}
	}
	if n := r.env.getenv("GIT_COMMITTER_NAME"); n != "" {
		who = n + " <" + r.env.getenv("GIT_COMMITTER_EMAIL") + ">"
	}
	now := r.env.now()
	line := fmt.Sprintf("%s %s %s %d %s\t%s\n", old, nw, who, now.Unix(), now.Format("-0700"), msg)
	p := r.GitDir + "/logs/" + name
	if err := r.env.FS.MkdirAll(r.env.Ctx, path.Dir(p), 0o755); err != nil {
		return
	}
	data, _ := r.env.FS.ReadFile(r.env.Ctx, p)
	if len(data) > maxReflogBytes {
		data = data[len(data)/2:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	_ = r.env.FS.WriteFile(r.env.Ctx, p, append(data, line...), 0o644)
}

// updateHead moves what HEAD names (the branch, or HEAD itself when
// detached) to h.
//
// Both reflogs get msg; HEAD's, when it names a branch, even when the value
// stays (git writes "reset: moving to HEAD" so).
func (r *Repo) updateHead(h plumbing.Hash, msg string) error {
	target, _, err := r.head()
	if err != nil {
		return err
	}
	var old plumbing.Hash
	if _, oh, err := r.head(); err == nil {
		old = oh
	}
	if target == "" {
		target = "HEAD"
	}
	if err := r.setRef(target, h, msg); err != nil {
		return err
	}
	if target != "HEAD" {
		r.appendReflog("HEAD", old, h, msg)
	}
	return nil
}

// shortBranch is a ref's name without refs/heads/.
func shortBranch(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

// allRefs lists the references (packed and loose), sorted by name.
func (r *Repo) allRefs() ([]*plumbing.Reference, error) {
	it, err := r.st.IterReferences()
	if err != nil {
		return nil, err
	}
	var out []*plumbing.Reference
	err = it.ForEach(func(ref *plumbing.Reference) error {
		out = append(out, ref)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, err
}

var _ storer.EncodedObjectStorer = (*filesystem.Storage)(nil)
var _ = formatcfg.New

func contextBackground() context.Context { return context.Background() }
