package gitws

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// deskScheme is the URL scheme of the per-operation transports: go-git
// picks a transport by scheme from one global table, so every remote
// operation registers its own transport under a fresh token and the single
// "deskws" entry dispatches to it. No operation ever uses go-git's default
// transports (which would run host binaries or reach any host).
const deskScheme = "deskws"

var (
	opsMu       sync.Mutex
	opsByToken  = map[string]*remoteOp{}
	installOnce sync.Once
)

// remoteOp is the transport of one operation: the real endpoint and the
// transport that reaches it.
type remoteOp struct {
	ep   *transport.Endpoint
	t    transport.Transport
	auth transport.AuthMethod // from Env.Credentials (nil: none)
}

type dispatcher struct{}

func (dispatcher) lookup(ep *transport.Endpoint) (*remoteOp, error) {
	opsMu.Lock()
	defer opsMu.Unlock()
	op := opsByToken[ep.Host]
	if op == nil {
		return nil, errors.New("gitws: unknown transport token")
	}
	return op, nil
}

func (d dispatcher) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	op, err := d.lookup(ep)
	if err != nil {
		return nil, err
	}
	return op.t.NewUploadPackSession(op.ep, op.auth)
}

func (d dispatcher) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	op, err := d.lookup(ep)
	if err != nil {
		return nil, err
	}
	return op.t.NewReceivePackSession(op.ep, op.auth)
}

// storeLoader serves repositories of the store to go-git's in-process
// server (local paths and file:// URLs).
type storeLoader struct{ env *Env }

func (l storeLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	p := l.env.abs(ep.Path)
	if !isGitDir(l.env.Ctx, l.env.FS, p) {
		if isGitDir(l.env.Ctx, l.env.FS, p+"/.git") {
			p += "/.git"
		} else {
			return nil, transport.ErrRepositoryNotFound
		}
	}
	return filesystem.NewStorage(NewBilly(l.env.Ctx, l.env.FS, p), cache.NewObjectLRUDefault()), nil
}

// errNoNetwork is the refusal of an http(s) remote without Env.HTTPClient.
var errNoNetwork = errors.New("network access is not configured for this workspace (no egress policy allows http/https remotes)")

// openTransport registers the transport for rawURL and returns the URL
// go-git is given and a function that unregisters it.
func (c *cmd) openTransport(rawURL string) (string, func(), error) {
	installOnce.Do(func() { client.InstallProtocol(deskScheme, dispatcher{}) })
	var op remoteOp
	switch {
	case strings.HasPrefix(rawURL, "http://") || strings.HasPrefix(rawURL, "https://"):
		if c.env.HTTPClient == nil {
			return "", nil, errNoNetwork
		}
		if u, err := url.Parse(rawURL); err == nil && u.User != nil {
			return "", nil, fmt.Errorf("credentials in a remote URL are not accepted ('%s'): they come from the workspace's secrets", redactURL(u))
		}
		ep, err := transport.NewEndpoint(rawURL)
		if err != nil {
			return "", nil, err
		}
		op = remoteOp{ep: ep, t: githttp.NewClient(c.env.HTTPClient)}
		if c.env.Credentials != nil {
			cred, ok, err := c.env.Credentials(c.env.Ctx, rawURL)
			if err != nil {
				return "", nil, fmt.Errorf("get credentials for '%s': %w", rawURL, err)
			}
			if ok {
				op.auth = &githttp.BasicAuth{Username: cred.Username, Password: cred.Password}
			}
		}
		c.authSent = op.auth != nil
	case strings.HasPrefix(rawURL, "file://") || strings.HasPrefix(rawURL, "/") || !strings.Contains(rawURL, "://") && !strings.Contains(rawURL, ":"):
		p := strings.TrimPrefix(rawURL, "file://")
		op = remoteOp{ep: &transport.Endpoint{Protocol: "file", Path: c.env.abs(p)}, t: server.NewServer(storeLoader{c.env})}
	default:
		u, _ := url.Parse(rawURL)
		scheme := "this"
		if u != nil && u.Scheme != "" {
			scheme = u.Scheme
		}
		return "", nil, fmt.Errorf("the shell backend reaches remotes over http(s) and in the workspace only: %s URLs are not supported", scheme)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	opsMu.Lock()
	opsByToken[tok] = &op
	opsMu.Unlock()
	return deskScheme + "://" + tok + "/repo", func() {
		opsMu.Lock()
		delete(opsByToken, tok)
		opsMu.Unlock()
	}, nil
}

// redactURL is u with its password replaced, for error messages.
func redactURL(u *url.URL) string {
	v := *u
	if _, ok := v.User.Password(); ok {
		v.User = url.UserPassword(v.User.Username(), "REDACTED")
	}
	return v.String()
}

// gitMessage is an error whose text is git's own message (capitalized as
// git prints it).
type gitMessage string

func (m gitMessage) Error() string { return string(m) }

// netErr turns go-git's authentication errors into git's message naming
// the remote; other errors are returned as they are.
func (c *cmd) netErr(rawURL string, err error) error {
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		if !c.authSent {
			return gitMessage(fmt.Sprintf("Authentication failed for '%s': the remote asks for credentials and the workspace's secrets hold none for it", rawURL))
		}
		return gitMessage(fmt.Sprintf("Authentication failed for '%s'", rawURL))
	}
	return err
}

