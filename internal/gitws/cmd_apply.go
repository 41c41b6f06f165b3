package gitws

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// maxPatchBytes bounds the patch input of git apply.
const maxPatchBytes = 64 << 20

// hunk is one @@ section of a patch.
type hunk struct {
	oldStart, oldLen, newStart, newLen int
	old, new                           []string // the lines it expects and the lines it leaves, with their "\n"
	leading, trailing                  int      // context lines before the first and after the last change
	adds, dels                         int      // the lines it adds and deletes
}

// filePatch is the patch of one file.
type filePatch struct {
	oldPath, newPath   string // "" for /dev/null
	oldMode, newMode   filemode.FileMode
	isNew, isDelete    bool
	isRename, isCopy   bool
	binary             bool
	hunks              []hunk
	added, deleted     int
	hasHeader, sawDiff bool
}

// name is the path the patch is shown under (the new one, else the old).
func (p *filePatch) name() string {
	if p.newPath != "" {
		return p.newPath
	}
	return p.oldPath
}

// patchError is a patch that cannot be read: git's "corrupt patch" (status
// 128).
type patchError struct{ msg string }

func (e *patchError) Error() string { return e.msg }

// stripPath drops the first p components of a patch path.
func stripPath(name string, p int) (string, bool) {
	for range p {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = name[i+1:]
		for strings.HasPrefix(name, "/") {
			name = name[1:]
		}
	}
	return name, name != ""
}

