package gitws

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/desk-dev/desk/internal/vfs"
)

// initialConfig is the .git/config real git writes at init.
const initialConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

const initialBareConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

const excludeTemplate = "# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n# For a project mostly in C, the following would be a good set of\n# exclude patterns (uncomment them if you want to use them):\n# *.[oa]\n# *~\n"

// initRepo makes the git directory gitDir (HEAD on branch), as git init
// does; reinit reports whether one was there.
func initRepo(env *Env, gitDir, branch string, bare bool) (reinit bool, err error) {
	ctx, f := env.Ctx, env.FS
	if isGitDir(ctx, f, gitDir) {
		return true, nil
	}
	for _, d := range []string{"", "/objects/info", "/objects/pack", "/refs/heads", "/refs/tags", "/info", "/hooks", "/branches"} {
		if err := f.MkdirAll(ctx, gitDir+d, 0o755); err != nil {
			return false, fmt.Errorf("create %s: %w", gitDir+d, err)
		}
	}
	cfg := initialConfig
	if bare {
		cfg = initialBareConfig
	}
	files := map[string]string{
		"/HEAD":         "ref: refs/heads/" + branch + "\n",
		"/config":       cfg,
		"/description":  "Unnamed repository; edit this file 'description' to name the repository.\n",
		"/info/exclude": excludeTemplate,
	}
	for n, data := range files {
		if err := f.WriteFile(ctx, gitDir+n, []byte(data), 0o644); err != nil {
			return false, fmt.Errorf("create %s: %w", gitDir+n, err)
		}
	}
	return false, nil
}

func defaultBranch(env *Env) string {
	c, err := loadConfig(env, "")
	if err == nil {
		if v, ok := c.get("init.defaultbranch"); ok && v != "" {
			return v
		}
	}
	return "master"
}

func cmdInit(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"quiet", "bare", "initial-branch=", "template="},
		short: map[byte]string{'q': "quiet", 'b': "initial-branch"},
	})
	dir := c.env.Dir
	if len(o.args) > 0 {
		dir = c.env.abs(o.args[0])
	}
	if err := c.env.FS.MkdirAll(c.env.Ctx, dir, 0o755); err != nil {
		c.die("cannot mkdir %s: %s", o.args[0], strerror(err))
	}
	gitDir := strings.TrimSuffix(dir, "/") + "/.git"
	if o.has("bare") {
		gitDir = dir
	}
	branch := o.val("initial-branch")
	if branch == "" {
		branch = defaultBranch(c.env)
	}
	reinit, err := initRepo(c.env, gitDir, branch, o.has("bare"))
	if err != nil {
		c.dieErr(err)
	}
	if !o.has("quiet") {
		shown := gitDir + "/"
		if reinit {
			fmt.Fprintf(c.out, "Reinitialized existing Git repository in %s\n", shown)
		} else {
			fmt.Fprintf(c.out, "Initialized empty %sGit repository in %s\n", map[bool]string{true: "shared ", false: ""}[false], shown)
		}
	}
	return 0
}

// strerror is an error's errno text as the C library words it.
func strerror(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		s := pe.Err.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return err.Error()
}

// entriesByName maps each path of idx to its first entry (what idx.Entry
// finds, which scans every entry: a loop over the work tree calling it per
// file is quadratic, 10,000 files 50 million comparisons).
func entriesByName(idx *index.Index) map[string]*index.Entry {
	m := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		if _, ok := m[e.Name]; !ok {
			m[e.Name] = e
		}
	}
	return m
}

