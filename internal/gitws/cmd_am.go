package gitws

import (
	"fmt"
	"mime"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// mboxFrom is the line that starts each message of format-patch's mbox.
var mboxFrom = regexp.MustCompile(`^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$`)

// mail is one message of an mbox: the author, date, subject and body of a
// commit and its patch.
type mail struct {
	name, email string
	date        time.Time
	subject     string
	body        string
	patch       []byte
}

// splitMbox cuts an mbox into messages (no From line: one message).
func splitMbox(data string) []string {
	lines := strings.SplitAfter(data, "\n")
	var out []string
	var cur strings.Builder
	started := false
	for _, l := range lines {
		if mboxFrom.MatchString(strings.TrimSuffix(l, "\n")) {
			if started {
				out = append(out, cur.String())
				cur.Reset()
			}
			started = true
			continue
		}
		cur.WriteString(l)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// parseMail reads a message's headers (unfolded, RFC 2047 decoded) and
// splits its text into the commit message and the patch, as git mailinfo
// does: the message ends at a "---" line or at the first "diff -".
func parseMail(msg string) (mail, error) {
	var m mail
	head, rest, _ := strings.Cut(msg, "\n\n")
	var hdrs []string
	for _, l := range strings.Split(head, "\n") {
		if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) && len(hdrs) > 0 {
			hdrs[len(hdrs)-1] += l // an RFC 2822 folded line
			continue
		}
		hdrs = append(hdrs, l)
	}
	dec := new(mime.WordDecoder)
	decode := func(s string) string {
		if d, err := dec.DecodeHeader(s); err == nil {
			return d
		}
		return s
	}
	for _, h := range hdrs {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "from":
			lt, gt := strings.LastIndexByte(v, '<'), strings.LastIndexByte(v, '>')
			if lt < 0 || gt < lt {
				m.email = v
				continue
			}
			m.email = v[lt+1 : gt]
			n := strings.TrimSpace(decode(strings.TrimSpace(v[:lt])))
			if len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
				n = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(n[1 : len(n)-1])
			}
			m.name = n
		case "date":
			t, err := time.Parse("Mon, 2 Jan 2006 15:04:05 -0700", v)
			if err != nil {
				return m, fmt.Errorf("invalid date line: %s", v)
			}
			m.date = t
		case "subject":
			s := decode(v)
			// drop "[PATCH n/m]" and "Re:" prefixes, as mailinfo
			for {
				s = strings.TrimSpace(s)
				if strings.HasPrefix(s, "[") {
					if i := strings.IndexByte(s, ']'); i >= 0 {
						s = s[i+1:]
						continue
					}
				}
				if len(s) >= 3 && strings.EqualFold(s[:3], "re:") {
					s = s[3:]
					continue
				}
				break
			}
			m.subject = s
		}
	}
	var body strings.Builder
	lines := strings.SplitAfter(rest, "\n")
	i := 0
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		if l == "---" || strings.HasPrefix(l, "diff -") || strings.HasPrefix(l, "Index: ") {
			break
		}
		body.WriteString(lines[i])
	}
	m.body = body.String()
	m.patch = []byte(strings.Join(lines[i:], ""))
	return m, nil
}