// unquoteName reads a name as git writes it in a patch: C-quoted when it
// starts with '"'; a traditional patch's name ends at a tab.
func unquoteName(s string) string {
	if strings.HasPrefix(s, "\"") {
		if end := strings.LastIndexByte(s, '"'); end > 0 {
			if u, err := strconv.Unquote(s[:end+1]); err == nil {
				return u
			}
		}
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ")
}

// parsePatch reads the file patches of a unified diff (git's or a
// traditional one); text around them (a mail's headers and message, a
// signature) is skipped.
func parsePatch(data []byte, strip int) ([]*filePatch, error) {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []*filePatch
	var cur *filePatch
	name := func(raw string) (string, error) {
		raw = unquoteName(strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r"))
		if raw == "/dev/null" {
			return "", nil
		}
		n, ok := stripPath(raw, strip)
		if !ok {
			return "", fmt.Errorf("invalid path '%s'", raw)
		}
		return n, nil
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\n")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur = &filePatch{sawDiff: true}
			out = append(out, cur)
			rest := l[len("diff --git "):]
			// "a/P b/P": the two halves name the same file
			if n := len(rest); n%2 == 1 && rest[n/2] == ' ' {
				if a, err := name(rest[:n/2]); err == nil {
					if b, err := name(rest[n/2+1:]); err == nil && a == b {
						cur.oldPath, cur.newPath = a, b
					}
				}
			} else if strings.HasPrefix(rest, "\"") {
				if end := strings.Index(rest[1:], "\" "); end >= 0 {
					a, _ := name(rest[:end+2])
					b, _ := name(rest[end+3:])
					cur.oldPath, cur.newPath = a, b
				}
			}
		case cur != nil && cur.sawDiff && len(cur.hunks) == 0 && !cur.hasHeader && isExtHeader(l):
			v := func(p string) string { return strings.TrimPrefix(l, p) }
			mode := func(s string) filemode.FileMode {
				m, _ := strconv.ParseUint(strings.TrimSpace(s), 8, 32)
				return filemode.FileMode(m)
			}
			switch {
			case strings.HasPrefix(l, "old mode "):
				cur.oldMode = mode(v("old mode "))
			case strings.HasPrefix(l, "new mode "):
				cur.newMode = mode(v("new mode "))
			case strings.HasPrefix(l, "deleted file mode "):
				cur.isDelete, cur.oldMode = true, mode(v("deleted file mode "))
				cur.newPath = ""
			case strings.HasPrefix(l, "new file mode "):
				cur.isNew, cur.newMode = true, mode(v("new file mode "))
				cur.oldPath = ""
			case strings.HasPrefix(l, "rename from "):
				cur.isRename, cur.oldPath = true, unquoteName(v("rename from "))
			case strings.HasPrefix(l, "rename to "):
				cur.isRename, cur.newPath = true, unquoteName(v("rename to "))
			case strings.HasPrefix(l, "copy from "):
				cur.isCopy, cur.oldPath = true, unquoteName(v("copy from "))
			case strings.HasPrefix(l, "copy to "):
				cur.isCopy, cur.newPath = true, unquoteName(v("copy to "))
			case strings.HasPrefix(l, "index "):
				if f := strings.Fields(l); len(f) == 3 {
					m := mode(f[2])
					cur.oldMode, cur.newMode = m, m
				}
			}
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") && i+2 < len(lines) && strings.HasPrefix(lines[i+2], "@@ "):
			if cur == nil || !cur.sawDiff || cur.hasHeader || len(cur.hunks) > 0 {
				cur = &filePatch{}
				out = append(out, cur)
			}
			a, err := name(l[4:])
			if err != nil {
				return nil, err
			}
			b, err := name(strings.TrimSuffix(lines[i+1], "\n")[4:])
			if err != nil {
				return nil, err
			}
			if !cur.sawDiff {
				cur.oldPath, cur.newPath = a, b
				cur.isNew, cur.isDelete = a == "", b == ""
			}
			cur.hasHeader = true
			i++
		case strings.HasPrefix(l, "@@ ") && cur != nil && (cur.hasHeader || cur.sawDiff):
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
			cur.added += h.adds
			cur.deleted += h.dels
			i = next - 1
		case strings.HasPrefix(l, "GIT binary patch") || strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
			if cur != nil {
				cur.binary = true
			}
		}
	}
	for _, p := range out {
		if p.isNew && p.newMode == 0 {
			p.newMode = filemode.Regular
		}
	}
	return out, nil
}

func isExtHeader(l string) bool {
	for _, p := range []string{"old mode ", "new mode ", "deleted file mode ", "new file mode ", "rename from ", "rename to ", "copy from ", "copy to ", "similarity index ", "dissimilarity index ", "index "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// parseHunk reads the hunk whose header is lines[i]; next is the line
// after it. A hunk shorter than its header says is a corrupt patch.
func parseHunk(lines []string, i int) (h hunk, next int, err error) {
	hdr := strings.TrimSuffix(lines[i], "\n")
	var ok bool
	if h.oldStart, h.oldLen, h.newStart, h.newLen, ok = parseHunkHeader(hdr); !ok {
		return h, 0, &patchError{fmt.Sprintf("corrupt patch at line %d", i+1)}
	}
	oldN, newN := 0, 0
	j := i + 1
	changed := false
	for ; j < len(lines) && (oldN < h.oldLen || newN < h.newLen); j++ {
		l := lines[j]
		if l == "\n" || l == "" {
			l = " \n" // an empty context line (mail programs drop its space)
		}
		switch l[0] {
		case ' ':
			h.old = append(h.old, l[1:])
			h.new = append(h.new, l[1:])
			oldN++
			newN++
			if changed {
				h.trailing++
			} else {
				h.leading++
			}
		case '-':
			h.old = append(h.old, l[1:])
			oldN++
			h.dels++
			changed, h.trailing = true, 0
		case '+':
			h.new = append(h.new, l[1:])
			newN++
			h.adds++
			changed, h.trailing = true, 0
		case '\\':
			noNewline(&h, lines[j-1])
		default:
			return h, 0, &patchError{fmt.Sprintf("corrupt patch at line %d", j+1)}
		}
	}
	if oldN < h.oldLen || newN < h.newLen {
		return h, 0, &patchError{fmt.Sprintf("corrupt patch at line %d", j+1)}
	}
	// a "\ No newline at end of file" after the last line
	if j < len(lines) && strings.HasPrefix(lines[j], "\\") {
		noNewline(&h, lines[j-1])
		j++
	}
	return h, j, nil
}

// noNewline drops the "\n" of the line before a "\ No newline" marker.
func noNewline(h *hunk, prev string) {
	if prev == "" {
		return
	}
	cut := func(s []string) {
		if len(s) > 0 {
			s[len(s)-1] = strings.TrimSuffix(s[len(s)-1], "\n")
		}
	}
	switch prev[0] {
	case ' ':
		cut(h.old)
		cut(h.new)
	case '-':
		cut(h.old)
	case '+':
		cut(h.new)
	}
}

func parseHunkHeader(l string) (os, ol, ns, nl int, ok bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return
	}
	a, b, found := strings.Cut(rest[:end], " +")
	if !found {
		return
	}
	rng := func(s string) (int, int, bool) {
		x, y, has := strings.Cut(s, ",")
		start, err := strconv.Atoi(x)
		if err != nil {
			return 0, 0, false
		}
		n := 1
		if has {
			if n, err = strconv.Atoi(y); err != nil {
				return 0, 0, false
			}
		}
		return start, n, true
	}
	var ok1, ok2 bool
	os, ol, ok1 = rng(a)
	ns, nl, ok2 = rng(b)
	return os, ol, ns, nl, ok1 && ok2
}

// reverse turns a patch around (git apply -R).
func (p *filePatch) reverse() {
	p.oldPath, p.newPath = p.newPath, p.oldPath
	p.oldMode, p.newMode = p.newMode, p.oldMode
	p.isNew, p.isDelete = p.isDelete, p.isNew
	for i := range p.hunks {
		h := &p.hunks[i]
		h.oldStart, h.newStart = h.newStart, h.oldStart
		h.oldLen, h.newLen = h.newLen, h.oldLen
		h.old, h.new = h.new, h.old
		h.adds, h.dels = h.dels, h.adds
	}
	p.added, p.deleted = p.deleted, p.added
}

// applyHunks applies the hunks to the lines of a file as git apply does:
// each hunk's expected lines must match exactly (no fuzz), searched from
// the line its header names outwards; a hunk at the start (or without
// trailing context, at the end) must match there. It returns the number
// of the first hunk that does not apply (1-based), or 0.
func applyHunks(img []string, hunks []hunk) ([]string, int, int) {
	for k, h := range hunks {
		pos := h.newStart - 1
		if pos < 0 {
			pos = 0
		}
		matchBegin := h.oldStart == 0 || h.oldStart == 1
		matchEnd := h.trailing == 0
		at := findHunk(img, h.old, pos, matchBegin, matchEnd)
		if at < 0 {
			return nil, k + 1, h.oldStart
		}
		nw := make([]string, 0, len(img)-len(h.old)+len(h.new))
		nw = append(nw, img[:at]...)
		nw = append(nw, h.new...)
		nw = append(nw, img[at+len(h.old):]...)
		img = nw
	}
	return img, 0, 0
}

func findHunk(img, want []string, pos int, matchBegin, matchEnd bool) int {
	if len(want) > len(img) {
		return -1
	}
	if pos > len(img)-len(want) {
		pos = len(img) - len(want)
	}
	match := func(at int) bool {
		if matchBegin && at != 0 || matchEnd && at+len(want) != len(img) {
			return false
		}
		for i, l := range want {
			if img[at+i] != l {
				return false
			}
		}
		return true
	}
	back, fwd := pos, pos
	if match(pos) {
		return pos
	}
	for back > 0 || fwd < len(img)-len(want) {
		if fwd < len(img)-len(want) {
			fwd++
			if match(fwd) {
				return fwd
			}
		}
		if back > 0 {
			back--
			if match(back) {
				return back
			}
		}
	}
	return -1
}

// fileState is a path's content while patches are applied (a series may
// patch one file more than once).
type fileState struct {
	data   []byte
	mode   filemode.FileMode
	exists bool
	dirty  bool
}

func cmdApply(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long: []string{"check", "stat", "numstat", "summary", "cached", "index", "reverse", "verbose", "quiet",
			"apply", "allow-empty", "3way", "p=", "directory=", "whitespace=", "ignore-whitespace", "recount", "unidiff-zero", "reject", "include=", "exclude="},
		short: map[byte]string{'R': "reverse", 'v': "verbose", 'q': "quiet", '3': "3way", 'p': "p"},
	})
	for _, n := range []string{"3way", "directory", "recount", "unidiff-zero", "reject", "include", "exclude"} {
		if o.has(n) {
			c.die("git apply --%s is not implemented here (the real git in the sandbox has it)", n)
		}
	}
	strip := 1
	for _, v := range o.set["p"] {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			c.die("git apply: bad -p value '%s'", v)
		}
		strip = n
	}
	files := append(o.args, o.paths...)
	var input []byte
	if len(files) == 0 || len(files) == 1 && files[0] == "-" {
		b, err := readAllLimit(c.env.Stdin, maxPatchBytes)
		if err != nil {
			c.die("git apply: read the patch: %v", err)
		}
		input = b
	} else {
		for _, f := range files {
			fi, err := c.env.FS.Stat(c.env.Ctx, c.env.abs(f))
			if err == nil && fi.Size() > maxPatchBytes {
				c.die("git apply: %s is over the limit of %d bytes", f, maxPatchBytes)
			}
			b, err := c.env.FS.ReadFile(c.env.Ctx, c.env.abs(f))
			if err != nil {
				c.die("can't open patch '%s': %s", f, strerror(err))
			}
			input = append(input, b...)
		}
	}
	patches, err := parsePatch(input, strip)
	var pe *patchError
	if errors.As(err, &pe) {
		c.die("%s", pe.msg)
	} else if err != nil {
		c.errorf("%v", err)
		return ExitFatal
	}
	if len(patches) == 0 {
		if o.has("allow-empty") {
			return 0
		}
		c.errorf("No valid patches in input (allow with \"--allow-empty\")")
		return ExitFatal
	}
	for _, p := range patches {
		if o.has("reverse") {
			p.reverse()
		}
	}
	informational := o.has("stat") || o.has("numstat") || o.has("summary")
	if o.has("numstat") {
		for _, p := range patches {
			n := quotePath(p.name(), false)
			if p.binary {
				fmt.Fprintf(c.out, "-\t-\t%s\n", n)
				continue
			}
			fmt.Fprintf(c.out, "%d\t%d\t%s\n", p.added, p.deleted, n)
		}
	}
	if o.has("stat") {
		applyStat(c.out, patches)
	}
	if o.has("summary") {
		for _, p := range patches {
			switch {
			case p.isNew:
				fmt.Fprintf(c.out, " create mode %06o %s\n", uint32(p.newMode), quotePath(p.newPath, false))
			case p.isDelete:
				fmt.Fprintf(c.out, " delete mode %06o %s\n", uint32(p.oldMode), quotePath(p.oldPath, false))
			case p.isRename:
				fmt.Fprintf(c.out, " rename %s (100%%)\n", renameSummary(p.oldPath, p.newPath))
			case p.isCopy:
				fmt.Fprintf(c.out, " copy %s (100%%)\n", renameSummary(p.oldPath, p.newPath))
			case p.oldMode != 0 && p.newMode != 0 && p.oldMode != p.newMode:
				fmt.Fprintf(c.out, " mode change %06o => %06o %s\n", uint32(p.oldMode), uint32(p.newMode), quotePath(p.newPath, false))
			}
		}
	}
	if informational && !o.has("apply") {
		return 0
	}
	cached, withIndex := o.has("cached"), o.has("index") || o.has("cached")
	a := &applier{c: c, cached: cached, withIndex: withIndex, state: map[string]*fileState{}}
	if withIndex {
		a.r = c.needWork()
		if cached {
			a.r = c.needRepo()
		}
		if a.idx, err = a.r.readIndex(); err != nil {
			c.dieErr(err)
		}
	} else if gd, work, err := findRepo(c.env, c.env.Dir); err == nil && work != "" {
		if a.r, err = openRepo(c.env, gd, work); err != nil {
			c.dieErr(err)
		}
	}
	// paths are relative to the top of the work tree; in a subdirectory
	// only the patches below it apply (as in git)
	prefix := ""
	if a.r != nil && a.r.Work != "" {
		prefix = c.prefix()
	}
	failed := false
	var todo []*filePatch
	for _, p := range patches {
		if prefix != "" && !strings.HasPrefix(p.name(), prefix) && !strings.HasPrefix(p.oldPath, prefix) {
			continue
		}
		if err := a.apply(p); err != nil {
			for _, l := range strings.Split(err.Error(), "\n") {
				c.errorf("%s", l)
			}
			failed = true
			continue
		}
		todo = append(todo, p)
	}
	if failed {
		return 1
	}
	if o.has("check") {
		return 0
	}
	if err := a.write(); err != nil {
		c.dieErr(err)
	}
	if o.has("verbose") {
		for _, p := range todo {
			fmt.Fprintf(c.err, "Applied patch %s cleanly.\n", p.name())
		}
	}
	return 0
}

