package deskgit

import (
	"context"
	"path"
	"strconv"
	"strings"
)

// common are the options every function takes.
type common struct {
	// Cwd is the directory git runs in (default the execution's cwd;
	// relative to it).
	Cwd string `json:"cwd"`
}

// output is the result of a call whose use is its effect: git's output.
type output struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func outputOf(r result) output { return output{Stdout: r.Stdout, Stderr: r.Stderr} }

// cli(argv, {cwd, stdin}) runs any git command line and returns {stdout,
// stderr, code}; a non-zero exit is not an error.
func (s *session) cli(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Stdin string `json:"stdin"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	if len(a.pos) == 0 {
		return nil, argError("ERR_INVALID_ARG_TYPE", "git.cli needs the command line: an array of strings such as ['status', '-s']")
	}
	argv, err := decodeStrs("cli", "command line", a.pos[0])
	if err != nil {
		return nil, err
	}
	if len(argv) > 0 && argv[0] == "git" {
		argv = argv[1:]
	}
	return s.run(ctx, o.Cwd, o.Stdin, argv...)
}

// init(dir, {cwd, bare, branch}) makes a repository.
func (s *session) init(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Bare   bool   `json:"bare"`
		Branch string `json:"branch"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	dir, err := a.str(0, "directory", false)
	if err != nil {
		return nil, err
	}
	argv := []string{"init", "--quiet"}
	if o.Bare {
		argv = append(argv, "--bare")
	}
	if o.Branch != "" {
		argv = append(argv, "--initial-branch="+o.Branch)
	}
	if dir != "" {
		argv = append(argv, dir)
	}
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return outputOf(r), nil
}

// clone(url, dir, {cwd, depth, branch, singleBranch, bare, noCheckout,
// origin}) clones url into dir (default: the name git picks) and returns
// {dir (absolute), stdout, stderr}.
func (s *session) clone(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Depth        int    `json:"depth"`
		Branch       string `json:"branch"`
		SingleBranch bool   `json:"singleBranch"`
		Bare         bool   `json:"bare"`
		NoCheckout   bool   `json:"noCheckout"`
		Origin       string `json:"origin"`
	}
	if err := a.max(2); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	url, err := a.str(0, "URL", false)
	if err != nil {
		return nil, err
	}
	if url == "" {
		return nil, argError("ERR_INVALID_ARG_TYPE", "git.clone needs the repository's URL")
	}
	dir, err := a.str(1, "directory", false)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = cloneName(url, o.Bare)
	}
	if o.Depth < 0 {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.clone: depth %d is negative", o.Depth)
	}
	argv := []string{"clone"}
	if o.Depth > 0 {
		argv = append(argv, "--depth", strconv.Itoa(o.Depth))
	}
	if o.Branch != "" {
		argv = append(argv, "--branch", o.Branch)
	}
	if o.SingleBranch {
		argv = append(argv, "--single-branch")
	}
	if o.Bare {
		argv = append(argv, "--bare")
	}
	if o.NoCheckout {
		argv = append(argv, "--no-checkout")
	}
	if o.Origin != "" {
		argv = append(argv, "--origin", o.Origin)
	}
	argv = append(argv, url, dir)
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return struct {
		Dir string `json:"dir"`
		output
	}{cloneDir(s.dir(o.Cwd), dir), outputOf(r)}, nil
}

// cloneDir is the absolute directory of clone's dir, git's cwd being cwd.
func cloneDir(cwd, dir string) string {
	if path.IsAbs(dir) {
		return path.Clean(dir)
	}
	return path.Join(cwd, dir)
}

// cloneName is the directory git clone makes for url: its last element
// without ".git" (with it, for a bare clone).
func cloneName(url string, bare bool) string {
	base := path.Base(strings.TrimSuffix(strings.TrimSuffix(url, "/"), "/.git"))
	if !bare {
		return strings.TrimSuffix(base, ".git")
	}
	if !strings.HasSuffix(base, ".git") {
		base += ".git"
	}
	return base
}