// remoteURL returns the URL of a remote name (or the argument itself when
// it is a URL or a path).
func (c *cmd) remoteURL(r *Repo, name string) (string, bool) {
	if u, ok := r.cfg.get("remote." + name + ".url"); ok {
		return u, true
	}
	if strings.Contains(name, "/") || strings.Contains(name, "://") {
		return name, false
	}
	return "", false
}

// fetchURL is a remote's URL as git's fetch prints it after "From" and
// in FETCH_HEAD: without credentials, trailing slashes and a final ".git".
func fetchURL(u string) string {
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		host, p, _ := strings.Cut(rest, "/")
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		u = scheme + "://" + host
		if p != "" || strings.Contains(rest, "/") {
			u += "/" + p
		}
	}
	u = strings.TrimRight(u, "/")
	if len(u) > 5 {
		u = strings.TrimSuffix(u, ".git")
	}
	return u
}

// displayURL is a URL as git's push prints it after "To": as given.
func displayURL(u string) string { return u }

// fetchReq is one fetch from a remote.
type fetchReq struct {
	name, url string // the remote and its URL as configured (or given)
	specs     []gitconfig.RefSpec
	depth     int
	quiet     bool
	// action starts the reflog messages of the remote-tracking refs the
	// fetch moves ("fetch -q", "pull"; "" writes none: a clone's).
	action string
	// named are the remote branches named on the command line (git fetch
	// origin main): each gets git's "* branch ... -> FETCH_HEAD" line and
	// is for merge in FETCH_HEAD.
	named []string
	// merge is the remote branch (refs/heads/x) that is for merge in
	// FETCH_HEAD when none is named: the current branch's upstream on this
	// remote.
	merge string
}

// summaryWidth is git's TRANSPORT_SUMMARY_WIDTH for 7-character ids: the
// column of "[new branch]", "a..b" and "a...b".
const summaryWidth = 2*7 + 3

// fetchRemote fetches refspecs from a remote, prints git's "From" table,
// writes the reflogs of the remote-tracking refs it moved and FETCH_HEAD.
func (c *cmd) fetchRemote(r *Repo, q fetchReq) error {
	u, done, err := c.openTransport(q.url)
	if err != nil {
		return err
	}
	defer done()
	before := map[string]plumbing.Hash{}
	refs, _ := r.allRefs()
	for _, ref := range refs {
		before[ref.Name().String()] = ref.Hash()
	}
	rem := git.NewRemote(r.st, &gitconfig.RemoteConfig{Name: q.name, URLs: []string{u}, Fetch: q.specs})
	err = rem.FetchContext(c.env.Ctx, &git.FetchOptions{RemoteName: q.name, RefSpecs: q.specs, Depth: q.depth, Tags: git.AllTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil
		}
		return c.netErr(q.url, err)
	}
	refs, _ = r.allRefs()
	type line struct {
		flag, summary, src, dst, note string
	}
	var lines, others []line // for merge (and named) first, then the others
	for _, b := range q.named {
		lines = append(lines, line{"*", "branch", b, "FETCH_HEAD", ""})
	}
	var forMerge, notForMerge, tagLines []string
	from := fetchURL(q.url)
	for _, ref := range refs {
		n := ref.Name().String()
		isTag := strings.HasPrefix(n, "refs/tags/")
		if !isTag && !matchesDst(q.specs, n) {
			continue
		}
		old, had := before[n]
		short := strings.TrimPrefix(strings.TrimPrefix(n, "refs/remotes/"), "refs/tags/")
		src := srcOf(q.specs, n)
		merging := !isTag && src != "" && (slices.Contains(q.named, src) || (len(q.named) == 0 && "refs/heads/"+src == q.merge))
		// git lists (and stores in FETCH_HEAD) the refs for merge first,
		// then the others in the remote's order.
		out := &others
		if merging {
			out = &lines
		}
		switch {
		case !had && isTag:
			*out = append(*out, line{"*", "[new tag]", short, short, ""})
		case !had:
			*out = append(*out, line{"*", "[new branch]", src, short, ""})
			c.fetchReflog(r, q, n, plumbing.ZeroHash, ref.Hash(), "storing head")
		case old != ref.Hash() && !isTag:
			if r.isAncestor(old, ref.Hash()) {
				*out = append(*out, line{" ", old.String()[:7] + ".." + ref.Hash().String()[:7], src, short, ""})
				c.fetchReflog(r, q, n, old, ref.Hash(), "fast-forward")
			} else {
				*out = append(*out, line{"+", old.String()[:7] + "..." + ref.Hash().String()[:7], src, short, "  (forced update)"})
				c.fetchReflog(r, q, n, old, ref.Hash(), "forced-update")
			}
		case old != ref.Hash():
			*out = append(*out, line{"t", "[tag update]", short, short, ""})
		}
		// FETCH_HEAD: the branches the refspecs fetched (for merge: the
		// ones named, else the current branch's upstream), then the
		// tags this fetch brought.
		switch {
		case isTag && (!had || old != ref.Hash()):
			tagLines = append(tagLines, ref.Hash().String()+"\tnot-for-merge\ttag '"+short+"' of "+from)
		case isTag:
		case src == "":
		case merging:
			forMerge = append(forMerge, ref.Hash().String()+"\t\tbranch '"+src+"' of "+from)
		default:
			notForMerge = append(notForMerge, ref.Hash().String()+"\tnot-for-merge\tbranch '"+src+"' of "+from)
		}
	}
	if q.action != "" {
		fh := strings.Join(slices.Concat(forMerge, notForMerge, tagLines), "\n")
		if fh != "" {
			fh += "\n"
		}
		if err := c.env.FS.WriteFile(c.env.Ctx, r.GitDir+"/FETCH_HEAD", []byte(fh), 0o644); err != nil {
			return err
		}
	}
	lines = append(lines, others...)
	if len(lines) > 0 && !q.quiet {
		width := 10
		for _, l := range lines {
			width = max(width, len(l.src))
		}
		fmt.Fprintf(c.err, "From %s\n", from)
		for _, l := range lines {
			fmt.Fprintf(c.err, " %s %-*s %-*s -> %s%s\n", l.flag, summaryWidth, l.summary, width, l.src, l.dst, l.note)
		}
	}
	return nil
}