// addFileTo stages one work-tree file into idx. byName is the
// entriesByName of idx, which it keeps current (nil: idx is scanned).
func (r *Repo) addFileTo(idx *index.Index, byName map[string]*index.Entry, rel string, a vfs.Attr) error {
	data, err := r.readWork(rel, a)
	if err != nil {
		return err
	}
	h, err := r.storeBlob(data)
	if err != nil {
		return fmt.Errorf("write blob %s: %w", rel, err)
	}
	var e *index.Entry
	if byName != nil {
		if e = byName[rel]; e == nil {
			err = index.ErrEntryNotFound
		}
	} else {
		e, err = idx.Entry(rel)
	}
	if err != nil || e.Stage != 0 {
		// replace any conflict stages of the path
		if err == nil {
			removeEntry(idx, rel)
		}
		e = idx.Add(rel)
		if byName != nil {
			byName[rel] = e
		}
	}
	e.Hash = h
	e.Mode = modeOf(a)
	e.Stage = 0
	e.IntentToAdd = false
	entryFromAttr(e, a)
	if a.IsSymlink() {
		e.Size = uint32(len(data))
	}
	return nil
}

// removeEntry drops every stage of a path from idx.
func removeEntry(idx *index.Index, rel string) bool {
	out := idx.Entries[:0]
	found := false
	for _, e := range idx.Entries {
		if e.Name == rel {
			found = true
			continue
		}
		out = append(out, e)
	}
	idx.Entries = out
	return found
}

func cmdAdd(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"all", "update", "force", "dry-run", "verbose", "intent-to-add", "no-all", "ignore-removal"},
		short: map[byte]string{'A': "all", 'u': "update", 'f': "force", 'n': "dry-run", 'v': "verbose", 'N': "intent-to-add"},
	})
	r := c.needWork()
	defer r.st.buffer()() // its objects in one store transaction, flushed before the index and refs
	pathArgs := append(o.args, o.paths...)
	if len(pathArgs) == 0 && !o.has("all") && !o.has("update") {
		fmt.Fprint(c.err, "Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\nhint: Turn this message off by running\nhint: \"git config advice.addEmptyPathspec false\"\n")
		return 0
	}
	ps := c.newPathspec(pathArgs)
	if len(pathArgs) == 0 && o.has("update") {
		ps = c.newPathspec([]string{"."})
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	tracked := trackedNames(idx)
	sc, err := r.scan(tracked, true)
	if err != nil {
		c.dieErr(err)
	}
	// every pathspec must match something (a file, a tracked path, or an
	// ignored one, which is refused below)
	var ignoredNamed []string
	for i, pat := range ps.pats {
		matched := false
		for p := range sc.files {
			if matchOne(pat, p) {
				matched = true
				break
			}
		}
		if !matched {
			for p := range tracked {
				if matchOne(pat, p) {
					matched = true
					break
				}
			}
		}
		if !matched {
			for _, ig := range sc.ignored {
				if matchOne(pat, strings.TrimSuffix(ig, "/")) || strings.HasPrefix(pat, ig) {
					if o.has("force") {
						// add the ignored file itself
						if a, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+pat); err == nil && !a.IsDir() {
							sc.files[pat] = a.Attr()
							matched = true
							break
						}
					}
					ignoredNamed = append(ignoredNamed, pathArgs[i])
					matched = true
					break
				}
			}
		}
		if !matched {
			c.die("pathspec '%s' did not match any files", pathArgs[i])
		}
	}
	if len(ignoredNamed) > 0 && !o.has("force") {
		fmt.Fprint(c.err, "The following paths are ignored by one of your .gitignore files:\n")
		for _, p := range ignoredNamed {
			fmt.Fprintln(c.err, p)
		}
		fmt.Fprint(c.err, "hint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: \"git config advice.addIgnoredFile false\"\n")
	}
	var names []string
	for p := range sc.files {
		names = append(names, p)
	}
	sort.Strings(names)
	changed := false
	byName := entriesByName(idx)
	for _, p := range names {
		if !ps.empty() && !ps.match(p) {
			if !(o.has("all") && len(pathArgs) == 0) {
				continue
			}
		}
		if o.has("update") && !tracked[p] {
			continue
		}
		a := sc.files[p]
		if e := byName[p]; e != nil && e.Stage == 0 && statClean(e, a, idx.ModTime) {
			continue
		}
		if o.has("dry-run") {
			fmt.Fprintf(c.out, "add '%s'\n", p)
			continue
		}
		if o.has("intent-to-add") && !tracked[p] {
			e := idx.Add(p)
			e.Hash = hashBlob(nil)
			e.Mode = modeOf(a)
			e.IntentToAdd = true
			byName[p] = e
			changed = true
			continue
		}
		before := byName[p]
		var old plumbing.Hash
		if before != nil {
			old = before.Hash
		}
		if err := r.addFileTo(idx, byName, p, a); err != nil {
			c.dieErr(err)
		}
		if e := byName[p]; e != nil && (e.Hash != old || before == nil) && o.has("verbose") {
			fmt.Fprintf(c.out, "add '%s'\n", p)
		}
		changed = true
	}
	// removals: tracked paths named (or all, with -A/-u) that are gone
	if !o.has("no-all") && !o.has("ignore-removal") {
		for p := range tracked {
			if _, ok := sc.files[p]; ok {
				continue
			}
			if ps.match(p) || (len(pathArgs) == 0 && (o.has("all") || o.has("update"))) {
				if o.has("dry-run") {
					fmt.Fprintf(c.out, "remove '%s'\n", p)
					continue
				}
				if o.has("verbose") {
					fmt.Fprintf(c.out, "remove '%s'\n", p)
				}
				removeEntry(idx, p)
				changed = true
			}
		}
	}
	if changed && !o.has("dry-run") {
		if err := r.writeIndex(idx); err != nil {
			c.dieErr(err)
		}
	}
	if len(ignoredNamed) > 0 && !o.has("force") {
		return 1
	}
	return 0
}

