package gitws

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitVersion is the git release this package follows. It is what
// git version reports and the default signature of format-patch ("-- "
// and the version, as the real git 2.39.5 writes), so a patch made here is
// byte-identical to one made by the real git of the sandbox.
const gitVersion = "2.39.5"

// mailWrap is the column git folds an email Subject at, and
// mailStatWidth the width of format-patch's diffstat.
const (
	mailWrap      = 78
	mailStatWidth = 72
)

// maxPatches bounds the commits one format-patch formats.
const maxPatches = 10000

func cmdFormatPatch(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long: []string{"stdout", "output-directory=", "numbered", "no-numbered", "start-number=", "subject-prefix=",
			"signature=", "no-signature", "root", "keep-subject", "suffix=", "quiet", "zero-commit", "reroll-count=",
			"rfc", "numbered-files", "no-stat", "stat", "cover-letter", "no-binary", "binary", "no-renames", "full-index"},
		short: map[byte]string{'o': "output-directory", 'n': "numbered", 'N': "no-numbered", 'k': "keep-subject",
			'q': "quiet", 'v': "reroll-count", 'p': "no-stat"},
	})
	if o.has("cover-letter") {
		c.die("format-patch --cover-letter is not implemented here (the real git in the sandbox has it)")
	}
	r := c.needRepo()
	// -<n> arrives as a numbered value; -n and --numbered as ""
	maxCount, numbered := -1, false
	for _, v := range o.set["numbered"] {
		if v == "" {
			numbered = true
		} else {
			maxCount, _ = strconv.Atoi(v)
		}
	}
	revs := append(o.args, o.paths...)
	var heads, hidden []plumbing.Hash
	switch {
	case len(revs) == 0 && maxCount < 0 && !o.has("root"):
		// git format-patch alone acts as git format-patch HEAD: nothing
		return 0
	case len(revs) == 0:
		heads = []plumbing.Hash{c.mustCommit(r, "HEAD")}
	}
	for _, rev := range revs {
		if a, b, ok := c.rangeParts(rev); ok {
			hidden = append(hidden, c.mustCommit(r, a))
			heads = append(heads, c.mustCommit(r, b))
			continue
		}
		if neg, ok := strings.CutPrefix(rev, "^"); ok {
			hidden = append(hidden, c.mustCommit(r, neg))
			continue
		}
		h := c.mustCommit(r, rev)
		if len(revs) == 1 && maxCount < 0 && !o.has("root") {
			// <since>: the commits of HEAD not in since
			hidden = append(hidden, h)
			heads = append(heads, c.mustCommit(r, "HEAD"))
			continue
		}
		heads = append(heads, h)
	}
	var list []*object.Commit
	err := r.walk(heads, hidden, false, func(cm *object.Commit) (bool, error) {
		if maxCount >= 0 && len(list) >= maxCount {
			return false, nil
		}
		if len(cm.ParentHashes) > 1 {
			return true, nil // merges are not formatted
		}
		if len(list) >= maxPatches {
			return false, fmt.Errorf("format-patch: more than %d commits", maxPatches)
		}
		list = append(list, cm)
		return true, nil
	})
	if err != nil {
		c.dieErr(err)
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	if len(list) == 0 {
		return 0
	}
	start := 1
	if o.has("start-number") {
		n, err := strconv.Atoi(o.val("start-number"))
		if err != nil {
			c.die("format-patch: bad --start-number '%s'", o.val("start-number"))
		}
		start = n
	}
	if len(list) > 1 && !o.has("no-numbered") {
		numbered = true
	}
	if o.has("no-numbered") {
		numbered = false
	}
	prefix := "PATCH"
	if o.has("rfc") {
		prefix = "RFC PATCH"
	}
	if o.has("subject-prefix") {
		prefix = o.val("subject-prefix")
	}
	reroll := ""
	if o.has("reroll-count") {
		reroll = "v" + o.val("reroll-count")
		prefix = strings.TrimSpace(prefix + " " + reroll)
	}
	signature := gitVersion
	if v, ok := r.cfg.get("format.signature"); ok {
		signature = v
	}
	if o.has("signature") {
		signature = o.val("signature")
	}
	if o.has("no-signature") {
		signature = ""
	}
	suffix := ".patch"
	if v, ok := r.cfg.get("format.suffix"); ok {
		suffix = v
	}
	if o.has("suffix") {
		suffix = o.val("suffix")
	}
	outDir := ""
	if v, ok := r.cfg.get("format.outputdirectory"); ok {
		outDir = v
	}
	if o.has("output-directory") {
		outDir = o.val("output-directory")
	}
	if o.has("stdout") && outDir != "" && o.has("output-directory") {
		c.die("options '--output-directory' and '--stdout' cannot be used together")
	}
	if outDir != "" && !o.has("stdout") {
		if err := c.env.FS.MkdirAll(c.env.Ctx, c.env.abs(outDir), 0o755); err != nil {
			c.die("could not create leading directories of '%s': %s", outDir, strerror(err))
		}
	}
	total := start - 1 + len(list)
	for i, cm := range list {
		nr := start + i
		var b bytes.Buffer
		subjPrefix := "[" + prefix + "] "
		if numbered {
			subjPrefix = fmt.Sprintf("[%s %d/%d] ", prefix, nr, total)
		}
		if o.has("keep-subject") {
			subjPrefix = ""
		}
		id := cm.Hash
		if o.has("zero-commit") {
			id = plumbing.ZeroHash
		}
		c.writeMail(&b, r, cm, id, subjPrefix, !o.has("no-stat"), signature)
		if o.has("stdout") {
			if i > 0 {
				fmt.Fprintln(c.out)
			}
			_, _ = c.out.Write(b.Bytes())
			continue
		}
		rr := ""
		if reroll != "" {
			rr = reroll + "-"
		}
		name := patchFileName(nr, cm.Message, suffix, rr, o.has("numbered-files"))
		p := name
		if outDir != "" {
			p = strings.TrimSuffix(outDir, "/") + "/" + name
		}
		if err := c.env.FS.WriteFile(c.env.Ctx, c.env.abs(p), b.Bytes(), 0o644); err != nil {
			c.die("could not open '%s': %s", p, strerror(err))
		}
		if !o.has("quiet") {
			fmt.Fprintln(c.out, p)
		}
	}
	return 0
}