// applyStat writes git apply --stat's table (its own layout, not diff's).
func applyStat(w io.Writer, patches []*filePatch) {
	maxLen, maxChange := 0, 0
	adds, dels := 0, 0
	for _, p := range patches {
		maxLen = max(maxLen, len(quotePath(p.name(), false)))
		maxChange = max(maxChange, p.added+p.deleted)
		adds += p.added
		dels += p.deleted
	}
	for _, p := range patches {
		n := quotePath(p.name(), false)
		width := min(maxLen, 50)
		if len(n) > width {
			cut := len(n) + 3 - width
			if i := strings.IndexByte(n[cut:], '/'); i >= 0 {
				cut += i
			}
			n = "..." + n[cut:]
		}
		if p.binary {
			fmt.Fprintf(w, " %-*s |  Bin\n", width, n)
			continue
		}
		fmt.Fprintf(w, " %-*s |", width, n)
		scale := maxChange
		if width+maxChange > 70 {
			scale = 70 - width
		}
		add, del := p.added, p.deleted
		if maxChange > 0 {
			total := ((add+del)*scale + maxChange/2) / maxChange
			add = (add*scale + maxChange/2) / maxChange
			del = total - add
		}
		fmt.Fprintf(w, "%5d %s%s\n", p.added+p.deleted, strings.Repeat("+", add), strings.Repeat("-", del))
	}
	fmt.Fprintln(w, summaryLine(len(patches), adds, dels))
}

