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
// -d DIR, --dry-run, -N, -f/-t, -s, -b, an explicit file operand, hunks found
// at an offset or with fuzz up to 2 ("Hunk #1 succeeded at N with fuzz F
// (offset M lines)."), files created and removed for /dev/null headers,
// rejected hunks saved to FILE.rej with exit status 1, and GNU's detection of
// a reversed (or already applied) patch (-N skips it, -t reverses it, and the
// question is otherwise answered with its default, as without a terminal).
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
		case "f", "force":
			p.force = true
		case "t", "batch":
			p.batch = true
		case "b", "backup":
			p.backup = true
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
		env.Errorf("patch", "**** Can't open patch file %s : %s", input, Strerror(err))
		return 2
	}
	if p.dir != "" {
		fi, err := env.FS.Stat(env.Ctx, env.Abs(p.dir))
		if err != nil || !fi.IsDir() {
			if err == nil {
				err = gnuMessage("Not a directory")
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
	force, batch, backup          bool
	removeEmpty                   bool
	dir, base, target             string
}

// filePatch is the part of a patch for one file.
type filePatch struct {
	oldName, newName string
	oldLine, newLine string // the header lines, for .rej files
	oldNull, newNull bool   // /dev/null or the epoch: creation or removal
	hunks            []*hunk
	lead             []string // the patch's lines up to its +++ line, since the previous one
	hunkLine         int      // the line number of its first hunk
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
	prevEnd := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
			continue
		}
		fp := &filePatch{oldLine: lines[i], newLine: lines[i+1], lead: lines[prevEnd : i+2], hunkLine: i + 3}
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
		prevEnd = i
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
		var existing []string
		for _, c := range cands {
			if p.exists(c) {
				existing = append(existing, c)
			}
		}
		name = patchBestName(existing)
		if name == "" && oldNull && len(cands) > 0 {
			name = cands[len(cands)-1]
		}
		if name == "" {
			if !p.silent {
				fmt.Fprintf(p.w, "can't find file to patch at input line %d\n", fp.hunkLine)
				if p.strip < 0 {
					fmt.Fprintf(p.w, "Perhaps you should have used the -p or --strip option?\n")
				} else {
					fmt.Fprintf(p.w, "Perhaps you used the wrong -p or --strip option?\n")
				}
			}
			fmt.Fprintf(p.w, "The text leading up to this was:\n--------------------------\n")
			for _, l := range fp.lead {
				fmt.Fprintf(p.w, "|%s", l)
				if !strings.HasSuffix(l, "\n") {
					fmt.Fprintln(p.w)
				}
			}
			fmt.Fprintf(p.w, "--------------------------\n")
			if p.force || p.batch {
				fmt.Fprintf(p.w, "No file to patch.  Skipping patch.\n")
			} else { // the questions, answered with their defaults: there is no terminal
				fmt.Fprintf(p.w, "File to patch: \nSkip this patch? [y] \nSkipping patch.\n")
			}
			fmt.Fprintf(p.w, "%d out of %d hunk%s ignored\n", len(fp.hunks), len(fp.hunks), patchPlural(len(fp.hunks)))
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
	reverse := p.reverse
	for n, h := range fp.hunks {
		old, neu, guess := h.sides(reverse, offset)
		pre, post := h.context()
		var at, fuzz, lo, hi int
		ok := false
		for fz := 0; fz <= p.maxFuzz && !ok; fz++ {
			var valid bool
			at, lo, hi, ok, valid = p.locate1(lines, old, guess, pre, post, fz)
			if !valid {
				break
			}
			fuzz = fz
			if ok || n > 0 || p.force {
				continue
			}
			// GNU's guess at a reversed (or already applied) patch: the first
			// hunk fails, but applies the other way round.
			sOld, _, sGuess := h.sides(!reverse, offset)
			if _, _, _, found, _ := p.locate1(lines, sOld, sGuess, pre, post, fz); !found {
				continue
			}
			if reverse {
				fmt.Fprint(p.w, "Unreversed patch detected!")
			} else {
				fmt.Fprint(p.w, "Reversed (or previously applied) patch detected!")
			}
			switch {
			case p.forward:
				fmt.Fprint(p.w, "  Skipping patch.\n")
			case p.batch:
				if reverse {
					fmt.Fprint(p.w, "  Ignoring -R.\n")
				} else {
					fmt.Fprint(p.w, "  Assuming -R.\n")
				}
				reverse = !reverse
				old, neu, guess = h.sides(reverse, offset)
				at, lo, hi, ok, _ = p.locate1(lines, old, guess, pre, post, fz)
				continue
			default: // the questions, answered with their default: there is no terminal
				if reverse {
					fmt.Fprint(p.w, "  Ignore -R? [n] \nApply anyway? [n] \nSkipping patch.\n")
				} else {
					fmt.Fprint(p.w, "  Assume -R? [n] \nApply anyway? [n] \nSkipping patch.\n")
				}
			}
			return p.reject(name, fp, fp.hunks, "ignored")
		}
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
	if p.backup {
		// -b: the original as NAME.orig (empty for a file the patch creates).
		if err := p.env.FS.WriteFile(ctx, p.abs(name+".orig"), src, 0o644); err != nil {
			p.w.Flush()
			fmt.Fprintf(p.env.Stderr, "patch: **** Can't create file %s : %s\n", name+".orig", Strerror(err))
			return 2
		}
	}
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

// locate1 finds where old matches lines at one fuzz factor, nearest to
// guess first, as GNU patch's locate_hunk (valid is false past the fuzz the
// hunk's context allows): at fuzz 0 a hunk with less leading (trailing)
// context than trailing (leading) must sit at the start (end) of the file.
func (p *patcher) locate1(lines, old []string, guess, pre, post, fuzz int) (at, lo, hi int, ok, valid bool) {
	ctxN := max(pre, post)
	if fuzz > 0 && fuzz > ctxN {
		return 0, 0, 0, false, false
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
			return at, lo, hi, true, true
		}
		return 0, 0, 0, false, true
	case pf < 0:
		if match(0) {
			return 0, lo, hi, true, true
		}
		return 0, 0, 0, false, true
	}
	if match(guess) {
		return guess, lo, hi, true, true
	}
	for d := 1; d <= len(lines); d++ {
		if p.env.Canceled() {
			return 0, 0, 0, false, false
		}
		if match(guess + d) {
			return guess + d, lo, hi, true, true
		}
		if match(guess - d) {
			return guess - d, lo, hi, true, true
		}
	}
	return 0, 0, 0, false, true
}

// sides returns the lines a hunk replaces and those it puts in their place
// (swapped for a reversed patch), and the index where it should start.
func (h *hunk) sides(reverse bool, offset int) (old, neu []string, guess int) {
	old, neu = h.side(false), h.side(true)
	start := h.oldStart
	if reverse {
		old, neu = neu, old
		start = h.newStart
	}
	guess = start - 1
	if len(old) == 0 {
		guess = start
	}
	return old, neu, guess + offset
}

// patchBestName picks among the existing candidate names as GNU patch's
// best_name: the fewest directory components, then the shortest base name,
// then the shortest name, then the first.
func patchBestName(names []string) string {
	best := ""
	bc, bb, bl := 0, 0, 0
	for i, n := range names {
		c := strings.Count(strings.Trim(n, "/"), "/")
		b := len(path.Base(n))
		if i == 0 || c < bc || c == bc && (b < bb || b == bb && len(n) < bl) {
			best, bc, bb, bl = n, c, b, len(n)
		}
	}
	return best
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