func cmdRm(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"cached", "force", "recursive", "quiet", "dry-run", "ignore-unmatch"},
		short: map[byte]string{'f': "force", 'r': "recursive", 'q': "quiet", 'n': "dry-run"},
	})
	r := c.needWork()
	pathArgs := append(o.args, o.paths...)
	if len(pathArgs) == 0 {
		c.die("No pathspec was given. Which files should I remove?")
	}
	ps := c.newPathspec(pathArgs)
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	headFiles, err := r.headFiles()
	if err != nil {
		c.dieErr(err)
	}
	var hit []string
	for i, pat := range ps.pats {
		n := 0
		for _, e := range idx.Entries {
			if matchOne(pat, e.Name) {
				if e.Name != pat && strings.HasPrefix(e.Name, pat+"/") && !o.has("recursive") && !strings.ContainsAny(pat, "*?[") {
					c.die("not removing '%s' recursively without -r", pathArgs[i])
				}
				hit = append(hit, e.Name)
				n++
			}
		}
		if n == 0 && !o.has("ignore-unmatch") {
			c.die("pathspec '%s' did not match any files", pathArgs[i])
		}
	}
	sort.Strings(hit)
	hit = dedup(hit)
	if !o.has("force") {
		var staged, local, both []string
		for _, p := range hit {
			e, _ := idx.Entry(p)
			h, inHead := headFiles[p]
			idxDiffers := !inHead || h.Hash != e.Hash || h.Mode != e.Mode
			wtDiffers := false
			if a, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+p); err == nil {
				if !statClean(e, a.Attr(), idx.ModTime) {
					data, err := r.readWork(p, a.Attr())
					wtDiffers = err != nil || hashBlob(data) != e.Hash
				}
			}
			switch {
			case o.has("cached"):
				if idxDiffers && wtDiffers && inHead {
					both = append(both, p)
				}
			case idxDiffers && wtDiffers:
				both = append(both, p)
			case idxDiffers:
				staged = append(staged, p)
			case wtDiffers:
				local = append(local, p)
			}
		}
		report := func(list []string, what, hint string) bool {
			if len(list) == 0 {
				return false
			}
			s := "file has"
			if len(list) > 1 {
				s = "files have"
			}
			fmt.Fprintf(c.err, "error: the following %s %s:\n", s, what)
			for _, p := range list {
				fmt.Fprintf(c.err, "    %s\n", p)
			}
			fmt.Fprint(c.err, hint)
			return true
		}
		bad := report(both, "staged content different from both the\nfile and the HEAD", "(use -f to force removal)\n")
		bad = report(staged, "changes staged in the index", "(use --cached to keep the file, or -f to force removal)\n") || bad
		bad = report(local, "local modifications", "(use --cached to keep the file, or -f to force removal)\n") || bad
		if bad {
			return 1
		}
	}
	for _, p := range hit {
		if !o.has("quiet") {
			fmt.Fprintf(c.out, "rm '%s'\n", p)
		}
		if o.has("dry-run") {
			continue
		}
		removeEntry(idx, p)
		if !o.has("cached") {
			fp := r.Work + "/" + p
			if err := c.env.FS.Remove(c.env.Ctx, fp); err != nil && !errors.Is(err, fs.ErrNotExist) {
				c.dieErr(err)
			}
			r.pruneEmptyDirs(path.Dir(p))
		}
	}
	if !o.has("dry-run") {
		if err := r.writeIndex(idx); err != nil {
			c.dieErr(err)
		}
	}
	return 0
}