// applier applies patches to the work tree, the index or both, keeping
// every result in memory until all of them applied (nothing is written
// when one fails).
type applier struct {
	c         *cmd
	r         *Repo // nil outside a repository
	idx       *index.Index
	cached    bool // the index only
	withIndex bool // the index too (--index or --cached)
	state     map[string]*fileState
	order     []string
}

// get returns the current state of path p.
func (a *applier) get(p string) (*fileState, error) {
	if st, ok := a.state[p]; ok {
		return st, nil
	}
	st := &fileState{}
	var ent *index.Entry
	if a.idx != nil {
		for _, e := range a.idx.Entries {
			if e.Name == p && e.Stage == 0 {
				ent = e
			}
		}
	}
	if a.cached {
		if ent != nil {
			data, err := a.r.blob(ent.Hash)
			if err != nil {
				return nil, err
			}
			st.data, st.mode, st.exists = data, ent.Mode, true
		}
	} else {
		base := a.c.env.Dir
		if a.r != nil && a.r.Work != "" {
			base = a.r.Work
		}
		full := base + "/" + p
		fi, err := a.c.env.FS.Lstat(a.c.env.Ctx, full)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			attr := fi.Attr()
			if attr.IsDir() {
				return nil, fmt.Errorf("%s: is a directory", p)
			}
			if attr.Size > a.c.env.maxObject() {
				return nil, fmt.Errorf("%s: %d bytes is over the limit of %d", p, attr.Size, a.c.env.maxObject())
			}
			var data []byte
			if attr.IsSymlink() {
				t, err := a.c.env.FS.Readlink(a.c.env.Ctx, full)
				if err != nil {
					return nil, err
				}
				data = []byte(t)
			} else if data, err = a.c.env.FS.ReadFile(a.c.env.Ctx, full); err != nil {
				return nil, err
			}
			st.data, st.mode, st.exists = data, modeOf(attr), true
		}
		if a.withIndex && st.exists && (ent == nil || ent.Hash != hashBlob(st.data)) {
			if ent == nil {
				return nil, fmt.Errorf("%s: does not exist in index", p)
			}
			return nil, fmt.Errorf("%s: does not match index", p)
		}
	}
	a.state[p] = st
	a.order = append(a.order, p)
	return st, nil
}

