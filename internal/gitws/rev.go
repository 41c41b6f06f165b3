package gitws

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errBadRev is a revision that names nothing.
var errBadRev = errors.New("unknown revision")

// errAmbiguous is a short hash with several matches.
var errAmbiguous = errors.New("ambiguous short hash")

// lookupRef resolves a ref name as git's rules do (name, refs/name,
// refs/tags/name, refs/heads/name, refs/remotes/name, refs/remotes/name/HEAD).
func (r *Repo) lookupRef(name string) (plumbing.Hash, string, bool) {
	if name == "@" {
		name = "HEAD"
	}
	if name == "FETCH_HEAD" {
		h, ok := r.fetchHead()
		return h, name, ok
	}
	for _, cand := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		ref, err := r.st.Reference(plumbing.ReferenceName(cand))
		if err != nil {
			continue
		}
		if ref.Type() == plumbing.SymbolicReference {
			res, err := r.resolveSym(ref)
			if err != nil {
				continue
			}
			return res.Hash(), cand, true
		}
		return ref.Hash(), cand, true
	}
	return plumbing.ZeroHash, "", false
}

// fetchHead is the commit FETCH_HEAD's first line names (what git merge
// FETCH_HEAD and git checkout FETCH_HEAD take): a hex id, then a tab.
func (r *Repo) fetchHead() (plumbing.Hash, bool) {
	f, err := r.env.FS.Open(r.env.Ctx, r.GitDir+"/FETCH_HEAD")
	if err != nil {
		return plumbing.ZeroHash, false
	}
	defer f.Close()
	var b [41]byte
	n, _ := io.ReadFull(f, b[:])
	if n < 40 || (n == 41 && b[40] != '\t') {
		return plumbing.ZeroHash, false
	}
	if _, err := hex.DecodeString(string(b[:40])); err != nil {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(string(b[:40])), true
}

func (r *Repo) resolveSym(ref *plumbing.Reference) (*plumbing.Reference, error) {
	for range 10 {
		if ref.Type() != plumbing.SymbolicReference {
			return ref, nil
		}
		next, err := r.st.Reference(ref.Target())
		if err != nil {
			return nil, err
		}
		ref = next
	}
	return nil, errors.New("symbolic reference loop")
}

// lookupHex finds the object a (possibly short) hex id names.
func (r *Repo) lookupHex(s string) (plumbing.Hash, error) {
	if len(s) == 40 {
		h := plumbing.NewHash(s)
		if r.st.HasEncodedObject(h) == nil {
			return h, nil
		}
		return plumbing.ZeroHash, errBadRev
	}
	b, err := hex.DecodeString(s[:len(s)/2*2])
	if err != nil {
		return plumbing.ZeroHash, errBadRev
	}
	hs, err := r.st.ObjectStorage.HashesWithPrefix(b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var found []plumbing.Hash
	for _, h := range hs {
		if strings.HasPrefix(h.String(), s) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, errBadRev
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, errAmbiguous
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(s[i])) {
			return false
		}
	}
	return true
}

// peel follows tags to the object of type want ("" any non-tag object).
func (r *Repo) peel(h plumbing.Hash, want plumbing.ObjectType) (plumbing.Hash, error) {
	for range 100 {
		o, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return h, err
		}
		t := o.Type()
		if t == want || (want == plumbing.AnyObject && t != plumbing.TagObject) {
			return h, nil
		}
		switch t {
		case plumbing.TagObject:
			tag, err := object.DecodeTag(r.st, o)
			if err != nil {
				return h, err
			}
			h = tag.Target
		case plumbing.CommitObject:
			if want != plumbing.TreeObject {
				return h, errBadRev
			}
			c, err := object.DecodeCommit(r.st, o)
			if err != nil {
				return h, err
			}
			return c.TreeHash, nil
		default:
			return h, errBadRev
		}
	}
	return h, errBadRev
}