// pruneEmptyDirs removes rel and its parents while they are empty.
func (r *Repo) pruneEmptyDirs(rel string) {
	for rel != "." && rel != "" && rel != "/" {
		if err := r.env.FS.Remove(r.env.Ctx, r.Work+"/"+rel); err != nil {
			return
		}
		rel = path.Dir(rel)
	}
}

func dedup(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func cmdMv(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"force", "dry-run", "verbose", "k"},
		short: map[byte]string{'f': "force", 'n': "dry-run", 'v': "verbose", 'k': "k"},
	})
	r := c.needWork()
	if len(o.args) < 2 {
		fmt.Fprint(c.err, "usage: git mv [<options>] <source>... <destination>\n")
		return ExitUsage
	}
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	dstArg := o.args[len(o.args)-1]
	dst, ok := c.repoPath(dstArg)
	if !ok {
		c.die("%s: '%s' is outside repository", dstArg, dstArg)
	}
	dstIsDir := false
	if fi, err := c.env.FS.Stat(c.env.Ctx, r.Work+"/"+dst); err == nil && fi.IsDir() {
		dstIsDir = true
	}
	srcs := o.args[:len(o.args)-1]
	if len(srcs) > 1 && !dstIsDir {
		c.die("destination '%s' is not a directory", dstArg)
	}
	for _, sa := range srcs {
		src, ok := c.repoPath(sa)
		if !ok {
			c.die("%s: '%s' is outside repository", sa, sa)
		}
		to := dst
		if dstIsDir {
			to = strings.TrimPrefix(dst+"/"+path.Base(src), "/")
		}
		fi, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+src)
		if err != nil {
			c.die("bad source, source=%s, destination=%s", sa, c.relPath(to))
		}
		var moved []*index.Entry
		for _, e := range idx.Entries {
			if e.Name == src || strings.HasPrefix(e.Name, src+"/") {
				moved = append(moved, e)
			}
		}
		if len(moved) == 0 {
			c.die("not under version control, source=%s, destination=%s", sa, c.relPath(to))
		}
		if _, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+to); err == nil && !o.has("force") {
			c.die("destination exists, source=%s, destination=%s", sa, c.relPath(to))
		}
		if o.has("verbose") || o.has("dry-run") {
			fmt.Fprintf(c.out, "Renaming %s to %s\n", src, to)
		}
		if o.has("dry-run") {
			continue
		}
		if err := c.env.FS.MkdirAll(c.env.Ctx, path.Dir(r.Work+"/"+to), 0o755); err != nil {
			c.dieErr(err)
		}
		if err := c.env.FS.Rename(c.env.Ctx, r.Work+"/"+src, r.Work+"/"+to, 0); err != nil {
			c.die("renaming '%s' failed: %s", sa, strerror(err))
		}
		_ = fi
		for _, e := range moved {
			removeEntry(idx, to+strings.TrimPrefix(e.Name, src))
			e.Name = to + strings.TrimPrefix(e.Name, src)
			if a, err := c.env.FS.Lstat(c.env.Ctx, r.Work+"/"+e.Name); err == nil {
				entryFromAttr(e, a.Attr())
			}
		}
	}
	if !o.has("dry-run") {
		if err := r.writeIndex(idx); err != nil {
			c.dieErr(err)
		}
	}
	return 0
}