// apply applies one file patch to the in-memory state.
func (a *applier) apply(p *filePatch) error {
	if p.binary {
		return fmt.Errorf("cannot apply binary patch to '%s' without full index line\n%s: patch does not apply", p.name(), p.name())
	}
	var src *fileState
	if !p.isNew {
		st, err := a.get(p.oldPath)
		if err != nil {
			return err
		}
		if !st.exists {
			if a.cached {
				return fmt.Errorf("%s: does not exist in index", p.oldPath)
			}
			return fmt.Errorf("%s: No such file or directory", p.oldPath)
		}
		src = st
	}
	if p.isNew || p.isRename || p.isCopy {
		st, err := a.get(p.newPath)
		if err != nil {
			return err
		}
		if st.exists {
			if a.cached {
				return fmt.Errorf("%s: already exists in index", p.newPath)
			}
			return fmt.Errorf("%s: already exists in working directory", p.newPath)
		}
	}
	var img []string
	if src != nil {
		img = strings.SplitAfter(string(src.data), "\n")
		if len(img) > 0 && img[len(img)-1] == "" {
			img = img[:len(img)-1]
		}
	}
	res, bad, line := applyHunks(img, p.hunks)
	if bad > 0 {
		name := p.oldPath
		if name == "" {
			name = p.newPath
		}
		return fmt.Errorf("patch failed: %s:%d\n%s: patch does not apply", name, line, name)
	}
	data := []byte(strings.Join(res, ""))
	if p.isDelete {
		if len(data) > 0 {
			return errors.New("removal patch leaves file contents")
		}
		src.exists, src.data, src.dirty = false, nil, true
		return nil
	}
	mode := filemode.Regular
	if src != nil {
		mode = src.mode
	}
	if p.newMode != 0 {
		mode = p.newMode
	}
	if p.isRename && src != nil {
		src.exists, src.data, src.dirty = false, nil, true
	}
	dst, err := a.get(p.newPath)
	if err != nil {
		return err
	}
	dst.data, dst.mode, dst.exists, dst.dirty = data, mode, true, true
	return nil
}

