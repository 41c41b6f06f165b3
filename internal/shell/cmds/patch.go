package cmds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

func init() { Register("patch", Patch) }

// Patch applies unified diffs (from stdin, -i FILE or the second operand)
// to the workspace as GNU patch 2.7: -p N (without it, the base name), -R,
// -d DIR, --dry-run, -N, -f/-t, -s, an explicit file operand, hunks found
// at an offset or with fuzz up to 2 ("Hunk #1 succeeded at N with fuzz F
// (offset M lines)."), files created and removed for /dev/null headers,
// rejected hunks saved to FILE.rej with exit status 1.
func Patch(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "patch", args[1:], optSpec{
		shorts: "p:Rd:i:NftsEuF:b",
		longs: []string{"strip=", "reverse", "directory=", "input=", "dry-run", "forward", "force",
			"batch", "silent", "quiet", "remove-empty-files", "unified", "fuzz=", "backup"},
	})
	if !ok {
		return 2
	}
	p := &patcher{env: env, strip: -1, maxFuzz: 2}
	input := ""
	for _, o := range opts {
		switch o.name {
		case "p", "strip":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				env.Errorf("patch", "strip count %s is not a number", o.val)
				return 2
			}
			p.strip = n
		case "F", "fuzz":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				env.Errorf("patch", "fuzz factor %s is not a number", o.val)
				return 2
			}
			p.maxFuzz = n
		case "R", "reverse":
			p.reverse = true
		case "d", "directory":
			p.dir = o.val
		case "i", "input":
			input = o.val
		case "dry-run":
			p.dry = true
		case "N", "forward":
			p.forward = true
		case "s", "silent", "quiet":
			p.silent = true
		case "E", "remove-empty-files":
			p.removeEmpty = true
		}
	}
	if len(ops) > 0 {
		p.target = ops[0]
	}
	if len(ops) > 1 {
		input = ops[1]
	}
	if len(ops) > 2 {
		env.Errorf("patch", "%s: extra operand", ops[2])
		return 2
	}
	var data []byte
	var err error
	if input != "" && input != "-" {
		data, err = readArgLimited(env, input)
	} else {
		data, err = readAllLimited(env, nopCloser{ctxReader{env, env.Stdin}})
	}
	if err != nil {
		env.Errorf("patch", "Can't open patch file %s : %s", input, Strerror(err))
		return 2
	}
	if p.dir != "" {
		fi, err := env.FS.Stat(env.Ctx, env.Abs(p.dir))
		if err != nil || !fi.IsDir() {
			if err == nil {
				err = errors.New("Not a directory")
			}
			env.Errorf("patch", "Can't change to directory %s : %s", p.dir, Strerror(err))
			return 2
		}
		p.base = env.Abs(p.dir)
	} else {
		p.base = env.Dir
	}
	p.w = bufio.NewWriter(env.Stdout)
	defer p.w.Flush()
	files, err := parseUnified(data)
	if err != nil {
		p.w.Flush()
		env.Errorf("patch", "%s", err)
		return 2
	}
	if len(files) == 0 {
		p.w.Flush()
		fmt.Fprintln(env.Stderr, "patch: **** Only garbage was found in the patch input.")
		return 2
	}
	status := 0
	for _, fp := range files {
		if env.Canceled() {
			return 2
		}
		if s := p.apply(fp); s > status {
			status = s
		}
	}
	return status
}

type patcher struct {
	env                           *Env
	w                             *bufio.Writer
	strip, maxFuzz                int
	reverse, dry, forward, silent bool
	removeEmpty                   bool
	dir, base, target             string
}

// filePatch is the part of a patch for one file.
type filePatch struct {
	oldName, newName string
	oldLine, newLine string // the header lines, for .rej files
	oldNull, newNull bool   // /dev/null or the epoch: creation or removal
	hunks            []*hunk
}

// hunk is one @@ section: lines start with ' ', '-' or '+'; noNL marks a
// line followed by "\ No newline at end of file".
type hunk struct {
	oldStart, oldLen, newStart, newLen int
	lines                              []string
	noNL                               []bool
	text                               string // as it appeared, for .rej
}

func patchHeaderName(s string) (string, bool) {
	s = strings.TrimRight(s, "\r\n")
	name := s
	ts := ""
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		name, ts = s[:i], s[i+1:]
	} else if i := strings.Index(s, "  "); i >= 0 {
		name, ts = s[:i], strings.TrimSpace(s[i:])
	}
	null := name == "/dev/null" || strings.HasPrefix(ts, "1970-01-01 00:00:00")
	return name, null
}