func cmdLsFiles(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"stage", "cached", "modified", "deleted", "others", "exclude-standard", "ignored", "directory", "full-name", "unmerged", "error-unmatch", "z"},
		short: map[byte]string{'s': "stage", 'c': "cached", 'm': "modified", 'd': "deleted", 'o': "others", 'i': "ignored", 'u': "unmerged", 'z': "z"},
	})
	r := c.needWork()
	ps := c.newPathspec(append(o.args, o.paths...))
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	sort.Slice(idx.Entries, func(i, j int) bool {
		if idx.Entries[i].Name != idx.Entries[j].Name {
			return idx.Entries[i].Name < idx.Entries[j].Name
		}
		return idx.Entries[i].Stage < idx.Entries[j].Stage
	})
	term := "\n"
	if o.has("z") {
		term = "\x00"
	}
	name := func(p string) string {
		if !o.has("full-name") {
			p = c.relPath(p)
		}
		if o.has("z") {
			return p
		}
		return quotePath(p, false)
	}
	pre := c.prefix()
	inScope := func(p string) bool {
		return (pre == "" || strings.HasPrefix(p, pre) || o.has("full-name") && false) && ps.match(p)
	}
	if o.has("others") {
		tracked := trackedNames(idx)
		sc, err := r.scan(tracked, o.has("ignored"))
		if err != nil {
			c.dieErr(err)
		}
		list := sc.untracked
		if !o.has("exclude-standard") {
			// without --exclude-standard, ignore files do not count
			all, err := r.scanAll(tracked)
			if err != nil {
				c.dieErr(err)
			}
			list = all
		}
		if o.has("ignored") {
			list = sc.ignored
		}
		if o.has("directory") {
			list = collapseUntracked(list, tracked)
		}
		for _, p := range list {
			if inScope(strings.TrimSuffix(p, "/")) {
				fmt.Fprint(c.out, name(p)+term)
			}
		}
		return 0
	}
	var files map[string]vfs.Attr
	if o.has("modified") || o.has("deleted") {
		tracked := trackedNames(idx)
		sc, err := r.scan(tracked, false)
		if err != nil {
			c.dieErr(err)
		}
		files = sc.files
	}
	matched := map[string]bool{}
	last := ""
	for _, e := range idx.Entries {
		if !inScope(e.Name) {
			continue
		}
		if o.has("unmerged") && e.Stage == 0 {
			continue
		}
		if o.has("modified") || o.has("deleted") {
			a, ok := files[e.Name]
			del := !ok
			mod := del
			if ok && !statClean(e, a, idx.ModTime) {
				data, err := r.readWork(e.Name, a)
				mod = err != nil || hashBlob(data) != e.Hash || modeOf(a) != e.Mode
			}
			if !(o.has("deleted") && del || o.has("modified") && mod) {
				continue
			}
		}
		matched[e.Name] = true
		if o.has("stage") || o.has("unmerged") {
			fmt.Fprintf(c.out, "%06o %s %d\t%s%s", uint32(e.Mode), e.Hash, e.Stage, name(e.Name), term)
			continue
		}
		if e.Name == last {
			continue
		}
		last = e.Name
		fmt.Fprint(c.out, name(e.Name)+term)
	}
	if o.has("error-unmatch") {
		for i, pat := range ps.pats {
			ok := false
			for p := range matched {
				if matchOne(pat, p) {
					ok = true
				}
			}
			if !ok {
				fmt.Fprintf(c.err, "error: pathspec '%s' did not match any file(s) known to git\nDid you forget to 'git add'?\n", append(o.args, o.paths...)[i])
				return 1
			}
		}
	}
	return 0
}