// fileStatus is one entry of status.
type fileStatus struct {
	Path     string `json:"path"`
	From     string `json:"from,omitempty"` // a rename's or copy's source
	Index    string `json:"index"`          // git's X column: ' ', M, A, D, R, C, U, ?, !
	Worktree string `json:"worktree"`       // git's Y column
}

// status({cwd, paths, untracked, ignored}) is git status --porcelain as
// [{path, from, index, worktree}].
func (s *session) status(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Paths     paths  `json:"paths"`
		Untracked string `json:"untracked"` // all, normal (default), no
		Ignored   bool   `json:"ignored"`
	}
	if err := a.max(0); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	argv := []string{"status", "--porcelain"}
	switch o.Untracked {
	case "":
	case "all", "normal", "no":
		argv = append(argv, "--untracked-files="+o.Untracked)
	default:
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.status: untracked %q: want all, normal or no", o.Untracked)
	}
	if o.Ignored {
		argv = append(argv, "--ignored")
	}
	if len(o.Paths) > 0 {
		argv = append(append(argv, "--"), o.Paths...)
	}
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return parseStatus(r.Stdout)
}

// parseStatus parses git status --porcelain (v1) lines, unquoting the
// C-quoted paths git writes for unusual names.
func parseStatus(out string) ([]fileStatus, error) {
	list := []fileStatus{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if len(line) < 4 {
			continue
		}
		st := fileStatus{Index: line[:1], Worktree: line[1:2]}
		rest := line[3:]
		first, after, err := cutPath(rest)
		if err != nil {
			return nil, err
		}
		st.Path = first
		if a, ok := strings.CutPrefix(after, " -> "); ok {
			to, _, err := cutPath(a)
			if err != nil {
				return nil, err
			}
			st.From, st.Path = first, to
		}
		list = append(list, st)
	}
	return list, nil
}

// cutPath reads one path from the start of s: a C-quoted string, or the
// text up to " -> " (a rename's arrow) or the end.
func cutPath(s string) (p, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				p, err := strconv.Unquote(s[:i+1])
				if err != nil {
					return "", "", argError("ERR_GIT", "git status: bad quoted path %s", s[:i+1])
				}
				return p, s[i+1:], nil
			}
		}
		return "", "", argError("ERR_GIT", "git status: unterminated quoted path %s", s)
	}
	if i := strings.Index(s, " -> "); i >= 0 {
		return s[:i], s[i:], nil
	}
	return s, "", nil
}

// diff(...revs, {cwd, cached, paths, stat, nameOnly, nameStatus, context})
// is git diff's output, as text.
func (s *session) diff(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Cached     bool  `json:"cached"`
		Paths      paths `json:"paths"`
		Stat       bool  `json:"stat"`
		NameOnly   bool  `json:"nameOnly"`
		NameStatus bool  `json:"nameStatus"`
		Context    *int  `json:"context"`
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	revs, err := a.rest(0, "revision")
	if err != nil {
		return nil, err
	}
	argv := []string{"diff"}
	if o.Cached {
		argv = append(argv, "--cached")
	}
	if o.Stat {
		argv = append(argv, "--stat")
	}
	if o.NameOnly {
		argv = append(argv, "--name-only")
	}
	if o.NameStatus {
		argv = append(argv, "--name-status")
	}
	if o.Context != nil {
		if *o.Context < 0 {
			return nil, argError("ERR_INVALID_ARG_VALUE", "git.diff: context %d is negative", *o.Context)
		}
		argv = append(argv, "-U"+strconv.Itoa(*o.Context))
	}
	argv = append(append(append(argv, revs...), "--"), o.Paths...)
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return r.Stdout, nil
}

// commitInfo is one entry of log.
type commitInfo struct {
	Hash           string   `json:"hash"`
	Parents        []string `json:"parents"`
	Author         string   `json:"author"`
	Email          string   `json:"email"`
	Date           string   `json:"date"` // the author date, ISO 8601
	Committer      string   `json:"committer"`
	CommitterEmail string   `json:"committerEmail"`
	CommitterDate  string   `json:"committerDate"`
	Subject        string   `json:"subject"`
	Message        string   `json:"message"` // the whole message, without its final newline
}