// resolve resolves a revision to an object id: a ref, a (short) hash, with
// ~N, ^N, ^{type}, ^{} suffixes and :path (":path" alone reads the index).
func (c *cmd) resolve(r *Repo, rev string) (plumbing.Hash, error) {
	if strings.HasPrefix(rev, ":") {
		p := strings.TrimPrefix(rev, ":")
		stage := 0
		if len(p) > 2 && p[1] == ':' && p[0] >= '0' && p[0] <= '3' {
			stage = int(p[0] - '0')
			p = p[2:]
		}
		rel, ok := c.repoPathRel(p)
		if !ok {
			return plumbing.ZeroHash, errBadRev
		}
		idx, err := r.readIndex()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, e := range idx.Entries {
			if e.Name == rel && int(e.Stage) == stage {
				return e.Hash, nil
			}
		}
		return plumbing.ZeroHash, fmt.Errorf("path '%s' does not exist in the index: %w", rel, errBadRev)
	}
	base, pathPart, hasPath := rev, "", false
	if i := strings.IndexByte(rev, ':'); i > 0 {
		base, pathPart, hasPath = rev[:i], rev[i+1:], true
	}
	// split the base name from its suffixes
	end := len(base)
	for i := 0; i < len(base); i++ {
		if base[i] == '~' || base[i] == '^' {
			end = i
			break
		}
	}
	name, suffix := base[:end], base[end:]
	if name == "" {
		name = "HEAD"
	}
	var h plumbing.Hash
	if at := strings.Index(name, "@{"); at >= 0 && strings.HasSuffix(name, "}") {
		rh, err := r.reflogAt(name[:at], name[at+2:len(name)-1])
		if err != nil {
			return h, err
		}
		h = rh
	} else if rh, _, ok := r.lookupRef(name); ok {
		h = rh
	} else if isHex(name) {
		var err error
		if h, err = r.lookupHex(name); err != nil {
			return h, err
		}
	} else {
		return h, errBadRev
	}
	for suffix != "" {
		op := suffix[0]
		suffix = suffix[1:]
		if op == '^' && strings.HasPrefix(suffix, "{") {
			j := strings.IndexByte(suffix, '}')
			if j < 0 {
				return h, errBadRev
			}
			typ := suffix[1:j]
			suffix = suffix[j+1:]
			var want plumbing.ObjectType
			switch typ {
			case "":
				want = plumbing.AnyObject
			case "commit":
				want = plumbing.CommitObject
			case "tree":
				want = plumbing.TreeObject
			case "blob":
				want = plumbing.BlobObject
			case "tag":
				want = plumbing.TagObject
			default:
				return h, errBadRev
			}
			var err error
			if h, err = r.peel(h, want); err != nil {
				return h, errBadRev
			}
			continue
		}
		n := 1
		k := 0
		for k < len(suffix) && suffix[k] >= '0' && suffix[k] <= '9' {
			k++
		}
		if k > 0 {
			n, _ = strconv.Atoi(suffix[:k])
			suffix = suffix[k:]
		}
		ch, err := r.peel(h, plumbing.CommitObject)
		if err != nil {
			return h, errBadRev
		}
		h = ch
		steps, parent := n, 1
		if op == '^' {
			steps, parent = 1, n
			if n == 0 {
				continue
			}
		}
		for range steps {
			cm, err := object.GetCommit(r.st, h)
			if err != nil {
				return h, errBadRev
			}
			if len(cm.ParentHashes) < parent {
				return h, errBadRev
			}
			h = cm.ParentHashes[parent-1]
		}
	}
	if hasPath {
		th, err := r.peel(h, plumbing.TreeObject)
		if err != nil {
			return h, errBadRev
		}
		if pathPart == "" {
			return th, nil
		}
		if strings.HasPrefix(pathPart, "./") || strings.HasPrefix(pathPart, "../") {
			rel, ok := c.repoPathRel(pathPart)
			if !ok {
				return h, errBadRev
			}
			pathPart = rel
		}
		t, err := object.GetTree(r.st, th)
		if err != nil {
			return h, err
		}
		e, err := t.FindEntry(strings.TrimSuffix(pathPart, "/"))
		if err != nil {
			return h, fmt.Errorf("path '%s' does not exist in '%s': %w", pathPart, base, errBadRev)
		}
		if e.Mode == filemode.Dir || true {
			return e.Hash, nil
		}
	}
	return h, nil
}