// fetchReflog appends a fetch's entry to a remote-tracking ref's reflog.
func (c *cmd) fetchReflog(r *Repo, q fetchReq, name string, old, nw plumbing.Hash, what string) {
	if q.action != "" {
		r.appendReflog(name, old, nw, q.action+": "+what)
	}
}

// matchesDst reports whether local ref n is the destination of one of specs.
func matchesDst(specs []gitconfig.RefSpec, n string) bool {
	return srcOf(specs, n) != ""
}

// srcOf is the remote branch (short) that specs fetch into local ref n ("" none).
func srcOf(specs []gitconfig.RefSpec, n string) string {
	for _, s := range specs {
		src, dst, ok := strings.Cut(strings.TrimPrefix(string(s), "+"), ":")
		if !ok || !strings.HasPrefix(src, "refs/heads/") {
			continue
		}
		if p, found := strings.CutSuffix(dst, "*"); found {
			if rest, ok := strings.CutPrefix(n, p); ok && rest != "" && rest != "HEAD" {
				return strings.TrimSuffix(strings.TrimPrefix(src, "refs/heads/"), "*") + rest
			}
			continue
		}
		if dst == n {
			return strings.TrimPrefix(src, "refs/heads/")
		}
	}
	return ""
}

// depthOption is --depth's value (0 without one); git refuses anything but
// a positive number.
func (c *cmd) depthOption(o *opts) int {
	if !o.has("depth") {
		return 0
	}
	v := o.val("depth")
	d, err := strconv.Atoi(v)
	if err != nil || d <= 0 {
		c.die("depth %s is not a positive number", v)
	}
	return d
}

func defaultFetchSpec(name string) gitconfig.RefSpec {
	return gitconfig.RefSpec("+refs/heads/*:refs/remotes/" + name + "/*")
}