// parseUnified reads the unified diffs of a patch; other text is skipped.
func parseUnified(data []byte) ([]*filePatch, error) {
	lines := splitLinesKeep(data)
	var out []*filePatch
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			continue
		}
		fp := &filePatch{oldLine: lines[i], newLine: lines[i+1]}
		fp.oldName, fp.oldNull = patchHeaderName(lines[i][4:])
		fp.newName, fp.newNull = patchHeaderName(lines[i+1][4:])
		i += 2
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			h, n, err := parseHunk(lines[i:], i+1)
			if err != nil {
				return nil, err
			}
			fp.hunks = append(fp.hunks, h)
			i += n
		}
		i--
		out = append(out, fp)
	}
	return out, nil
}

func parseHunk(lines []string, lineNo int) (*hunk, int, error) {
	h := &hunk{}
	head := strings.TrimRight(lines[0], "\r\n")
	var a, b string
	if _, err := fmt.Sscanf(head, "@@ -%s +%s @@", &a, &b); err != nil {
		return nil, 0, fmt.Errorf("**** malformed patch at line %d: %s", lineNo, head)
	}
	rng := func(s string) (int, int, bool) {
		st, ln, has := strings.Cut(s, ",")
		x, err1 := strconv.Atoi(st)
		y := 1
		var err2 error
		if has {
			y, err2 = strconv.Atoi(ln)
		}
		return x, y, err1 == nil && err2 == nil
	}
	var ok1, ok2 bool
	h.oldStart, h.oldLen, ok1 = rng(a)
	h.newStart, h.newLen, ok2 = rng(b)
	if !ok1 || !ok2 {
		return nil, 0, fmt.Errorf("**** malformed patch at line %d: %s", lineNo, head)
	}
	var text strings.Builder
	text.WriteString(lines[0])
	oldN, newN := 0, 0
	i := 1
	for ; i < len(lines) && (oldN < h.oldLen || newN < h.newLen); i++ {
		l := lines[i]
		if l == "\n" { // an empty context line whose space was stripped
			l = " \n"
		}
		switch l[0] {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		case '\\':
			if len(h.noNL) > 0 {
				h.noNL[len(h.noNL)-1] = true
			}
			text.WriteString(lines[i])
			continue
		default:
			return nil, 0, fmt.Errorf("**** malformed patch at line %d: %s", lineNo+i, strings.TrimRight(lines[i], "\n"))
		}
		text.WriteString(lines[i])
		h.lines = append(h.lines, l)
		h.noNL = append(h.noNL, false)
	}
	if oldN != h.oldLen || newN != h.newLen {
		return nil, 0, fmt.Errorf("**** unexpected end of file in patch")
	}
	for i < len(lines) && strings.HasPrefix(lines[i], "\\") {
		if len(h.noNL) > 0 {
			h.noNL[len(h.noNL)-1] = true
		}
		text.WriteString(lines[i])
		i++
	}
	h.text = text.String()
	return h, i, nil
}

// side returns the hunk's old (or new) lines, each with its newline unless
// marked otherwise.
func (h *hunk) side(newSide bool) []string {
	var out []string
	for i, l := range h.lines {
		c := l[0]
		if c == ' ' || (c == '+') == newSide && c != ' ' {
			s := l[1:]
			if h.noNL[i] {
				s = strings.TrimSuffix(s, "\n")
			}
			out = append(out, s)
		}
	}
	return out
}

// context counts the leading and trailing context lines.
func (h *hunk) context() (pre, post int) {
	for pre < len(h.lines) && h.lines[pre][0] == ' ' {
		pre++
	}
	for post < len(h.lines) && h.lines[len(h.lines)-1-post][0] == ' ' {
		post++
	}
	return
}

func (p *patcher) stripName(name string) string {
	if p.strip < 0 {
		return path.Base(name)
	}
	s := name
	for i := 0; i < p.strip; i++ {
		j := strings.IndexByte(s, '/')
		if j < 0 {
			return ""
		}
		s = s[j+1:]
		for strings.HasPrefix(s, "/") {
			s = s[1:]
		}
	}
	return s
}

func (p *patcher) abs(name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	return path.Join(p.base, name)
}