// write writes every changed path to the work tree and the index.
func (a *applier) write() error {
	ctx, f := a.c.env.Ctx, a.c.env.FS
	base := a.c.env.Dir
	if a.r != nil && a.r.Work != "" {
		base = a.r.Work
	}
	sort.Strings(a.order)
	for _, p := range a.order {
		st := a.state[p]
		if !st.dirty {
			continue
		}
		var h plumbing.Hash
		if a.withIndex {
			var err error
			if st.exists {
				if h, err = a.r.storeBlob(st.data); err != nil {
					return err
				}
			}
		}
		if !a.cached {
			full := base + "/" + p
			if !st.exists {
				if err := f.Remove(ctx, full); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				if a.r != nil {
					a.r.pruneEmptyDirs(dirOf(p))
				}
			} else {
				if err := mkParents(a.c, base, p); err != nil {
					return err
				}
				if fi, err := f.Lstat(ctx, full); err == nil && (fi.Mode()&fs.ModeSymlink != 0 || st.mode == filemode.Symlink) {
					if err := f.Remove(ctx, full); err != nil {
						return err
					}
				}
				if st.mode == filemode.Symlink {
					if err := f.Symlink(ctx, string(st.data), full); err != nil {
						return err
					}
				} else {
					perm := fs.FileMode(0o644)
					if st.mode == filemode.Executable {
						perm = 0o755
					}
					if err := f.WriteFile(ctx, full, st.data, perm); err != nil {
						return err
					}
					if err := f.Chmod(ctx, full, perm); err != nil {
						return err
					}
				}
			}
		}
		if a.withIndex {
			removeEntry(a.idx, p)
			if st.exists {
				e := &index.Entry{Name: p, Hash: h, Mode: st.mode}
				if !a.cached {
					if fi, err := f.Lstat(ctx, base+"/"+p); err == nil {
						entryFromAttr(e, fi.Attr())
					}
				}
				a.idx.Entries = append(a.idx.Entries, e)
			}
		}
	}
	if a.withIndex {
		return a.r.writeIndex(a.idx)
	}
	return nil
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// mkParents makes the directories above base/p.
func mkParents(c *cmd, base, p string) error {
	d := dirOf(p)
	if d == "." {
		return nil
	}
	if err := c.env.FS.MkdirAll(c.env.Ctx, base+"/"+d, 0o755); err != nil {
		return fmt.Errorf("make directories for %s: %w", p, err)
	}
	return nil
}