func cmdClone(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"branch=", "depth=", "single-branch", "no-single-branch", "quiet", "bare", "origin=", "no-checkout", "recurse-submodules", "no-tags"},
		short: map[byte]string{'b': "branch", 'q': "quiet", 'o': "origin", 'n': "no-checkout"},
	})
	if len(o.args) == 0 {
		c.die("You must specify a repository to clone.")
	}
	src := o.args[0]
	dirArg := ""
	if len(o.args) > 1 {
		dirArg = o.args[1]
	} else {
		base := strings.TrimSuffix(strings.TrimSuffix(src, "/"), "/.git")
		base = path.Base(base)
		if !o.has("bare") {
			base = strings.TrimSuffix(base, ".git")
		} else if !strings.HasSuffix(base, ".git") {
			base += ".git"
		}
		dirArg = base
	}
	dir := c.env.abs(dirArg)
	if ents, err := c.env.FS.ReadDir(c.env.Ctx, dir); err == nil && len(ents) > 0 {
		c.die("destination path '%s' already exists and is not an empty directory.", dirArg)
	}
	remoteName := "origin"
	if o.has("origin") {
		remoteName = o.val("origin")
	}
	depth := c.depthOption(o)
	storedURL := src
	local := !strings.Contains(src, "://")
	if local {
		if _, err := c.env.FS.Stat(c.env.Ctx, c.env.abs(src)); err != nil {
			c.die("repository '%s' does not exist", src)
		}
		// git keeps the path as given, made absolute but not cleaned
		// ("/work/../up.git").
		if !strings.HasPrefix(src, "/") {
			storedURL = strings.TrimSuffix(c.env.Dir, "/") + "/" + src
		}
	}
	if !o.has("quiet") {
		if o.has("bare") {
			fmt.Fprintf(c.err, "Cloning into bare repository '%s'...\n", dirArg)
		} else {
			fmt.Fprintf(c.err, "Cloning into '%s'...\n", dirArg)
		}
	}
	if local && depth > 0 {
		fmt.Fprintln(c.err, "warning: --depth is ignored in local clones; use file:// instead.")
		depth = 0
	}
	gitDir := dir + "/.git"
	work := dir
	if o.has("bare") {
		gitDir, work = dir, ""
	}
	if err := c.env.FS.MkdirAll(c.env.Ctx, dir, 0o755); err != nil {
		c.dieErr(err)
	}
	// learn the remote's HEAD and refs first
	u, done, err := c.openTransport(src)
	if err != nil {
		c.dieErr(err)
	}
	lister := git.NewRemote(nil, &gitconfig.RemoteConfig{Name: remoteName, URLs: []string{u}})
	remoteRefs, err := lister.ListContext(c.env.Ctx, &git.ListOptions{})
	done()
	empty := false
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		empty, err = true, nil
	}
	if err != nil {
		_ = c.env.FS.RemoveAll(c.env.Ctx, dir)
		if errors.Is(err, transport.ErrRepositoryNotFound) {
			c.die("repository '%s' not found", src)
		}
		if ne := c.netErr(src, err); ne != err {
			c.dieErr(ne)
		}
		c.dieErr(fmt.Errorf("clone %s: %w", src, err))
	}
	headTarget := ""
	for _, ref := range remoteRefs {
		if ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference {
			headTarget = ref.Target().String()
		}
	}
	if headTarget == "" {
		// no symref advertised: the branch HEAD's hash points at
		var hh plumbing.Hash
		for _, ref := range remoteRefs {
			if ref.Name() == plumbing.HEAD {
				hh = ref.Hash()
			}
		}
		for _, ref := range remoteRefs {
			if ref.Name().IsBranch() && ref.Hash() == hh && (headTarget == "" || ref.Name() == "refs/heads/master" || ref.Name() == "refs/heads/main") {
				headTarget = ref.Name().String()
			}
		}
	}
	branch := headTarget
	tag := "" // --branch names a tag: HEAD is detached at its commit
	if o.has("branch") {
		branch = "refs/heads/" + o.val("branch")
		found := false
		for _, ref := range remoteRefs {
			switch ref.Name().String() {
			case branch:
				found = true
			case "refs/tags/" + o.val("branch"):
				tag = ref.Name().String()
			}
		}
		switch {
		case found:
			tag = ""
		case tag != "":
			branch = headTarget
		default:
			_ = c.env.FS.RemoveAll(c.env.Ctx, dir)
			c.die("Remote branch %s not found in upstream %s", o.val("branch"), remoteName)
		}
	}
	if branch == "" {
		branch = "refs/heads/" + defaultBranch(c.env)
	}
	if _, err := initRepo(c.env, gitDir, shortBranch(branch), o.has("bare")); err != nil {
		c.dieErr(err)
	}
	f, err := readConfigFile(c.env, gitDir+"/config")
	if err != nil {
		c.dieErr(err)
	}
	spec := defaultFetchSpec(remoteName)
	single := o.has("single-branch") || (depth > 0 && !o.has("no-single-branch"))
	switch {
	case single && tag != "":
		spec = gitconfig.RefSpec("+" + tag + ":" + tag)
	case single:
		spec = gitconfig.RefSpec("+" + branch + ":refs/remotes/" + remoteName + "/" + shortBranch(branch))
	}
	if o.has("bare") {
		spec = "+refs/heads/*:refs/heads/*"
	} else {
		f.SetOption("remote", remoteName, "url", storedURL)
		f.SetOption("remote", remoteName, "fetch", string(spec))
	}
	if err := writeConfigFile(c.env, gitDir+"/config", f); err != nil {
		c.dieErr(err)
	}
	r, err := openRepo(c.env, gitDir, work)
	if err != nil {
		c.dieErr(err)
	}
	if !empty {
		if err := c.fetchRemote(r, fetchReq{name: remoteName, url: src, specs: []gitconfig.RefSpec{spec}, depth: depth, quiet: true}); err != nil {
			_ = c.env.FS.RemoveAll(c.env.Ctx, dir)
			c.dieErr(fmt.Errorf("clone %s: %w", src, err))
		}
	}
	if empty {
		fmt.Fprintln(c.err, "warning: You appear to have cloned an empty repository.")
		return 0
	}
	if local && !o.has("quiet") {
		fmt.Fprintln(c.err, "done.") // git's, once a local clone's objects are in
	}
	if o.has("bare") {
		return 0
	}
	if tag != "" {
		return c.cloneTag(r, remoteName, branch, tag, "clone: from "+storedURL, single, o.has("no-checkout"))
	}
	rb, err := r.st.Reference(plumbing.ReferenceName("refs/remotes/" + remoteName + "/" + shortBranch(branch)))
	if err != nil {
		// The remote's HEAD names a branch it does not have (a bare
		// repository whose default branch was never pushed): git leaves
		// HEAD unborn and checks nothing out.
		fmt.Fprintln(c.err, "warning: remote HEAD refers to nonexistent ref, unable to checkout")
		return 0
	}
	if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.ReferenceName("refs/remotes/"+remoteName+"/HEAD"), plumbing.ReferenceName("refs/remotes/"+remoteName+"/"+shortBranch(branch)))); err != nil {
		c.dieErr(err)
	}
	if err := r.setRef(branch, rb.Hash(), "clone: from "+storedURL); err != nil {
		c.dieErr(err)
	}
	r.appendReflog("refs/remotes/"+remoteName+"/HEAD", plumbing.ZeroHash, rb.Hash(), "clone: from "+storedURL)
	r.appendReflog("HEAD", plumbing.ZeroHash, rb.Hash(), "clone: from "+storedURL)
	f.SetOption("branch", shortBranch(branch), "remote", remoteName)
	f.SetOption("branch", shortBranch(branch), "merge", branch)
	if err := writeConfigFile(c.env, gitDir+"/config", f); err != nil {
		c.dieErr(err)
	}
	if o.has("no-checkout") {
		return 0
	}
	toTree, err := r.treeOf(rb.Hash())
	if err != nil {
		c.dieErr(err)
	}
	if _, _, err := r.switchTree(map[string]treeEntry{}, toTree, true); err != nil {
		c.dieErr(err)
	}
	return 0
}