// scanAll lists every untracked file, ignore files not applied.
func (r *Repo) scanAll(tracked map[string]bool) ([]string, error) {
	var out []string
	var walk func(rel string) error
	walk = func(rel string) error {
		dir := r.Work
		if rel != "" {
			dir += "/" + rel
		}
		ents, err := r.env.FS.ReadDir(r.env.Ctx, dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := e.Name
			if rel != "" {
				p = rel + "/" + e.Name
			}
			switch e.Mode & vfs.S_IFMT {
			case vfs.S_IFDIR:
				if e.Name != ".git" {
					if err := walk(p); err != nil {
						return err
					}
				}
			case vfs.S_IFREG, vfs.S_IFLNK:
				if !tracked[p] {
					out = append(out, p)
				}
			}
		}
		return nil
	}
	err := walk("")
	sort.Strings(out)
	return out, err
}

func cmdConfig(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"global", "local", "list", "get", "get-all", "unset", "unset-all", "add", "bool", "int", "file=", "replace-all", "show-origin", "default="},
		short: map[byte]string{'l': "list", 'f': "file"},
	})
	var file string
	switch {
	case o.has("file"):
		file = c.env.abs(o.val("file"))
	case o.has("global"):
		file = globalConfigPath(c.env)
	default:
		if o.has("list") && !o.has("local") {
			break
		}
		gd, _, err := findRepo(c.env, c.env.Dir)
		if err != nil {
			if o.has("list") || len(o.args) == 1 {
				break
			}
			c.die("not in a git directory")
		}
		file = gd + "/config"
	}
	if o.has("list") {
		var lines []string
		if file != "" {
			f, err := readConfigFile(c.env, file)
			if err != nil {
				c.dieErr(err)
			}
			lines = (&config{files: []*formatcfg.Config{f}}).list()
		} else {
			gd, _, _ := findRepo(c.env, c.env.Dir)
			cfg, err := loadConfig(c.env, gd)
			if err != nil {
				c.dieErr(err)
			}
			lines = cfg.list()
			for _, kv := range c.env.configParams {
				k, v, _ := strings.Cut(kv, "=")
				lines = append(lines, canonKey(k)+"="+v)
			}
		}
		for _, l := range lines {
			fmt.Fprintln(c.out, l)
		}
		return 0
	}
	if len(o.args) == 0 {
		fmt.Fprint(c.err, "usage: git config [<options>]\n")
		return ExitUsage
	}
	key := o.args[0]
	sec, sub, name, ok := splitKey(key)
	if !ok {
		if !strings.Contains(key, ".") {
			c.errorf("key does not contain a section: %s", key)
		} else {
			c.errorf("key does not contain variable name: %s", key)
		}
		return 1
	}
	if o.has("unset") || o.has("unset-all") {
		f, err := readConfigFile(c.env, file)
		if err != nil {
			c.dieErr(err)
		}
		if len(lookupIn(f, key)) == 0 {
			return 5
		}
		s := f.Section(sec)
		if sub != "" {
			s.Subsection(sub).RemoveOption(name)
		} else {
			s.RemoveOption(name)
		}
		if err := writeConfigFile(c.env, file, f); err != nil {
			c.dieErr(err)
		}
		return 0
	}
	if len(o.args) == 1 || o.has("get") || o.has("get-all") {
		var vals []string
		if file != "" && (o.has("global") || o.has("local") || o.has("file")) {
			f, err := readConfigFile(c.env, file)
			if err != nil {
				c.dieErr(err)
			}
			vals = lookupIn(f, key)
		} else {
			gd, _, _ := findRepo(c.env, c.env.Dir)
			cfg, err := loadConfig(c.env, gd)
			if err != nil {
				c.dieErr(err)
			}
			if v, ok := cfg.over[canonKey(key)]; ok {
				vals = []string{v}
			} else {
				for _, f := range cfg.files {
					vals = append(vals, lookupIn(f, key)...)
				}
			}
		}
		if len(vals) == 0 {
			if o.has("default") {
				fmt.Fprintln(c.out, o.val("default"))
				return 0
			}
			return 1
		}
		if o.has("get-all") {
			for _, v := range vals {
				fmt.Fprintln(c.out, v)
			}
			return 0
		}
		v := vals[len(vals)-1]
		if o.has("bool") {
			switch strings.ToLower(v) {
			case "true", "yes", "on", "1", "":
				v = "true"
			default:
				v = "false"
			}
		}
		fmt.Fprintln(c.out, v)
		return 0
	}
	val := o.args[1]
	f, err := readConfigFile(c.env, file)
	if err != nil {
		c.dieErr(err)
	}
	if o.has("add") {
		f.AddOption(sec, sub, name, val)
	} else {
		f.SetOption(sec, sub, name, val)
	}
	if err := c.env.FS.MkdirAll(c.env.Ctx, path.Dir(file), 0o755); err != nil {
		c.dieErr(err)
	}
	if err := writeConfigFile(c.env, file, f); err != nil {
		c.dieErr(err)
	}
	return 0
}