// logFormat has one NUL-ended field per commitInfo field (git's messages
// never hold a NUL).
const logFormat = "%H\x00%P\x00%an\x00%ae\x00%aI\x00%cn\x00%ce\x00%cI\x00%s\x00%B\x00"

const logFields = 10

// log(...revs, {cwd, n, skip, paths, all}) is git log as [{hash, parents,
// author, email, date, committer, committerEmail, committerDate, subject,
// message}], newest first.
func (s *session) log(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		N     int   `json:"n"`
		Skip  int   `json:"skip"`
		Paths paths `json:"paths"`
		All   bool  `json:"all"`
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	revs, err := a.rest(0, "revision")
	if err != nil {
		return nil, err
	}
	if o.N < 0 || o.Skip < 0 {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.log: n and skip must not be negative")
	}
	argv := []string{"log", "--format=" + logFormat}
	if o.N > 0 {
		argv = append(argv, "--max-count="+strconv.Itoa(o.N))
	}
	if o.Skip > 0 {
		argv = append(argv, "--skip="+strconv.Itoa(o.Skip))
	}
	if o.All {
		argv = append(argv, "--all")
	}
	argv = append(append(append(argv, revs...), "--"), o.Paths...)
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return parseLog(r.Stdout)
}

func parseLog(out string) ([]commitInfo, error) {
	list := []commitInfo{}
	f := strings.Split(out, "\x00")
	for i := 0; i+logFields <= len(f); i += logFields {
		c := commitInfo{
			Hash: strings.TrimLeft(f[i], "\n"), Author: f[i+2], Email: f[i+3], Date: f[i+4],
			Committer: f[i+5], CommitterEmail: f[i+6], CommitterDate: f[i+7], Subject: f[i+8],
			Message: strings.TrimRight(f[i+9], "\n"), Parents: []string{},
		}
		if f[i+1] != "" {
			c.Parents = strings.Fields(f[i+1])
		}
		list = append(list, c)
	}
	return list, nil
}