// cloneTag ends a clone whose --branch named a tag, as git does: HEAD
// detached at the tag's commit (with git's advice, which -q does not
// silence), no branch and no upstream; the remote's HEAD is recorded unless
// only the tag was fetched.
func (c *cmd) cloneTag(r *Repo, remoteName, headBranch, tag, reflog string, single, noCheckout bool) int {
	tr, err := r.st.Reference(plumbing.ReferenceName(tag))
	if err != nil {
		c.dieErr(fmt.Errorf("clone: tag %s not fetched: %w", shortBranch(tag), err))
	}
	h, err := r.peel(tr.Hash(), plumbing.CommitObject)
	if err != nil {
		c.die("tag %s does not name a commit", strings.TrimPrefix(tag, "refs/tags/"))
	}
	if !single && headBranch != "" {
		remoteHead := plumbing.ReferenceName("refs/remotes/" + remoteName + "/" + shortBranch(headBranch))
		if _, err := r.st.Reference(remoteHead); err == nil {
			if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.ReferenceName("refs/remotes/"+remoteName+"/HEAD"), remoteHead)); err != nil {
				c.dieErr(err)
			}
		}
	}
	if err := r.st.SetReference(plumbing.NewHashReference(plumbing.HEAD, h)); err != nil {
		c.dieErr(err)
	}
	r.appendReflog("HEAD", plumbing.ZeroHash, h, reflog)
	if noCheckout {
		return 0
	}
	fmt.Fprintf(c.err, detachedAdvice, h.String())
	toTree, err := r.treeOf(h)
	if err != nil {
		c.dieErr(err)
	}
	if _, _, err := r.switchTree(map[string]treeEntry{}, toTree, true); err != nil {
		c.dieErr(err)
	}
	return 0
}

