package gitws

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
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

// displayURL is a URL as git prints it after "From"/"To".
func displayURL(u string) string { return u }

// fetchRemote fetches refspecs from a remote and prints git's "From" table.
func (c *cmd) fetchRemote(r *Repo, name, rawURL string, specs []gitconfig.RefSpec, depth int, quiet bool) error {
	u, done, err := c.openTransport(rawURL)
	if err != nil {
		return err
	}
	defer done()
	before := map[string]plumbing.Hash{}
	refs, _ := r.allRefs()
	for _, ref := range refs {
		before[ref.Name().String()] = ref.Hash()
	}
	rem := git.NewRemote(r.st, &gitconfig.RemoteConfig{Name: name, URLs: []string{u}, Fetch: specs})
	err = rem.FetchContext(c.env.Ctx, &git.FetchOptions{RemoteName: name, RefSpecs: specs, Depth: depth, Tags: git.AllTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil
		}
		return c.netErr(rawURL, err)
	}
	refs, _ = r.allRefs()
	var lines []string
	for _, ref := range refs {
		n := ref.Name().String()
		if !strings.HasPrefix(n, "refs/remotes/"+name+"/") && !strings.HasPrefix(n, "refs/tags/") {
			continue
		}
		old, had := before[n]
		short := strings.TrimPrefix(strings.TrimPrefix(n, "refs/remotes/"), "refs/tags/")
		src := strings.TrimPrefix(n, "refs/remotes/"+name+"/")
		switch {
		case !had && strings.HasPrefix(n, "refs/tags/"):
			lines = append(lines, fmt.Sprintf(" * [new tag]         %-10s -> %s", short, short))
		case !had:
			lines = append(lines, fmt.Sprintf(" * [new branch]      %-10s -> %s", src, short))
		case old != ref.Hash():
			lines = append(lines, fmt.Sprintf("   %s..%s  %-10s -> %s", old.String()[:7], ref.Hash().String()[:7], src, short))
		}
	}
	if len(lines) > 0 && !quiet {
		fmt.Fprintf(c.err, "From %s\n", displayURL(rawURL))
		for _, l := range lines {
			fmt.Fprintln(c.err, l)
		}
	}
	return nil
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
	storedURL := src
	if !strings.Contains(src, "://") {
		storedURL = c.env.abs(src)
		if _, err := c.env.FS.Stat(c.env.Ctx, storedURL); err != nil {
			c.die("repository '%s' does not exist", src)
		}
	}
	depth := 0
	if o.has("depth") {
		fmt.Sscanf(o.val("depth"), "%d", &depth)
	}
	if !o.has("quiet") {
		if o.has("bare") {
			fmt.Fprintf(c.err, "Cloning into bare repository '%s'...\n", dirArg)
		} else {
			fmt.Fprintf(c.err, "Cloning into '%s'...\n", dirArg)
		}
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
		if err := c.fetchRemote(r, remoteName, src, []gitconfig.RefSpec{spec}, depth, true); err != nil {
			_ = c.env.FS.RemoveAll(c.env.Ctx, dir)
			c.dieErr(fmt.Errorf("clone %s: %w", src, err))
		}
	}
	if empty {
		fmt.Fprintln(c.err, "warning: You appear to have cloned an empty repository.")
		return 0
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
	if len(o.args) > 1 {
		for _, s := range o.args[1:] {
			if !strings.Contains(s, ":") {
				s = "refs/heads/" + strings.TrimPrefix(s, "refs/heads/") + ":refs/remotes/" + name + "/" + strings.TrimPrefix(s, "refs/heads/")
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
	depth := 0
	if o.has("depth") {
		fmt.Sscanf(o.val("depth"), "%d", &depth)
	}
	if err := c.fetchRemote(r, name, u, specs, depth, o.has("quiet")); err != nil {
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
	if err := c.fetchRemote(r, name, u, specs, 0, o.has("quiet")); err != nil {
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
	fmt.Fprintf(c.err, "To %s\n", displayURL(u))
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
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
		fmt.Fprintln(c.err, "Everything up-to-date")
		if o.has("set-upstream") && target != "" && known {
			if h, _, ok := r.lookupRef(target); ok {
				_ = r.setRef("refs/remotes/"+name+"/"+shortBranch(target), h, "update by push")
			}
			c.setUpstreamQuiet(r, shortBranch(target), "refs/remotes/"+name+"/"+shortBranch(target), o.has("quiet"))
		}
		return 0
	}
	for _, s := range specs {
		src, dst, _ := strings.Cut(strings.TrimPrefix(string(s), "+"), ":")
		if strings.Contains(src, "*") {
			continue
		}
		old, had := before[dst]
		switch {
		case src == "":
			fmt.Fprintf(c.err, " - [deleted]         %s\n", shortRef(dst))
		case !had:
			kind := "[new branch]"
			if strings.HasPrefix(dst, "refs/tags/") {
				kind = "[new tag]   "
			}
			fmt.Fprintf(c.err, " * %s      %s -> %s\n", kind, shortRef(src), shortRef(dst))
		default:
			nh, _, _ := r.lookupRef(src)
			if nh == old {
				continue
			}
			sep := ".."
			if strings.HasPrefix(string(s), "+") {
				sep = "..."
			}
			fmt.Fprintf(c.err, "   %s%s%s  %s -> %s\n", old.String()[:7], sep, nh.String()[:7], shortRef(src), shortRef(dst))
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