// add(paths, {cwd, all, update, force}) stages paths (a string or an
// array), or every change (all) or every tracked file's (update).
func (s *session) add(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		All    bool `json:"all"`
		Update bool `json:"update"`
		Force  bool `json:"force"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	ps, err := a.strs(0, "path")
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 && !o.All && !o.Update {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.add needs paths, or {all: true} or {update: true}")
	}
	argv := []string{"add"}
	if o.All {
		argv = append(argv, "--all")
	}
	if o.Update {
		argv = append(argv, "--update")
	}
	if o.Force {
		argv = append(argv, "--force")
	}
	argv = append(append(argv, "--"), ps...)
	if _, err := s.git(ctx, o.Cwd, argv...); err != nil {
		return nil, err
	}
	return nil, nil
}

// commit(message, {cwd, all, amend, allowEmpty, author, date, paths})
// commits and returns {hash, branch, stdout, stderr}.
func (s *session) commit(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		All        bool   `json:"all"`
		Amend      bool   `json:"amend"`
		AllowEmpty bool   `json:"allowEmpty"`
		Author     string `json:"author"`
		Date       string `json:"date"`
		Paths      paths  `json:"paths"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	msg, err := a.str(0, "message", true)
	if err != nil {
		return nil, err
	}
	argv := []string{"commit"}
	switch {
	case msg != "":
		argv = append(argv, "--message="+msg)
	case o.Amend:
		argv = append(argv, "--no-edit")
	default:
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.commit needs a message (there is no editor)")
	}
	if o.All {
		argv = append(argv, "--all")
	}
	if o.Amend {
		argv = append(argv, "--amend")
	}
	if o.AllowEmpty {
		argv = append(argv, "--allow-empty")
	}
	if o.Author != "" {
		argv = append(argv, "--author="+o.Author)
	}
	if o.Date != "" {
		argv = append(argv, "--date="+o.Date)
	}
	if len(o.Paths) > 0 {
		argv = append(append(argv, "--"), o.Paths...)
	}
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	h, err := s.git(ctx, o.Cwd, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	b, err := s.git(ctx, o.Cwd, "branch", "--show-current")
	if err != nil {
		return nil, err
	}
	return struct {
		Hash   string `json:"hash"`
		Branch string `json:"branch"` // "" on a detached HEAD
		output
	}{strings.TrimSpace(h.Stdout), strings.TrimSpace(b.Stdout), outputOf(r)}, nil
}

// checkout(ref, {cwd, create, start, force, detach, paths}) switches to
// ref (create: a new branch ref at start), or with paths restores them
// from ref (or, without ref, from the index).
func (s *session) checkout(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Create bool   `json:"create"`
		Start  string `json:"start"`
		Force  bool   `json:"force"`
		Detach bool   `json:"detach"`
		Paths  paths  `json:"paths"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	ref, err := a.str(0, "ref", false)
	if err != nil {
		return nil, err
	}
	if ref == "" && len(o.Paths) == 0 {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.checkout needs a ref or {paths}")
	}
	if strings.HasPrefix(o.Start, "-") {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.checkout: start %q starts with '-'", o.Start)
	}
	argv := []string{"checkout"}
	if o.Force {
		argv = append(argv, "--force")
	}
	if o.Detach {
		argv = append(argv, "--detach")
	}
	switch {
	case o.Create:
		if ref == "" {
			return nil, argError("ERR_INVALID_ARG_VALUE", "git.checkout: create needs the new branch's name")
		}
		argv = append(argv, "-b", ref)
		if o.Start != "" {
			argv = append(argv, o.Start)
		}
	case ref != "":
		argv = append(argv, ref)
	}
	if len(o.Paths) > 0 {
		argv = append(append(argv, "--"), o.Paths...)
	}
	r, err := s.git(ctx, o.Cwd, argv...)
	if err != nil {
		return nil, err
	}
	return outputOf(r), nil
}

// branchInfo is one branch of branch's list.
type branchInfo struct {
	Name    string `json:"name"`
	Hash    string `json:"hash"`
	Current bool   `json:"current"`
}

// branch({cwd}) lists the local branches as [{name, hash, current}];
// branch(name, {cwd, start, delete, force}) creates (or deletes) one.
func (s *session) branch(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Start  string `json:"start"`
		Delete bool   `json:"delete"`
		Force  bool   `json:"force"`
	}
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	name, err := a.str(0, "branch name", false)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(o.Start, "-") {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.branch: start %q starts with '-'", o.Start)
	}
	if name != "" {
		argv := []string{"branch"}
		switch {
		case o.Delete && o.Force:
			argv = append(argv, "-D", name)
		case o.Delete:
			argv = append(argv, "-d", name)
		default:
			if o.Force {
				argv = append(argv, "--force")
			}
			argv = append(argv, name)
			if o.Start != "" {
				argv = append(argv, o.Start)
			}
		}
		r, err := s.git(ctx, o.Cwd, argv...)
		if err != nil {
			return nil, err
		}
		return outputOf(r), nil
	}
	r, err := s.git(ctx, o.Cwd, "branch", "--list")
	if err != nil {
		return nil, err
	}
	list := []branchInfo{}
	var refs []string
	for _, line := range strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n") {
		if len(line) < 3 || strings.HasPrefix(line[2:], "(") {
			continue // empty, or a detached HEAD's "(HEAD detached at ...)"
		}
		list = append(list, branchInfo{Name: line[2:], Current: line[0] == '*'})
		refs = append(refs, "refs/heads/"+line[2:])
	}
	if len(refs) > 0 {
		h, err := s.git(ctx, o.Cwd, append([]string{"rev-parse"}, refs...)...)
		if err != nil {
			return nil, err
		}
		hs := strings.Fields(h.Stdout)
		for i := range list {
			if i < len(hs) {
				list[i].Hash = hs[i]
			}
		}
	}
	return list, nil
}

// remoteArgs reads the remote and refspecs of fetch, pull and push.
func remoteArgs(a *args, refs bool) ([]string, error) {
	remote, err := a.str(0, "remote", false)
	if err != nil {
		return nil, err
	}
	var out []string
	if remote != "" {
		out = append(out, remote)
	}
	if !refs {
		if err := a.max(1); err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := a.max(2); err != nil {
		return nil, err
	}
	rs, err := a.strs(1, "refspec")
	if err != nil {
		return nil, err
	}
	if len(rs) > 0 && remote == "" {
		return nil, argError("ERR_INVALID_ARG_VALUE", "git.%s: a refspec needs the remote too", a.fn)
	}
	for _, r := range rs {
		if r == "" || strings.HasPrefix(r, "-") {
			return nil, argError("ERR_INVALID_ARG_VALUE", "git.%s: bad refspec %q", a.fn, r)
		}
	}
	return append(out, rs...), nil
}

// fetch(remote, {cwd, depth, prune, tags}) fetches from remote (default
// origin).
func (s *session) fetch(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Depth int  `json:"depth"`
		Prune bool `json:"prune"`
		Tags  bool `json:"tags"`
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	rest, err := remoteArgs(a, false)
	if err != nil {
		return nil, err
	}
	argv := []string{"fetch"}
	if o.Depth > 0 {
		argv = append(argv, "--depth="+strconv.Itoa(o.Depth))
	}
	if o.Prune {
		argv = append(argv, "--prune")
	}
	if o.Tags {
		argv = append(argv, "--tags")
	}
	r, err := s.git(ctx, o.Cwd, append(argv, rest...)...)
	if err != nil {
		return nil, err
	}
	return outputOf(r), nil
}

// pull(remote, branch, {cwd, ffOnly, noFf}) fetches and merges.
func (s *session) pull(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		FFOnly bool `json:"ffOnly"`
		NoFF   bool `json:"noFf"`
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	rest, err := remoteArgs(a, true)
	if err != nil {
		return nil, err
	}
	argv := []string{"pull"}
	if o.FFOnly {
		argv = append(argv, "--ff-only")
	}
	if o.NoFF {
		argv = append(argv, "--no-ff")
	}
	r, err := s.git(ctx, o.Cwd, append(argv, rest...)...)
	if err != nil {
		return nil, err
	}
	return outputOf(r), nil
}

// push(remote, refspecs, {cwd, force, delete, tags, setUpstream}) pushes.
func (s *session) push(ctx context.Context, a *args) (any, error) {
	var o struct {
		common
		Force       bool `json:"force"`
		Delete      bool `json:"delete"`
		Tags        bool `json:"tags"`
		SetUpstream bool `json:"setUpstream"`
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	rest, err := remoteArgs(a, true)
	if err != nil {
		return nil, err
	}
	argv := []string{"push"}
	if o.Force {
		argv = append(argv, "--force")
	}
	if o.Delete {
		argv = append(argv, "--delete")
	}
	if o.Tags {
		argv = append(argv, "--tags")
	}
	if o.SetUpstream {
		argv = append(argv, "--set-upstream")
	}
	r, err := s.git(ctx, o.Cwd, append(argv, rest...)...)
	if err != nil {
		return nil, err
	}
	return outputOf(r), nil
}

// revParse(rev, {cwd}) is the commit (or object) id rev names.
func (s *session) revParse(ctx context.Context, a *args) (any, error) {
	var o common
	if err := a.max(1); err != nil {
		return nil, err
	}
	if err := a.options(&o); err != nil {
		return nil, err
	}
	rev, err := a.str(0, "revision", false)
	if err != nil {
		return nil, err
	}
	if rev == "" {
		rev = "HEAD"
	}
	r, err := s.git(ctx, o.Cwd, "rev-parse", "--verify", rev)
	if err != nil {
		return nil, err
	}
	return strings.TrimSpace(r.Stdout), nil
}