func cmdFetch(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"all", "prune", "quiet", "tags", "depth=", "verbose", "force"},
		short: map[byte]string{'p': "prune", 'q': "quiet", 't': "tags", 'v': "verbose", 'f': "force"},
	})
	r := c.needRepo()
	name := "origin"
	if len(o.args) > 0 {
		name = o.args[0]
	}
	u, known := c.remoteURL(r, name)
	if u == "" {
		fmt.Fprintf(c.err, "fatal: '%s' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n", name)
		return ExitFatal
	}
	var specs []gitconfig.RefSpec
	var named []string // branches named without a destination: FETCH_HEAD's
	if len(o.args) > 1 {
		for _, s := range o.args[1:] {
			if !strings.Contains(s, ":") {
				b := strings.TrimPrefix(s, "refs/heads/")
				named = append(named, b)
				s = "refs/heads/" + b + ":refs/remotes/" + name + "/" + b
			}
			specs = append(specs, gitconfig.RefSpec(s))
		}
	} else if known {
		for _, v := range lookupAll(r, "remote."+name+".fetch") {
			specs = append(specs, gitconfig.RefSpec(v))
		}
	}
	if len(specs) == 0 {
		specs = []gitconfig.RefSpec{defaultFetchSpec(name)}
	}
	depth := c.depthOption(o)
	q := fetchReq{name: name, url: u, specs: specs, depth: depth, quiet: o.has("quiet"),
		action: strings.Join(append([]string{"fetch"}, c.args...), " "), named: named}
	if len(named) == 0 {
		if target, _, err := r.head(); err == nil && target != "" && remoteName(r, nil, target) == name {
			q.merge, _ = r.cfg.get("branch." + shortBranch(target) + ".merge")
		}
	}
	if err := c.fetchRemote(r, q); err != nil {
		c.dieErr(err)
	}
	return 0
}

func lookupAll(r *Repo, key string) []string {
	var out []string
	for _, f := range r.cfg.files {
		out = append(out, lookupIn(f, key)...)
	}
	return out
}

func cmdPull(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"ff-only", "no-ff", "ff", "rebase?", "no-rebase", "quiet", "verbose", "no-edit"},
		short: map[byte]string{'q': "quiet", 'v': "verbose", 'r': "rebase"},
	})
	r := c.needWork()
	if o.has("rebase") {
		c.die("pull --rebase is not supported by the shell backend's git (run it in the sandbox)")
	}
	target, _, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	name := remoteName(r, o.args, target)
	u, _ := c.remoteURL(r, name)
	if u == "" {
		c.die("'%s' does not appear to be a git repository", name)
	}
	specs := []gitconfig.RefSpec{defaultFetchSpec(name)}
	q := fetchReq{name: name, url: u, specs: specs, quiet: o.has("quiet"), action: strings.Join(append([]string{"pull"}, c.args...), " ")}
	if len(o.args) > 1 {
		q.named = o.args[1:2]
	} else if up, _ := r.cfg.get("branch." + shortBranch(target) + ".merge"); up != "" {
		q.merge = up
	}
	if err := c.fetchRemote(r, q); err != nil {
		c.dieErr(err)
	}
	var merge string
	if len(o.args) > 1 {
		merge = "refs/remotes/" + name + "/" + o.args[1]
	} else {
		up := c.upstream(r, target)
		if up == "" {
			fmt.Fprint(c.err, "There is no tracking information for the current branch.\nPlease specify which branch you want to merge with.\n")
			return 1
		}
		merge = up
	}
	mopts := mergeOpts{quiet: o.has("quiet"), ffOnly: o.has("ff-only"), noFF: o.has("no-ff"), name: merge, action: strings.Join(append([]string{"pull"}, c.args...), " ")}
	if v, ok := r.cfg.get("pull.ff"); ok && v == "only" && !o.has("ff") && !o.has("no-ff") {
		mopts.ffOnly = true
	}
	return c.merge(r, merge, mopts)
}

// remoteName is the remote a pull or push names: its first argument, else
// the current branch's branch.NAME.remote, else origin.
func remoteName(r *Repo, args []string, target string) string {
	if len(args) > 0 {
		return args[0]
	}
	if v, ok := r.cfg.get("branch." + shortBranch(target) + ".remote"); ok {
		return v
	}
	return "origin"
}