// repoPathRel is repoPath for a path in a revision (relative to the
// working directory only when it starts with ./ or ../).
func (c *cmd) repoPathRel(p string) (string, bool) {
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return c.repoPath(p)
	}
	return p, true
}

// resolveCommitish resolves rev to a commit.
func (c *cmd) resolveCommitish(r *Repo, rev string) (plumbing.Hash, error) {
	h, err := c.resolve(r, rev)
	if err != nil {
		return h, err
	}
	return r.peel(h, plumbing.CommitObject)
}

// mustCommit resolves rev to a commit or dies as git does.
func (c *cmd) mustCommit(r *Repo, rev string) plumbing.Hash {
	h, err := c.resolveCommitish(r, rev)
	if err != nil {
		c.badRevision(rev)
	}
	return h
}

// badRevision dies with git's message for a name that is no revision.
func (c *cmd) badRevision(rev string) {
	c.die("ambiguous argument '%s': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'", rev)
}

func cmdRevParse(c *cmd, args []string) int {
	r := (*Repo)(nil)
	short, verify, quiet, abbrevRef := 0, false, false, false
	status := 0
	for _, a := range args {
		switch {
		case a == "--show-toplevel":
			r = c.needWork()
			fmt.Fprintln(c.out, r.Work)
		case a == "--git-dir":
			r = c.needRepo()
			if r.Work != "" && c.env.Dir == r.Work && r.GitDir == r.Work+"/.git" {
				fmt.Fprintln(c.out, ".git")
			} else {
				fmt.Fprintln(c.out, r.GitDir)
			}
		case a == "--absolute-git-dir":
			fmt.Fprintln(c.out, c.needRepo().GitDir)
		case a == "--is-inside-work-tree":
			gd, work, err := findRepo(c.env, c.env.Dir)
			_ = gd
			if err != nil {
				c.dieErr(err)
			}
			fmt.Fprintln(c.out, work != "")
		case a == "--is-bare-repository":
			r = c.needRepo()
			fmt.Fprintln(c.out, r.Work == "")
		case a == "--show-prefix":
			fmt.Fprintln(c.out, c.prefix())
		case a == "--show-cdup":
			fmt.Fprintln(c.out, strings.Repeat("../", strings.Count(c.prefix(), "/")))
		case a == "--short":
			short = 7
		case strings.HasPrefix(a, "--short="):
			short, _ = strconv.Atoi(strings.TrimPrefix(a, "--short="))
			short = max(4, min(40, short))
		case a == "--verify":
			verify = true
		case a == "-q" || a == "--quiet":
			quiet = true
		case a == "--abbrev-ref":
			abbrevRef = true
		case a == "--symbolic-full-name":
		case a == "--":
		case strings.HasPrefix(a, "-"):
			fmt.Fprintln(c.out, a)
		default:
			r = c.needRepo()
			if abbrevRef {
				if a == "HEAD" || a == "@" {
					t, _, err := r.head()
					if err != nil {
						c.dieErr(err)
					}
					if t == "" {
						fmt.Fprintln(c.out, "HEAD")
					} else {
						fmt.Fprintln(c.out, shortBranch(t))
					}
					continue
				}
				if _, full, ok := r.lookupRef(a); ok {
					n := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(full, "refs/heads/"), "refs/tags/"), "refs/remotes/")
					fmt.Fprintln(c.out, n)
					continue
				}
			}
			h, err := c.resolve(r, a)
			if err != nil {
				if verify {
					if quiet {
						return 1
					}
					c.die("Needed a single revision")
				}
				if errors.Is(err, errAmbiguous) {
					c.die("ambiguous argument '%s': unknown revision or path not in the working tree.", a)
				}
				fmt.Fprintln(c.out, a)
				c.badRevision(a)
			}
			if short > 0 {
				fmt.Fprintln(c.out, h.String()[:short])
			} else {
				fmt.Fprintln(c.out, h)
			}
		}
	}
	return status
}