func (p *patcher) exists(name string) bool {
	_, err := p.env.FS.Stat(p.env.Ctx, p.abs(name))
	return err == nil
}

// apply patches one file.
func (p *patcher) apply(fp *filePatch) int {
	oldNull, newNull := fp.oldNull, fp.newNull
	if p.reverse {
		oldNull, newNull = newNull, oldNull
	}
	name := p.target
	if name == "" {
		cands := []string{}
		for _, n := range []string{fp.oldName, fp.newName} {
			if n != "/dev/null" {
				if s := p.stripName(n); s != "" {
					cands = append(cands, s)
				}
			}
		}
		for _, c := range cands {
			if p.exists(c) {
				name = c
				break
			}
		}
		if name == "" && oldNull && len(cands) > 0 {
			name = cands[len(cands)-1]
		}
		if name == "" {
			p.w.Flush()
			fmt.Fprintf(p.env.Stderr, "can't find file to patch at input line %d\n", 3)
			fmt.Fprintf(p.env.Stderr, "No file to patch.  Skipping patch.\n")
			fmt.Fprintf(p.env.Stderr, "%d out of %d hunk%s ignored\n", len(fp.hunks), len(fp.hunks), patchPlural(len(fp.hunks)))
			return 1
		}
	}
	var src []byte
	missing := false
	data, err := p.env.FS.ReadFile(p.env.Ctx, p.abs(name))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) || !oldNull {
			p.w.Flush()
			fmt.Fprintf(p.env.Stderr, "patch: **** Can't open file %s : %s\n", name, Strerror(err))
			return 2
		}
		missing = true
	} else {
		src = data
	}
	if !p.silent {
		if p.dry {
			fmt.Fprintf(p.w, "checking file %s\n", name)
		} else {
			fmt.Fprintf(p.w, "patching file %s\n", name)
		}
	}
	if oldNull && !missing && len(src) > 0 && p.forward {
		// Creating a file that exists: previously applied.
		p.w.Flush()
		fmt.Fprintf(p.w, "The next patch would create the file %s,\nwhich already exists!  Skipping patch.\n", name)
		return p.reject(name, fp, fp.hunks, "ignored")
	}
	lines := splitLinesKeep(src)
	offset := 0
	var failed []*hunk
	for n, h := range fp.hunks {
		old, neu := h.side(false), h.side(true)
		start := h.oldStart
		if p.reverse {
			old, neu = neu, old
			start = h.newStart
		}
		pre, post := h.context()
		guess := start - 1
		if len(old) == 0 {
			guess = start
		}
		guess += offset
		at, fuzz, lo, hi, ok := p.locate(lines, old, guess, pre, post)
		if !ok {
			failed = append(failed, h)
			if !p.silent {
				fmt.Fprintf(p.w, "Hunk #%d FAILED at %d.\n", n+1, max(guess, 0)+1)
			}
			continue
		}
		// Apply: replace lines[at+fuzzPre : at+len(old)-fuzzPost] keeping
		// the file's own context lines where fuzz ignored them.
		if lo+hi > min(len(old), len(neu)) {
			lo, hi = 0, 0
		}
		nl := append([]string{}, lines[:at+lo]...)
		nl = append(nl, neu[lo:len(neu)-hi]...)
		nl = append(nl, lines[at+len(old)-hi:]...)
		lines = nl
		delta := at - guess
		if !p.silent && (delta != 0 || fuzz != 0) {
			msg := fmt.Sprintf("Hunk #%d succeeded at %d", n+1, at+1)
			if len(old) == 0 && at == 0 {
				msg = fmt.Sprintf("Hunk #%d succeeded at %d", n+1, at)
			}
			if fuzz != 0 {
				msg += fmt.Sprintf(" with fuzz %d", fuzz)
			}
			if delta != 0 {
				msg += fmt.Sprintf(" (offset %d line%s)", delta, patchPlural(patchAbs(delta)))
			}
			fmt.Fprintln(p.w, msg+".")
		}
		offset += delta + len(neu) - len(old)
	}
	// Lines joined: a line in the middle missing its newline gains one.
	var out bytes.Buffer
	for i, l := range lines {
		out.WriteString(l)
		if i < len(lines)-1 && !strings.HasSuffix(l, "\n") {
			out.WriteByte('\n')
		}
	}
	status := 0
	if len(failed) > 0 {
		status = p.reject(name, fp, failed, "FAILED")
	}
	if p.dry {
		return status
	}
	ctx := p.env.Ctx
	if newNull && out.Len() == 0 || p.removeEmpty && out.Len() == 0 {
		if !missing {
			if err := p.env.FS.Remove(ctx, p.abs(name)); err != nil {
				p.w.Flush()
				fmt.Fprintf(p.env.Stderr, "patch: **** Can't remove file %s : %s\n", name, Strerror(err))
				return 2
			}
			// GNU patch also removes the directories the removal emptied.
			for d := path.Dir(p.abs(name)); d != p.base && d != "/" && strings.HasPrefix(d, p.base+"/"); d = path.Dir(d) {
				if ents, err := fuReadDir(p.env, d); err != nil || len(ents) > 0 || p.env.FS.Remove(ctx, d) != nil {
					break
				}
			}
		}
		return status
	}
	mode := fs.FileMode(0o644)
	if missing {
		if err := p.env.FS.MkdirAll(ctx, path.Dir(p.abs(name)), 0o755); err != nil {
			p.w.Flush()
			fmt.Fprintf(p.env.Stderr, "patch: **** Can't create file %s : %s\n", name, Strerror(err))
			return 2
		}
	} else if fi, err := p.env.FS.Stat(ctx, p.abs(name)); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := p.env.FS.WriteFile(ctx, p.abs(name), out.Bytes(), mode); err != nil {
		p.w.Flush()
		fmt.Fprintf(p.env.Stderr, "patch: **** Can't write file %s : %s\n", name, Strerror(err))
		return 2
	}
	return status
}