func cmdPush(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"force", "delete", "tags", "set-upstream", "quiet", "all", "dry-run", "porcelain", "force-with-lease?"},
		short: map[byte]string{'f': "force", 'd': "delete", 'u': "set-upstream", 'q': "quiet", 'n': "dry-run"},
	})
	r := c.needRepo()
	target, _, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	name := remoteName(r, o.args, target)
	u, known := c.remoteURL(r, name)
	if u == "" {
		fmt.Fprintf(c.err, "fatal: '%s' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n", name)
		return ExitFatal
	}
	var specs []gitconfig.RefSpec
	var shown []string
	for _, s := range o.args[min(1, len(o.args)):] {
		force := strings.HasPrefix(s, "+")
		s = strings.TrimPrefix(s, "+")
		src, dst, hasDst := strings.Cut(s, ":")
		if !hasDst {
			dst = src
		}
		if o.has("delete") {
			src, dst = "", s
		}
		full := func(n string) string {
			if n == "" || strings.HasPrefix(n, "refs/") {
				return n
			}
			if _, err := r.st.Reference(plumbing.ReferenceName("refs/tags/" + n)); err == nil {
				return "refs/tags/" + n
			}
			return "refs/heads/" + n
		}
		if src == "HEAD" {
			src = target
		}
		if src != "" {
			if _, _, ok := r.lookupRef(src); !ok {
				c.errorf("src refspec %s does not match any", src)
				c.errorf("failed to push some refs to '%s'", u)
				return 1
			}
			if _, full2, ok := r.lookupRef(src); ok {
				src = full2
			}
		}
		if dst == "HEAD" || dst == "" && src != "" {
			dst = target
		}
		spec := full(src) + ":" + full(dst)
		if force || o.has("force") {
			spec = "+" + spec
		}
		specs = append(specs, gitconfig.RefSpec(spec))
		shown = append(shown, full(dst))
	}
	if o.has("tags") {
		specs = append(specs, "refs/tags/*:refs/tags/*")
	}
	if len(specs) == 0 {
		if target == "" {
			c.die("You are not currently on a branch.")
		}
		dst := target
		if up := c.upstream(r, target); up != "" && known {
			if m, ok := r.cfg.get("branch." + shortBranch(target) + ".merge"); ok {
				dst = m
			}
		} else if !o.has("set-upstream") && known {
			fmt.Fprintf(c.err, "fatal: The current branch %s has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream %s %s\n\n", shortBranch(target), name, shortBranch(target))
			return ExitFatal
		}
		spec := target + ":" + dst
		if o.has("force") {
			spec = "+" + spec
		}
		specs = []gitconfig.RefSpec{gitconfig.RefSpec(spec)}
	}
	// the remote's refs before, for the report
	tu, done, err := c.openTransport(u)
	if err != nil {
		c.dieErr(err)
	}
	defer done()
	rem := git.NewRemote(r.st, &gitconfig.RemoteConfig{Name: name, URLs: []string{tu}})
	before := map[string]plumbing.Hash{}
	refs, err := rem.ListContext(c.env.Ctx, &git.ListOptions{})
	if ne := c.netErr(u, err); err != nil && ne != err {
		c.dieErr(ne)
	}
	for _, ref := range refs {
		before[ref.Name().String()] = ref.Hash()
	}
	if o.has("dry-run") {
		return 0
	}
	err = rem.PushContext(c.env.Ctx, &git.PushOptions{RemoteName: name, RefSpecs: specs, Force: o.has("force")})
	if ne := c.netErr(u, err); err != nil && ne != err {
		c.dieErr(ne)
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		fmt.Fprintf(c.err, "To %s\n", displayURL(u))
		msg := err.Error()
		for _, s := range specs {
			src, dst, _ := strings.Cut(strings.TrimPrefix(string(s), "+"), ":")
			if strings.Contains(msg, "non-fast-forward") {
				reason := "non-fast-forward"
				if _, err := r.st.EncodedObject(plumbing.CommitObject, before[dst]); err != nil {
					reason = "fetch first"
				}
				fmt.Fprintf(c.err, " ! [rejected]        %s -> %s (%s)\n", shortRef(src), shortRef(dst), reason)
			} else {
				fmt.Fprintf(c.err, " ! [remote rejected] %s -> %s (%s)\n", shortRef(src), shortRef(dst), msg)
			}
		}
		c.errorf("failed to push some refs to '%s'", displayURL(u))
		if strings.Contains(msg, "non-fast-forward") {
			fmt.Fprint(c.err, "hint: Updates were rejected because the tip of your current branch is behind\nhint: its remote counterpart. Integrate the remote changes (e.g.\nhint: 'git pull ...') before pushing again.\nhint: See the 'Note about fast-forwards' in 'git push --help' for details.\n")
		}
		return 1
	}
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		if !o.has("quiet") {
			fmt.Fprintln(c.err, "Everything up-to-date")
		}
		if o.has("set-upstream") && target != "" && known {
			if h, _, ok := r.lookupRef(target); ok {
				_ = r.setRef("refs/remotes/"+name+"/"+shortBranch(target), h, "update by push")
			}
			c.setUpstreamQuiet(r, shortBranch(target), "refs/remotes/"+name+"/"+shortBranch(target), o.has("quiet"))
		}
		return 0
	}
	w := c.err // the refs pushed: not listed with -q
	if o.has("quiet") {
		w = io.Discard
	}
	fmt.Fprintf(w, "To %s\n", displayURL(u))
	for _, s := range specs {
		src, dst, _ := strings.Cut(strings.TrimPrefix(string(s), "+"), ":")
		if strings.Contains(src, "*") {
			continue
		}
		old, had := before[dst]
		switch {
		case src == "":
			fmt.Fprintf(w, " - %-*s %s\n", summaryWidth, "[deleted]", shortRef(dst))
		case !had:
			kind := "[new branch]"
			if strings.HasPrefix(dst, "refs/tags/") {
				kind = "[new tag]"
			}
			fmt.Fprintf(w, " * %-*s %s -> %s\n", summaryWidth, kind, shortRef(src), shortRef(dst))
		default:
			nh, _, _ := r.lookupRef(src)
			if nh == old {
				continue
			}
			if r.isAncestor(old, nh) {
				fmt.Fprintf(w, "   %-*s %s -> %s\n", summaryWidth, old.String()[:7]+".."+nh.String()[:7], shortRef(src), shortRef(dst))
			} else {
				fmt.Fprintf(w, " + %-*s %s -> %s (forced update)\n", summaryWidth, old.String()[:7]+"..."+nh.String()[:7], shortRef(src), shortRef(dst))
			}
		}
		// the remote-tracking ref follows a pushed branch
		if known && strings.HasPrefix(dst, "refs/heads/") {
			rt := "refs/remotes/" + name + "/" + shortBranch(dst)
			if src == "" {
				_ = r.st.RemoveReference(plumbing.ReferenceName(rt))
			} else if nh, _, ok := r.lookupRef(src); ok {
				_ = r.setRef(rt, nh, "update by push")
			}
		}
	}
	if o.has("set-upstream") && target != "" && known {
		c.setUpstreamQuiet(r, shortBranch(target), "refs/remotes/"+name+"/"+shortBranch(target), o.has("quiet"))
	}
	_ = shown
	return 0
}