func cmdVersion(c *cmd, args []string) int {
	fmt.Fprintln(c.out, "git version 2.39.5 (desk gitws, go-git v5)")
	return 0
}

func cmdHashObject(c *cmd, args []string) int {
	o := c.parse(args, spec{long: []string{"stdin"}, short: map[byte]string{'w': "w", 't': "t"}})
	r := c.needRepo()
	var inputs [][]byte
	if o.has("stdin") {
		data, err := readAllLimit(c.env.Stdin, c.env.maxObject())
		if err != nil {
			c.dieErr(err)
		}
		inputs = append(inputs, data)
	}
	for _, a := range append(o.args, o.paths...) {
		data, err := c.env.FS.ReadFile(c.env.Ctx, c.env.abs(a))
		if err != nil {
			c.die("could not open '%s' for reading: %s", a, strerror(err))
		}
		inputs = append(inputs, data)
	}
	for _, d := range inputs {
		h := hashBlob(d)
		if o.has("w") {
			var err error
			if h, err = r.storeBlob(d); err != nil {
				c.dieErr(err)
			}
		}
		fmt.Fprintln(c.out, h)
	}
	return 0
}

func cmdWriteTree(c *cmd, args []string) int {
	r := c.needRepo()
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	h, err := r.writeTree(indexFiles(idx))
	if err != nil {
		c.dieErr(err)
	}
	fmt.Fprintln(c.out, h)
	return 0
}

func cmdSymbolicRef(c *cmd, args []string) int {
	o := c.parse(args, spec{long: []string{"short", "quiet"}, short: map[byte]string{'q': "quiet"}})
	r := c.needRepo()
	if len(o.args) == 0 {
		return ExitUsage
	}
	name := plumbing.ReferenceName(o.args[0])
	if len(o.args) == 2 {
		if err := r.st.SetReference(plumbing.NewSymbolicReference(name, plumbing.ReferenceName(o.args[1]))); err != nil {
			c.dieErr(err)
		}
		return 0
	}
	ref, err := r.st.Reference(name)
	if err != nil || ref.Type() != plumbing.SymbolicReference {
		if !o.has("quiet") {
			c.die("ref %s is not a symbolic ref", name)
		}
		return 1
	}
	t := ref.Target().String()
	if o.has("short") {
		t = ref.Target().Short()
	}
	fmt.Fprintln(c.out, t)
	return 0
}

func cmdUpdateRef(c *cmd, args []string) int {
	o := c.parse(args, spec{long: []string{"delete"}, short: map[byte]string{'d': "delete", 'm': "m"}})
	r := c.needRepo()
	if o.has("delete") && len(o.args) >= 1 {
		if err := r.st.RemoveReference(plumbing.ReferenceName(o.args[0])); err != nil {
			c.dieErr(err)
		}
		return 0
	}
	if len(o.args) < 2 {
		return ExitUsage
	}
	h, err := c.resolveCommitish(r, o.args[1])
	if err != nil {
		c.die("%s: not a valid SHA1", o.args[1])
	}
	if err := r.setRef(o.args[0], h, o.val("m")); err != nil {
		c.dieErr(err)
	}
	return 0
}