// reject reports hunks that did not apply and saves them to name.rej.
func (p *patcher) reject(name string, fp *filePatch, hunks []*hunk, how string) int {
	rej := name + ".rej"
	fmt.Fprintf(p.w, "%d out of %d hunk%s %s", len(hunks), len(fp.hunks), patchPlural(len(fp.hunks)), how)
	if p.dry {
		fmt.Fprintln(p.w)
		return 1
	}
	fmt.Fprintf(p.w, " -- saving rejects to file %s\n", rej)
	var b strings.Builder
	b.WriteString(fp.oldLine)
	b.WriteString(fp.newLine)
	for _, h := range hunks {
		b.WriteString(h.text)
	}
	if err := p.env.FS.WriteFile(p.env.Ctx, p.abs(rej), []byte(b.String()), 0o644); err != nil {
		p.w.Flush()
		fmt.Fprintf(p.env.Stderr, "patch: **** Can't create file %s : %s\n", rej, Strerror(err))
		return 2
	}
	return 1
}

// locate finds where old matches lines, nearest to guess first, with fuzz
// as GNU patch's locate_hunk: at fuzz 0 a hunk with less leading (trailing)
// context than trailing (leading) must sit at the start (end) of the file.
func (p *patcher) locate(lines, old []string, guess, pre, post int) (at, fuzz, lo, hi int, ok bool) {
	ctxN := max(pre, post)
	for fuzz = 0; fuzz <= p.maxFuzz; fuzz++ {
		if fuzz > 0 && fuzz > ctxN {
			break
		}
		pf := fuzz + pre - ctxN
		sf := fuzz + post - ctxN
		lo, hi = min(max(pf, 0), pre), min(max(sf, 0), post)
		match := func(at int) bool {
			if at < 0 || at+len(old) > len(lines) {
				return false
			}
			for i := lo; i < len(old)-hi; i++ {
				if lines[at+i] != old[i] && strings.TrimSuffix(lines[at+i], "\n") != strings.TrimSuffix(old[i], "\n") {
					return false
				}
			}
			return true
		}
		switch {
		case sf < 0:
			if at := len(lines) - len(old); match(at) {
				return at, fuzz, lo, hi, true
			}
			continue
		case pf < 0:
			if match(0) {
				return 0, fuzz, lo, hi, true
			}
			continue
		}
		if match(guess) {
			return guess, fuzz, lo, hi, true
		}
		for d := 1; d <= len(lines); d++ {
			if p.env.Canceled() {
				return 0, 0, 0, 0, false
			}
			if match(guess + d) {
				return guess + d, fuzz, lo, hi, true
			}
			if match(guess - d) {
				return guess - d, fuzz, lo, hi, true
			}
		}
	}
	return 0, 0, 0, 0, false
}

func patchPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func patchAbs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