func cmdAm(c *cmd, args []string) int {
	o := c.parse(args, spec{
		long:  []string{"quiet", "continue", "skip", "abort", "quit", "signoff", "keep", "3way", "committer-date-is-author-date", "show-current-patch?"},
		short: map[byte]string{'q': "quiet", 's': "signoff", 'k': "keep", '3': "3way"},
	})
	for _, n := range []string{"continue", "skip", "abort", "quit", "show-current-patch"} {
		if o.has(n) {
			c.die("Resolve operation not in progress, we are not resuming.")
		}
	}
	for _, n := range []string{"signoff", "keep", "3way", "committer-date-is-author-date"} {
		if o.has(n) {
			c.die("git am --%s is not implemented here (the real git in the sandbox has it)", n)
		}
	}
	r := c.needWork()
	var input []byte
	files := append(o.args, o.paths...)
	if len(files) == 0 {
		b, err := readAllLimit(c.env.Stdin, maxPatchBytes)
		if err != nil {
			c.die("git am: read the patches: %v", err)
		}
		input = b
	}
	for _, f := range files {
		b, err := c.env.FS.ReadFile(c.env.Ctx, c.env.abs(f))
		if err != nil {
			c.die("could not open '%s' for reading: %s", f, strerror(err))
		}
		if len(input)+len(b) > maxPatchBytes {
			c.die("git am: the patches are over the limit of %d bytes", maxPatchBytes)
		}
		input = append(input, b...)
	}
	msgs := splitMbox(string(input))
	if len(msgs) == 0 || strings.TrimSpace(string(input)) == "" {
		c.die("empty mbox: '%s'", strings.Join(files, " "))
	}
	_, head, err := r.head()
	if err != nil {
		c.dieErr(err)
	}
	for n, raw := range msgs {
		m, err := parseMail(raw)
		if err != nil {
			c.die("%v", err)
		}
		if m.email == "" || len(m.patch) == 0 {
			fmt.Fprintln(c.out, "Patch is empty.")
			c.die("git am of a message without a patch is not implemented here")
		}
		idx, err := r.readIndex()
		if err != nil {
			c.dieErr(err)
		}
		headTree, err := r.treeOf(head)
		if err != nil {
			c.dieErr(err)
		}
		if !sameFlat(indexFiles(idx), headTree) {
			var dirty []string
			for _, p := range diffFlat(headTree, indexFiles(idx), pathspec{}) {
				dirty = append(dirty, p.Path)
			}
			c.die("Dirty index: cannot apply patches (dirty: %s)", strings.Join(dirty, " "))
		}
		if !o.has("quiet") {
			fmt.Fprintf(c.out, "Applying: %s\n", m.subject)
		}
		patches, err := parsePatch(m.patch, 1)
		if err != nil || len(patches) == 0 {
			c.errorf("No valid patches in input (allow with \"--allow-empty\")")
			c.amFailed(n, m.subject)
		}
		a := &applier{c: c, r: r, idx: idx, withIndex: true, state: map[string]*fileState{}}
		failed := false
		for _, p := range patches {
			if err := a.apply(p); err != nil {
				for _, l := range strings.Split(err.Error(), "\n") {
					c.errorf("%s", l)
				}
				failed = true
			}
		}
		if failed {
			c.amFailed(n, m.subject)
		}
		if err := a.write(); err != nil {
			c.dieErr(err)
		}
		treeHash, err := r.writeTree(indexFiles(a.idx))
		if err != nil {
			c.dieErr(err)
		}
		_, committer := c.signatures(r)
		author := object.Signature{Name: m.name, Email: m.email, When: m.date}
		msg := m.subject + "\n"
		if b := strings.TrimSpace(m.body); b != "" {
			msg += "\n" + m.body
		}
		var parents []plumbing.Hash
		if !head.IsZero() {
			parents = []plumbing.Hash{head}
		}
		h, err := r.storeCommit(&object.Commit{Author: author, Committer: committer, Message: cleanupMessage(msg, false), TreeHash: treeHash, ParentHashes: parents})
		if err != nil {
			c.dieErr(err)
		}
		if err := r.updateHead(h, "am: "+m.subject); err != nil {
			c.dieErr(err)
		}
		head = h
	}
	return 0
}

// amFailed reports the patch that did not apply and ends git am with 128.
// The patches before it stay committed, as in git; no session is kept to
// resume (git keeps .git/rebase-apply for --continue, --skip, --abort).
func (c *cmd) amFailed(n int, subject string) {
	fmt.Fprintf(c.out, "Patch failed at %04d %s\n", n+1, subject)
	fmt.Fprintln(c.out, "The tree is as the previous patch left it. Fix it and commit, then run git am on the patches after this one (git am --continue, --skip and --abort are not implemented here).")
	c.exit(ExitFatal)
}