func shortRef(n string) string {
	return strings.TrimPrefix(strings.TrimPrefix(n, "refs/heads/"), "refs/tags/")
}

func cmdRemote(c *cmd, args []string) int {
	o := c.parse(args, spec{long: []string{"verbose"}, short: map[byte]string{'v': "verbose"}})
	r := c.needRepo()
	f, err := readConfigFile(c.env, r.GitDir+"/config")
	if err != nil {
		c.dieErr(err)
	}
	names := func() []string {
		var out []string
		for _, s := range f.Sections {
			if s.IsName("remote") {
				for _, ss := range s.Subsections {
					out = append(out, ss.Name)
				}
			}
		}
		sort.Strings(out)
		return out
	}
	if len(o.args) == 0 {
		for _, n := range names() {
			if o.has("verbose") {
				u := f.Section("remote").Subsection(n).Option("url")
				fmt.Fprintf(c.out, "%s\t%s (fetch)\n%s\t%s (push)\n", n, u, n, u)
				continue
			}
			fmt.Fprintln(c.out, n)
		}
		return 0
	}
	switch o.args[0] {
	case "add":
		if len(o.args) != 3 {
			fmt.Fprintln(c.err, "usage: git remote add [<options>] <name> <url>")
			return ExitUsage
		}
		n := o.args[1]
		if f.Section("remote").HasSubsection(n) {
			c.errorf("remote %s already exists.", n)
			return 3
		}
		f.SetOption("remote", n, "url", o.args[2])
		f.SetOption("remote", n, "fetch", string(defaultFetchSpec(n)))
	case "remove", "rm":
		if len(o.args) != 2 {
			return ExitUsage
		}
		n := o.args[1]
		if !f.Section("remote").HasSubsection(n) {
			c.errorf("No such remote: '%s'", n)
			return 2
		}
		f.RemoveSubsection("remote", n)
		refs, _ := r.allRefs()
		for _, ref := range refs {
			if strings.HasPrefix(ref.Name().String(), "refs/remotes/"+n+"/") {
				_ = r.st.RemoveReference(ref.Name())
			}
		}
	case "get-url":
		if len(o.args) != 2 || !f.Section("remote").HasSubsection(o.args[1]) {
			c.errorf("No such remote '%s'", strings.Join(o.args[1:], " "))
			return 2
		}
		fmt.Fprintln(c.out, f.Section("remote").Subsection(o.args[1]).Option("url"))
		return 0
	case "set-url":
		if len(o.args) != 3 || !f.Section("remote").HasSubsection(o.args[1]) {
			c.errorf("No such remote '%s'", strings.Join(o.args[1:2], " "))
			return 2
		}
		f.SetOption("remote", o.args[1], "url", o.args[2])
	default:
		c.errorf("unknown subcommand: `%s'", o.args[0])
		return ExitUsage
	}
	if err := writeConfigFile(c.env, r.GitDir+"/config", f); err != nil {
		c.dieErr(err)
	}
	return 0
}