// writeMail writes one commit as format-patch does: the mbox From line, the
// From, Date and Subject headers (RFC 2047 encoded when not ASCII, the
// subject folded at 78 columns), the MIME headers for an 8-bit message, the
// body, "---", the diffstat and summary, the patch and the signature.
func (c *cmd) writeMail(w io.Writer, r *Repo, cm *object.Commit, id plumbing.Hash, subjPrefix string, stat bool, signature string) {
	var b strings.Builder
	fmt.Fprintf(&b, "From %s Mon Sep 17 00:00:00 2001\n", id)
	fmt.Fprintf(&b, "From: %s <%s>\n", mailName(cm.Author.Name), cm.Author.Email)
	fmt.Fprintf(&b, "Date: %s\n", cm.Author.When.Format("Mon, 2 Jan 2006 15:04:05 -0700"))
	subj, body := subjectBody(cm.Message)
	line := "Subject: " + subjPrefix
	if !isASCII(subj) {
		b.WriteString(line + rfc2047(subj, len(line), false) + "\n")
	} else {
		b.WriteString(wrapText(subj, -len(line), 1, mailWrap, line) + "\n")
	}
	if !isASCII(cm.Message) {
		b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n")
	}
	b.WriteString("\n")
	if body != "" {
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteString("\n")
		}
	}
	if stat {
		b.WriteString("---\n")
	} else {
		b.WriteString("\n")
	}
	_, _ = io.WriteString(w, b.String())
	var parent map[string]treeEntry
	if len(cm.ParentHashes) > 0 {
		var err error
		if parent, err = r.treeOf(cm.ParentHashes[0]); err != nil {
			c.dieErr(err)
		}
	} else {
		parent = map[string]treeEntry{}
	}
	tree, err := r.flatTree(cm.TreeHash)
	if err != nil {
		c.dieErr(err)
	}
	pairs := detectRenames(diffFlat(parent, tree, pathspec{}))
	if stat && len(pairs) > 0 {
		stats := make([]lineStats, len(pairs))
		for i := range pairs {
			_, _, _, st, err := r.pairDiff(c.env.Ctx, &pairs[i])
			if err != nil {
				c.dieErr(err)
			}
			stats[i] = st
		}
		writeStatWidth(w, pairs, stats, c.relPathDiff, mailStatWidth)
		for _, l := range summaryLines(pairs) {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintln(w)
	}
	c.writeDiff(w, r, pairs, diffOpts{patch: true, context: 3})
	if signature != "" {
		fmt.Fprintf(w, "-- \n%s", signature)
		if !strings.HasSuffix(signature, "\n") {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

// summaryLines are the create/delete/rename/mode lines of --summary.
func summaryLines(pairs []filePair) []string {
	var lines []string
	for _, p := range pairs {
		switch p.status() {
		case 'A':
			lines = append(lines, fmt.Sprintf(" create mode %06o %s", uint32(p.New.Mode), quotePath(p.Path, false)))
		case 'D':
			lines = append(lines, fmt.Sprintf(" delete mode %06o %s", uint32(p.Old.Mode), quotePath(p.Path, false)))
		case 'R':
			lines = append(lines, " rename "+renameSummary(p.OldPath, p.Path)+" (100%)")
		default:
			if p.Old.Mode != p.New.Mode {
				lines = append(lines, fmt.Sprintf(" mode change %06o => %06o %s", uint32(p.Old.Mode), uint32(p.New.Mode), quotePath(p.Path, false)))
			}
		}
	}
	return lines
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// mailName is an author's name in a From header: RFC 2047 encoded when not
// ASCII, quoted when it holds an RFC 822 special character.
func mailName(n string) string {
	if !isASCII(n) {
		return rfc2047(n, len("From: "), true)
	}
	if !strings.ContainsAny(n, "()<>[]:;@,.\"\\") {
		return n
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(n); i++ {
		if n[i] == '"' || n[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(n[i])
	}
	b.WriteByte('"')
	return b.String()
}

// rfc2047 encodes s as git's add_rfc2047 does: Q encoding of UTF-8, an
// encoded word per line of at most 76 columns (col is where it starts), a
// character never split; address is the stricter rule for a name.
func rfc2047(s string, col int, address bool) string {
	const maxLen = 76
	var b strings.Builder
	b.WriteString("=?UTF-8?q?")
	lineLen := col + len("UTF-8") + 5
	for _, ch := range s {
		enc := string(ch)
		special := len(enc) > 1 || rfc2047Special(enc[0], address)
		n := len(enc)
		if special {
			n = 3 * len(enc)
		}
		if lineLen+n+2 > maxLen {
			b.WriteString("?=\n =?UTF-8?q?")
			lineLen = len("UTF-8") + 5 + 1
		}
		if special {
			for i := 0; i < len(enc); i++ {
				fmt.Fprintf(&b, "=%02X", enc[i])
			}
		} else {
			b.WriteString(enc)
		}
		lineLen += n
	}
	b.WriteString("?=")
	return b.String()
}

func rfc2047Special(ch byte, address bool) bool {
	if ch >= 0x7f || ch < 0x20 || ch == ' ' || ch == '=' || ch == '?' || ch == '_' {
		return true
	}
	if !address {
		return false
	}
	isAlnum := ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
	return !(isAlnum || ch == '!' || ch == '*' || ch == '+' || ch == '-' || ch == '/')
}

// wrapText folds ASCII text at white space as git's
// strbuf_add_wrapped_text: the first line continues a line already holding
// -indent1 columns (prefix), the next lines are indented by indent2, no
// line over width columns unless a word is longer.
func wrapText(text string, indent1, indent2, width int, prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	bol, space := 0, -1
	w := indent1
	indent := indent1
	if indent < 0 {
		w = -indent
		space = 0
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	i := 0
	for {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		if c == 0 || isSpace(c) {
			if w <= width || space < 0 {
				start := bol
				if c == 0 && i == start {
					return b.String()
				}
				if space >= 0 {
					start = space
				} else {
					b.WriteString(strings.Repeat(" ", max(indent, 0)))
				}
				b.WriteString(text[start:i])
				if c == 0 {
					return b.String()
				}
				space = i
				if c == '\t' {
					w |= 0x07
				}
				w++
				i++
				continue
			}
			b.WriteByte('\n')
			i = space
			if space < len(text) && isSpace(text[space]) {
				i++
			}
			bol = i
			space = -1
			w, indent = indent2, indent2
			continue
		}
		w++
		i++
	}
}

// patchFileName is format-patch's file name: the number and the subject
// with every run of characters other than letters, digits, '.' and '_'
// made one '-', after the reroll prefix; at most 64 bytes with the suffix.
func patchFileName(nr int, msg, suffix, reroll string, numberedFiles bool) string {
	if numberedFiles {
		return strconv.Itoa(nr)
	}
	subj, _ := subjectBody(msg)
	var b strings.Builder
	space := 2
	for i := 0; i < len(subj); i++ {
		ch := subj[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' {
			if space == 1 {
				b.WriteByte('-')
			}
			space = 0
			b.WriteByte(ch)
			if ch == '.' {
				for i+1 < len(subj) && subj[i+1] == '.' {
					i++
				}
			}
			continue
		}
		space |= 1
	}
	name := reroll + fmt.Sprintf("%04d-", nr) + strings.TrimRight(b.String(), ".-")
	if maxLen := 64 - len(suffix) - 1; len(name) > maxLen {
		name = name[:maxLen]
	}
	return name + suffix
}