func cmdCatFile(c *cmd, args []string) int {
	o := c.parse(args, spec{short: map[byte]string{'t': "t", 's': "s", 'p': "p", 'e': "e"}})
	r := c.needRepo()
	if len(o.args) == 0 {
		return ExitUsage
	}
	rev := o.args[len(o.args)-1]
	h, err := c.resolve(r, rev)
	if err != nil {
		if o.has("e") {
			return 1
		}
		c.die("Not a valid object name %s", rev)
	}
	obj, err := r.st.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		if o.has("e") {
			return 1
		}
		c.die("Not a valid object name %s", rev)
	}
	switch {
	case o.has("e"):
		return 0
	case o.has("t"):
		fmt.Fprintln(c.out, obj.Type())
		return 0
	case o.has("s"):
		fmt.Fprintln(c.out, obj.Size())
		return 0
	case o.has("p"):
		if obj.Type() == plumbing.TreeObject {
			t, err := object.GetTree(r.st, h)
			if err != nil {
				c.dieErr(err)
			}
			for _, e := range t.Entries {
				typ := "blob"
				if e.Mode == filemode.Dir {
					typ = "tree"
				} else if e.Mode == filemode.Submodule {
					typ = "commit"
				}
				fmt.Fprintf(c.out, "%06o %s %s\t%s\n", uint32(e.Mode), typ, e.Hash, e.Name)
			}
			return 0
		}
	case len(o.args) == 2:
		if o.args[0] != obj.Type().String() {
			c.die("git cat-file %s: bad file", rev)
		}
	default:
		return ExitUsage
	}
	rd, err := obj.Reader()
	if err != nil {
		c.dieErr(err)
	}
	defer rd.Close()
	data, err := readAllLimit(rd, c.env.maxObject())
	if err != nil {
		c.dieErr(err)
	}
	_, _ = c.out.Write(data)
	return 0
}

func cmdClean(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"force", "dry-run", "quiet", "d", "x", "X"},
		short: map[byte]string{'f': "force", 'n': "dry-run", 'q': "quiet", 'd': "d", 'x': "x", 'X': "X"},
	})
	r := c.needWork()
	if !o.has("force") && !o.has("dry-run") && r.cfg.bool("clean.requireforce", true) {
		c.die("clean.requireForce defaults to true and neither -i, -n, nor -f given; refusing to clean")
	}
	ps := c.newPathspec(append(o.args, o.paths...))
	idx, err := r.readIndex()
	if err != nil {
		c.dieErr(err)
	}
	tracked := trackedNames(idx)
	sc, err := r.scan(tracked, o.has("x") || o.has("X"))
	if err != nil {
		c.dieErr(err)
	}
	var list []string
	switch {
	case o.has("X"):
		list = sc.ignored
	case o.has("x"):
		list = append(append(list, sc.untracked...), sc.ignored...)
		sort.Strings(list)
	default:
		list = sc.untracked
	}
	if o.has("d") {
		list = collapseUntracked(list, tracked)
	} else {
		var files []string
		for _, p := range collapseUntracked(list, tracked) {
			if !strings.HasSuffix(p, "/") {
				files = append(files, p)
			}
		}
		list = files
	}
	for _, p := range list {
		if !ps.match(strings.TrimSuffix(p, "/")) {
			continue
		}
		if o.has("dry-run") {
			fmt.Fprintf(c.out, "Would remove %s\n", c.relPath(p))
			continue
		}
		if !o.has("quiet") {
			fmt.Fprintf(c.out, "Removing %s\n", c.relPath(p))
		}
		if err := c.env.FS.RemoveAll(c.env.Ctx, r.Work+"/"+strings.TrimSuffix(p, "/")); err != nil {
			c.dieErr(err)
		}
	}
	return 0
}
